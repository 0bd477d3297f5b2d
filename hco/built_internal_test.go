package hco

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco/internal/memo"
	"github.com/hcokit/hcokit/nodefacts"
)

// countingOperand counts its builds.
type countingOperand struct {
	namedOperand
	builds int
}

func (c *countingOperand) Desired(hc *hcov1.HyperConverged, _ Facts) ([]client.Object, error) {
	if len(hc.Status.Conditions) > 0 {
		return nil, fmt.Errorf("the build sees the status")
	}
	c.builds++
	return []client.Object{&corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: hc.Namespace, Labels: Labels(hc, Environment{}, "test")},
	}}, nil
}

// An operand builds once per HyperConverged spec and metadata and facts: a
// reconcile an operand object's event brings reuses what it built, as does
// one after a status write; a new generation, other metadata, another
// object, or other facts build again. The build does not see the status.
func TestBuiltOncePerInput(t *testing.T) {
	op := &countingOperand{namedOperand: "counting"}
	first := func() *hcov1.HyperConverged {
		return &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: "ns", UID: "a", ResourceVersion: "1", Generation: 1}}
	}
	hc := first()
	facts := Facts{Nodes: &nodefacts.Facts{Workers: 2}}
	var b memo.Builds

	built, err := desiredObjects(op, hc, facts, jsonPatch{}, &b, nil)
	require.NoError(t, err)
	again, err := desiredObjects(op, hc.DeepCopy(), Facts{Nodes: &nodefacts.Facts{Workers: 2}}, jsonPatch{}, &b, nil)
	require.NoError(t, err)
	assert.Equal(t, 1, op.builds, "same version, equal facts: built once")
	assert.Same(t, built[0], again[0])

	statusWritten := hc.DeepCopy()
	statusWritten.ResourceVersion = "2"
	statusWritten.ManagedFields = []metav1.ManagedFieldsEntry{managedBy(FieldOwner, `{"f:status":{}}`)}
	statusWritten.Status.Conditions = []metav1.Condition{{Type: hcov1.ConditionAvailable, Status: metav1.ConditionTrue}}
	_, err = desiredObjects(op, statusWritten, facts, jsonPatch{}, &b, nil)
	require.NoError(t, err)
	assert.Equal(t, 1, op.builds, "the operator's status write: nothing built again")

	for name, change := range map[string]func(*hcov1.HyperConverged, *Facts){
		"new generation":   func(hc *hcov1.HyperConverged, _ *Facts) { hc.Generation = 2 },
		"an annotation":    func(hc *hcov1.HyperConverged, _ *Facts) { hc.Annotations = map[string]string{"deployOVS": "true"} },
		"another object":   func(hc *hcov1.HyperConverged, _ *Facts) { hc.UID = "b" },
		"other node facts": func(_ *hcov1.HyperConverged, f *Facts) { f.Nodes = &nodefacts.Facts{Workers: 3} },
	} {
		t.Run(name, func(t *testing.T) {
			hc, f := hc.DeepCopy(), facts
			change(hc, &f)
			before := op.builds
			_, err := desiredObjects(op, hc, f, jsonPatch{}, &b, nil)
			require.NoError(t, err)
			assert.Equal(t, before+1, op.builds)
			// Back to the first input for the next case.
			_, _ = desiredObjects(op, first(), facts, jsonPatch{}, &b, nil)
		})
	}
}

// followingOperand reads another operand's Deployment through the facts.
type followingOperand struct{ countingOperand }

func (f *followingOperand) Desired(hc *hcov1.HyperConverged, facts Facts) ([]client.Object, error) {
	facts.Observe(appsv1.SchemeGroupVersion.WithKind("Deployment"), client.ObjectKey{Namespace: "ns", Name: "followed"})
	return f.countingOperand.Desired(hc, facts)
}

// A build that read an operand object through Facts.Observed is reused while
// that object keeps its resourceVersion (and stays absent while absent),
// and built again once it changes, appears or goes.
func TestBuiltAgainWhenAnObservedObjectChanges(t *testing.T) {
	op := &followingOperand{countingOperand{namedOperand: "following"}}
	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: "ns", UID: "a", ResourceVersion: "1", Generation: 1}}
	rv := ""
	facts := Facts{Observed: func(schema.GroupVersionKind, client.ObjectKey) (*unstructured.Unstructured, bool) {
		if rv == "" {
			return nil, false
		}
		u := &unstructured.Unstructured{}
		u.SetResourceVersion(rv)
		return u, true
	}}
	var b memo.Builds
	build := func() {
		_, err := desiredObjects(op, hc, facts, jsonPatch{}, &b, nil)
		require.NoError(t, err)
	}
	build()
	build()
	assert.Equal(t, 1, op.builds, "absent, still absent: built once")
	rv = "7"
	build()
	assert.Equal(t, 2, op.builds, "it appeared: built again")
	build()
	assert.Equal(t, 2, op.builds, "the same version: reused")
	rv = "8"
	build()
	assert.Equal(t, 3, op.builds, "a new version: built again")
	rv = ""
	build()
	assert.Equal(t, 4, op.builds, "gone: built again")
}

// slowOperand records how many operands build at once, and in which order.
type slowOperand struct {
	namedOperand
	now, most *atomic.Int32
	mu        *sync.Mutex
	order     *[]string
}

func (s slowOperand) Desired(*hcov1.HyperConverged, Facts) ([]client.Object, error) {
	n := s.now.Add(1)
	for m := s.most.Load(); n > m && !s.most.CompareAndSwap(m, n); m = s.most.Load() {
	}
	s.mu.Lock()
	*s.order = append(*s.order, s.Name())
	s.mu.Unlock()
	time.Sleep(2 * time.Millisecond)
	s.now.Add(-1)
	return nil, nil
}

// One operand builds at a time, in registry order but for those whose
// objects an event touched, first: the first ones' writes do not wait
// behind the others' builds.
func TestOperandsBuildOneAtATimeInOrder(t *testing.T) {
	var now, most atomic.Int32
	var mu sync.Mutex
	var order, want []string
	var ops []Operand
	for i := range 8 {
		name := fmt.Sprint("op", i)
		want = append(want, name)
		ops = append(ops, slowOperand{namedOperand: namedOperand(name), now: &now, most: &most, mu: &mu, order: &order})
	}
	r := &Reconciler{now: time.Now, built: &memo.Builds{}}
	reconcile := func(op Operand, yield func()) (operandOutcome, ApplyResult) {
		return r.reconcileOperand(context.Background(), &hcov1.HyperConverged{}, Owner{}, Facts{}, op, yield)
	}
	out := r.inTurns(ops, nil, reconcile)
	require.Len(t, out, len(ops))
	assert.Equal(t, int32(1), most.Load())
	assert.Equal(t, want, order)

	// An event touched op5's and op3's kinds: they go first.
	order = nil
	out = r.inTurns(ops, map[string]bool{"op5": true, "op3": true}, reconcile)
	require.Len(t, out, len(ops))
	assert.Equal(t, int32(1), most.Load())
	assert.Equal(t, []string{"op3", "op5", "op0", "op1", "op2", "op4", "op6", "op7"}, order)
}
