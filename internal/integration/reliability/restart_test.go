package reliability

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/internal/testenv"
)

// killSwitch plays a process kill: from the moment it trips, no request
// leaves the operator. It trips as the first operand CR create is sent,
// which goes through. It notes whether, by then, a write of the
// HyperConverged (the finalizer) had succeeded.
type killSwitch struct {
	mu              sync.Mutex
	killed          bool
	created         string
	finalizerBefore bool
	hcWritten       bool
	tripped         chan struct{}
}

// isHCWrite reports whether req writes the HyperConverged itself, not its status.
func isHCWrite(req *http.Request) bool {
	return (req.Method == http.MethodPatch || req.Method == http.MethodPut) &&
		strings.HasSuffix(req.URL.Path, "/hyperconvergeds/"+v1beta1.HyperConvergedName)
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
			s.killed, s.created, s.finalizerBefore = true, req.URL.Path, s.hcWritten
		}
		s.mu.Unlock()
		resp, err := rt.RoundTrip(req)
		if trip {
			close(s.tripped)
		}
		if err == nil && isHCWrite(req) && resp.StatusCode < 300 {
			s.mu.Lock()
			s.hcWritten = true
			s.mu.Unlock()
		}
		return resp, err
	})
}

// The operator is killed right after its first operand CR create; a fresh
// one (new manager, new Reconciler, no memory) takes over. It creates the
// missing CRs and no duplicate, keeps the one created before the kill, and
// writes a status that references the live CRs.
func TestOperatorKilledMidConvergence(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	kill := &killSwitch{tripped: make(chan struct{})}
	first := startOperator(t, operatorOptions{wrap: kill.wrap})
	createHC(t, fullHC)
	select {
	case <-kill.tripped:
	case <-time.After(wait):
		t.Fatal("the first operator created no operand CR")
	}
	first.stop()

	// What the killed operator left: the finalizer, one operand CR, no
	// status. The finalizer must be stored before any operand CR is
	// created: a HyperConverged deleted after a kill between the two would
	// go at once, and its operand CRs, most of them cluster-scoped, would be
	// orphaned for good.
	if !kill.finalizerBefore {
		t.Error("the first operator created an operand CR before the HyperConverged's finalizer was stored")
	}
	hc := getHC(t)
	if len(hc.Finalizers) == 0 {
		t.Fatal("killed after its first operand CR create, the first operator left the HyperConverged without the finalizer")
	}
	if c := condition(hc, v1beta1.ConditionReconcileComplete); c != nil {
		t.Fatalf("killed before its first status write, yet %+v", c)
	}
	left := takeSnapshot(t)
	if len(left) != 1 {
		t.Fatalf("killed after one create, yet %d operand CRs: %v", len(left), left)
	}
	early := operandAt(kill.created)
	mustOK(t, k.Get(ctx, client.ObjectKeyFromObject(early), early))
	if len(first.requests.matching(func(r request) bool { return r.code != 0 && isOperandCreatePath(r) })) != 1 {
		t.Fatalf("the first operator's requests: %v", first.requests.writes())
	}

	second := startOperator(t, operatorOptions{})
	deleteHCAtEnd(t)
	testenv.Eventually(t, "the second operator converges", func() error { return converged(ctx, 300) })
	hc = waitCondition(t, v1beta1.ConditionReconcileComplete, metav1.ConditionTrue, "")
	if hc.Status.SystemHealthStatus != v1beta1.SystemHealthWarning {
		t.Errorf("systemHealthStatus %q: the operands have not reported, so it is a warning", hc.Status.SystemHealthStatus)
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
