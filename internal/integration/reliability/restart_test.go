package reliability

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kvv1 "kubevirt.io/api/core/v1"

	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/internal/testenv"
)

// killSwitch plays a process kill: from the moment it trips, no request
// leaves the operator. It trips as the first operand CR create is sent,
// which goes through.
type killSwitch struct {
	mu      sync.Mutex
	killed  bool
	created string
	tripped chan struct{}
}

func (s *killSwitch) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		s.mu.Lock()
		if s.killed {
			s.mu.Unlock()
			return nil, errors.New("operator process killed")
		}
		trip := isOperandCreate(req)
		if trip {
			s.killed, s.created = true, req.URL.Path
		}
		s.mu.Unlock()
		resp, err := rt.RoundTrip(req)
		if trip {
			close(s.tripped)
		}
		return resp, err
	})
}

// killAfterFirstCreate starts an operator, creates the HyperConverged and
// stops the operator as its first operand CR create completes. It returns
// the operand CR that create made.
func killAfterFirstCreate(t *testing.T, kill *killSwitch) client.Object {
	t.Helper()
	kill.tripped = make(chan struct{})
	first := startOperator(t, operatorOptions{wrap: kill.wrap})
	createHC(t, fullHC)
	select {
	case <-kill.tripped:
	case <-time.After(wait):
		t.Fatal("the first operator created no operand CR")
	}
	first.stop()
	if n := len(first.requests.matching(func(r request) bool { return r.code != 0 && isOperandCreatePath(r) })); n != 1 {
		t.Fatalf("killed after one create, yet %d went through: %v", n, first.requests.writes())
	}
	early := operandAt(kill.created)
	mustOK(t, k.Get(context.Background(), client.ObjectKeyFromObject(early), early))
	return early
}

// The operator is killed right after its first operand CR create; a fresh
// one (new manager, new Reconciler, no memory) takes over. It creates the
// missing CRs and no duplicate, keeps the one created before the kill, and
// writes a status that references the live CRs.
func TestOperatorKilledMidConvergence(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	kill := &killSwitch{}
	early := killAfterFirstCreate(t, kill)
	if c := condition(getHC(t), v1beta1.ConditionReconcileComplete); c != nil {
		t.Fatalf("killed before its first status write, yet %+v", c)
	}
	if left := takeSnapshot(t); len(left) != 1 {
		t.Fatalf("killed after one create, yet %d operand CRs: %v", len(left), left)
	}

	second := startOperator(t, operatorOptions{})
	deleteHCAtEnd(t)
	testenv.Eventually(t, "the second operator converges", func() error { return converged(ctx, 300) })
	hc := waitCondition(t, v1beta1.ConditionReconcileComplete, metav1.ConditionTrue, "")
	if hc.Status.SystemHealthStatus != v1beta1.SystemHealthError {
		t.Errorf("systemHealthStatus %q: the operands have not reported, so not Available: an error, as upstream's", hc.Status.SystemHealthStatus)
	}
	if !slices.Contains(hc.Finalizers, hco.FinalizerName) {
		t.Errorf("converged without the finalizer: %v", hc.Finalizers)
	}

	again := operandAt(kill.created)
	mustOK(t, k.Get(ctx, client.ObjectKeyFromObject(again), again))
	if again.GetUID() != early.GetUID() {
		t.Errorf("%T created before the kill was replaced", early)
	}
	creates := second.requests.matching(func(r request) bool { return isOperandCreatePath(r) })
	if len(creates) != 4 {
		t.Errorf("the second operator should create the 4 missing CRs, once each: %v", creates)
	}
	for _, r := range creates {
		if r.path == kill.created || r.code != http.StatusCreated {
			t.Errorf("create %v: the CR existed already or the create failed", r)
		}
	}
}

// isOperandCreatePath reports whether a logged request created an operand CR.
func isOperandCreatePath(r request) bool {
	return r.verb == http.MethodPost && operandAt(r.path) != nil
}

// writeKill plays a process kill at the n-th write: from the moment that
// write is sent (it goes through), no request leaves the operator.
type writeKill struct {
	mu      sync.Mutex
	n       int
	seen    int
	killed  bool
	what    string
	tripped chan struct{}
}

func (w *writeKill) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		w.mu.Lock()
		if w.killed {
			w.mu.Unlock()
			return nil, errors.New("operator process killed")
		}
		trip := false
		if r := (request{verb: req.Method, path: req.URL.Path}); r.isWrite() {
			w.seen++
			if trip = w.seen == w.n; trip {
				w.killed, w.what = true, r.String()
			}
		}
		w.mu.Unlock()
		resp, err := rt.RoundTrip(req)
		if trip {
			close(w.tripped)
		}
		return resp, err
	})
}

