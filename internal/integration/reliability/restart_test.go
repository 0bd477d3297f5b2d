package reliability

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	kvv1 "kubevirt.io/api/core/v1"
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

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
	if hc.Status.SystemHealthStatus != v1beta1.SystemHealthWarning {
		t.Errorf("systemHealthStatus %q: the operands have not reported, so it is a warning", hc.Status.SystemHealthStatus)
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

// holdHCWrites fails the operator's writes of the HyperConverged itself (its
// finalizer), not of its status.
func holdHCWrites(rt http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		if isHCWrite(req) {
			return nil, errors.New("HyperConverged writes held by the test")
		}
		return rt.RoundTrip(req)
	})
}

// The finalizer is stored after the operand creates. A HyperConverged
// deleted before it is stored goes at once; the operator then deletes the
// operand CRs it created for it, and only those: a CR it found and adopted
// (restored from a backup, say) is not its to remove.
func TestHyperConvergedDeletedBeforeItsFinalizer(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	restored := operandAt("/kubevirts").(*kvv1.KubeVirt)
	restored.Labels = map[string]string{hco.LabelApp: v1beta1.HyperConvergedName, hco.LabelManagedBy: hco.ManagedByValue}
	mustOK(t, k.Create(ctx, restored))
	op := startOperator(t, operatorOptions{wrap: holdHCWrites})
	createHC(t, fullHC)
	testenv.Eventually(t, "the operand CRs exist", func() error { return oneOfEachKind(ctx) })
	hc := getHC(t)
	if len(hc.Finalizers) != 0 {
		t.Fatalf("the finalizer write was held, yet %v", hc.Finalizers)
	}

	mustOK(t, k.Delete(ctx, hc))
	if err := k.Get(ctx, client.ObjectKeyFromObject(hc), hc); !apierrors.IsNotFound(err) {
		t.Fatalf("without a finalizer the HyperConverged should be gone at once: %v", err)
	}
	testenv.Eventually(t, "the operand CRs the operator created are deleted", func() error {
		for _, obj := range operandObjects() {
			if obj.GetName() == restored.Name {
				continue
			}
			if err := k.Get(ctx, client.ObjectKeyFromObject(obj), obj); !apierrors.IsNotFound(err) {
				return fmt.Errorf("%T %s still there: %v", obj, obj.GetName(), err)
			}
		}
		return nil
	})
	kv := &kvv1.KubeVirt{}
	mustOK(t, k.Get(ctx, client.ObjectKeyFromObject(restored), kv))
	if kv.UID != restored.UID || !kv.DeletionTimestamp.IsZero() {
		t.Errorf("the adopted KubeVirt was deleted or replaced")
	}
	deletes := op.requests.matching(func(r request) bool { return r.verb == http.MethodDelete })
	if len(deletes) != 4 {
		t.Errorf("the operator should delete the 4 CRs it created, once each: %v", deletes)
	}
}

// isOperandCreatePath reports whether a logged request created an operand CR.
func isOperandCreatePath(r request) bool {
	return r.verb == http.MethodPost && operandAt(r.path) != nil
}

// A HyperConverged deleted before the operator could store its finalizer,
// but held by another controller's finalizer, is uninstalled all the same:
// the operand CRs go while it is terminating, and the other finalizer is
// left to its owner.
func TestUninstallWithoutTheFinalizer(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	const other = "test.hcokit.io/hold"
	startOperator(t, operatorOptions{wrap: holdHCWrites})
	createHC(t, func(hc *v1beta1.HyperConverged) {
		fullHC(hc)
		hc.Finalizers = []string{other}
	})
	testenv.Eventually(t, "the operand CRs exist", func() error { return oneOfEachKind(ctx) })
	hc := getHC(t)
	if slices.Contains(hc.Finalizers, hco.FinalizerName) {
		t.Fatalf("the finalizer write was held, yet %v", hc.Finalizers)
	}

	mustOK(t, k.Delete(ctx, hc))
	testenv.Eventually(t, "the operand CRs are deleted", func() error {
		for _, obj := range operandObjects() {
			if err := k.Get(ctx, client.ObjectKeyFromObject(obj), obj); !apierrors.IsNotFound(err) {
				return fmt.Errorf("%T %s still there: %v", obj, obj.GetName(), err)
			}
		}
		return nil
	})
	hc = getHC(t)
	if !slices.Equal(hc.Finalizers, []string{other}) {
		t.Errorf("finalizers %v: the other controller's must stay", hc.Finalizers)
	}
	// The other controller lets go (createHC's cleanup would otherwise force it).
	mustOK(t, k.Patch(ctx, hc, client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`))))
}

// A CR the operator created before the finalizer, then replaced by somebody
// else under the same name, is not the operator's any more: when the
// HyperConverged goes, its delete carries the old UID as a precondition and
// the API server refuses it, while the CRs it did create go.
func TestUnfinalizedDeleteSparesAReplacedCR(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	var refuseCDICreates atomic.Bool
	forbidden := `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","code":403,"message":"CDI creates held by the test"}`
	startOperator(t, operatorOptions{wrap: func(rt http.RoundTripper) http.RoundTripper {
		rt = holdHCWrites(rt)
		return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
			if refuseCDICreates.Load() && req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "/cdis") {
				return &http.Response{StatusCode: http.StatusForbidden, Header: http.Header{"Content-Type": {"application/json"}},
					Body: io.NopCloser(strings.NewReader(forbidden)), Request: req}, nil
			}
			return rt.RoundTrip(req)
		})
	}})
	createHC(t, fullHC)
	testenv.Eventually(t, "the operand CRs exist", func() error { return oneOfEachKind(ctx) })

	// Somebody replaces the CDI; the operator cannot re-create it first.
	refuseCDICreates.Store(true)
	old := &cdiv1beta1.CDI{}
	mustOK(t, k.Get(ctx, cdiKey, old))
	mustOK(t, k.Delete(ctx, old))
	replaced := &cdiv1beta1.CDI{ObjectMeta: metav1.ObjectMeta{Name: cdiKey.Name, Labels: old.Labels}}
	testenv.Eventually(t, "the CDI replaced", func() error { return k.Create(ctx, replaced) })

	hc := getHC(t)
	mustOK(t, k.Delete(ctx, hc))
	testenv.Eventually(t, "the CRs the operator created are deleted", func() error {
		for _, obj := range operandObjects() {
			if obj.GetName() == cdiKey.Name {
				continue
			}
			if err := k.Get(ctx, client.ObjectKeyFromObject(obj), obj); !apierrors.IsNotFound(err) {
				return fmt.Errorf("%T %s still there: %v", obj, obj.GetName(), err)
			}
		}
		return nil
	})
	got := &cdiv1beta1.CDI{}
	mustOK(t, k.Get(ctx, cdiKey, got))
	if got.UID != replaced.UID || !got.DeletionTimestamp.IsZero() {
		t.Errorf("the replaced CDI was deleted (uid %s, replacement %s)", got.UID, replaced.UID)
	}
}