// The operator is killed at each point of its convergence in turn (after
// its 1st write, its 2nd, ...), the HyperConverged is deleted while no
// operator runs, and a fresh operator comes back: every time, the
// HyperConverged goes and no operand CR is left. The finalizer is the first
// write, so any CR that exists found a finalizer waiting for it.
func TestKilledAnywhereInConvergenceLeavesNothingAfterDeletion(t *testing.T) {
	env.Require(t)
	ctx := context.Background()

	// How many writes a whole convergence takes, with the same operator.
	probe := startOperator(t, operatorOptions{})
	createHC(t, fullHC)
	testenv.Eventually(t, "the operator converges", func() error { return converged(ctx, 300) })
	waitCondition(t, v1beta1.ConditionReconcileComplete, metav1.ConditionTrue, "")
	writes := probe.requests.writes()
	if first := writes[0]; first.verb != http.MethodPatch || !strings.HasSuffix(first.path, "/hyperconvergeds/"+v1beta1.HyperConvergedName) {
		t.Fatalf("the first write must store the finalizer, yet it is %v (all: %v)", first, writes)
	}
	deleteHC(t)
	probe.stop()

	for n := 1; n <= len(writes); n++ {
		kill := &writeKill{n: n, tripped: make(chan struct{})}
		first := startOperator(t, operatorOptions{wrap: kill.wrap})
		createHC(t, fullHC)
		select {
		case <-kill.tripped:
		case <-time.After(wait):
			t.Fatalf("kill at write %d: the operator made fewer writes (%v)", n, first.requests.writes())
		}
		first.stop()
		mustOK(t, k.Delete(ctx, getHC(t)))

		second := startOperator(t, operatorOptions{})
		testenv.Eventually(t, fmt.Sprintf("killed at write %d (%s): everything gone", n, kill.what), func() error {
			return goneWithOperands(ctx)
		})
		second.stop()
	}
}

// A fresh operator (a restart, an upgrade, a new leader) does not know the
// API server's defaults of the objects already there: it may update each
// operand CR once, an update the API server stores nothing for, and then
// writes nothing at all, for a reconcile with nothing to do included.
func TestRestartCostsAtMostOneNoOpWritePerObject(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	first := startOperator(t, operatorOptions{})
	createHC(t, fullHC)
	testenv.Eventually(t, "the first operator converges", func() error { return converged(ctx, 300) })
	waitCondition(t, v1beta1.ConditionReconcileComplete, metav1.ConditionTrue, "")
	before := takeSnapshot(t)
	first.stop()

	second := startOperator(t, operatorOptions{})
	deleteHCAtEnd(t)
	// Settled: the same writes for a while.
	var writes []request
	testenv.Eventually(t, "the second operator settles", func() error {
		n := len(second.requests.writes())
		time.Sleep(time.Second)
		if writes = second.requests.writes(); len(writes) != n || len(second.requests.matching(func(r request) bool { return r.verb == "GET" || r.verb == "WATCH" })) == 0 {
			return fmt.Errorf("still writing: %v", writes)
		}
		return nil
	})
	perObject := map[string]int{}
	for _, w := range writes {
		if w.verb != http.MethodPut || operandAt(strings.TrimSuffix(w.path, "/"+w.path[strings.LastIndex(w.path, "/")+1:])) == nil {
			t.Errorf("a restart writes nothing but no-op updates of operand CRs: %v", w)
			continue
		}
		perObject[w.path]++
	}
	for path, n := range perObject {
		if n > 1 {
			t.Errorf("%s updated %d times after the restart, want at most once", path, n)
		}
	}
	assertUnchanged(t, before)

	// Now the defaults are known: a reconcile with nothing to do writes
	// nothing. Someone else's label on the KubeVirt CR is a change the
	// operator watches (so it reconciles) and keeps (so it writes nothing).
	n := len(second.requests.writes())
	testenv.Eventually(t, "label the KubeVirt CR", func() error {
		kv := &kvv1.KubeVirt{}
		if err := k.Get(ctx, kvKey, kv); err != nil {
			return err
		}
		kv.Labels["team"] = "virt"
		return k.Update(ctx, kv)
	})
	stays(t, "no writes after a nudge", 2*time.Second, func() error {
		if w := second.requests.writes(); len(w) != n {
			return fmt.Errorf("writes after the nudge: %v", w[n:])
		}
		return nil
	})
}
