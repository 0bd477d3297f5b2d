package hco

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco/internal/memo"
)

// yieldingOperand is planOperand that leaves others' objects alone.
type yieldingOperand struct{ planOperand }

func (yieldingOperand) YieldsToUnlabelled() bool { return true }

// leftView is fakeView that remembers the objects left alone, as the
// reconciler's applier does.
type leftView struct {
	fakeView
	*memo.Memo
}

// A Yielder leaves alone an object at its name that is neither labelled as
// the operator's nor recorded as its HyperConverged's (an admin's own);
// one recorded as the HyperConverged's, or labelled, is taken back as
// before; an operand that does not yield takes them all. Remembered, the
// object left alone is not created again while the operand builds the same
// object; a new build tries the create again.
func TestYielderLeavesOthersObjectsAlone(t *testing.T) {
	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: "ns", UID: "hc-uid"}}
	owner := Owner{Namespace: "ns", Name: hcov1.HyperConvergedName, UID: "hc-uid", AdoptsUnrecorded: true}
	op := yieldingOperand{planOperand{namedOperand: "test", names: []string{"a"}, value: "1"}}
	want, err := DesiredObjects(op, hc, Facts{})
	require.NoError(t, err)
	w := want[0]
	found := func(labels map[string]string, annotations map[string]string, refs ...metav1.OwnerReference) *unstructured.Unstructured {
		u := w.DeepCopy()
		u.SetLabels(labels)
		u.SetAnnotations(annotations)
		u.SetOwnerReferences(refs)
		u.SetResourceVersion("3")
		u.SetUID("theirs")
		u.Object["data"] = map[string]any{"x": "admin's"}
		return u
	}
	mine := map[string]string{OwnerAnnotation: "ns/" + hc.Name, OwnerUIDAnnotation: "hc-uid"}
	for _, tc := range []struct {
		name string
		op   Operand
		live *unstructured.Unstructured
		verb Verb
	}{
		{"an admin's object of the name", op, found(map[string]string{"admin": "x"}, nil), VerbLeave},
		{"recorded for another HyperConverged", op, found(nil, map[string]string{OwnerAnnotation: "other/" + hc.Name}), VerbLeave},
		{"its label edited away, its owner record kept", op, found(nil, mine), VerbUpdate},
		{"its owner reference kept", op, found(nil, nil, metav1.OwnerReference{APIVersion: hcov1.GroupVersion.String(), Kind: "HyperConverged", Name: hc.Name, UID: "hc-uid"}), VerbUpdate},
		{"labelled as the operator's", op, found(map[string]string{LabelManagedBy: ManagedByValue}, nil), VerbUpdate},
		{"an operand that does not yield", op.planOperand, found(map[string]string{"admin": "x"}, nil), VerbUpdate},
	} {
		s, err := planObject(tc.op, w, tc.live, nil, owner)
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.verb, s.Verb, tc.name)
		if tc.verb == VerbLeave {
			assert.Nil(t, s.Send, "%s: nothing sent", tc.name)
		}
	}

	key := objectKey{GVK: configMapKind, Name: client.ObjectKeyFromObject(w)}
	theirs := found(nil, nil)
	v := leftView{Memo: memo.New()}
	v.Leave(key, w, theirs)
	s, err := planObject(op, w, nil, v, owner)
	require.NoError(t, err)
	assert.Equal(t, VerbLeave, s.Verb, "remembered: no create while the same object is built")
	assert.Same(t, theirs, s.Live)
	s, err = planObject(op, w.DeepCopy(), nil, v, owner)
	require.NoError(t, err)
	assert.Equal(t, VerbCreate, s.Verb, "built anew: the create is tried again")
}

// The applier remembers what it leaves alone, announces it once per object
// found, and forgets it for a new build.
func TestApplierRemembersWhatItLeavesAlone(t *testing.T) {
	a := newApplier(nil, nil)
	w := &unstructured.Unstructured{}
	w.SetGroupVersionKind(configMapKind)
	w.SetName("a")
	w.SetNamespace("ns")
	theirs := w.DeepCopy()
	theirs.SetUID("theirs")
	key := objectKey{GVK: configMapKind, Name: client.ObjectKeyFromObject(w)}
	step := Step{Verb: VerbLeave, GVK: configMapKind, Key: key.Name, Desired: w, Live: theirs}
	obj, res, err := a.execute(t.Context(), step, func() { t.Fatal("no request") })
	require.NoError(t, err)
	assert.Equal(t, ResultLeftAlone, res)
	assert.Same(t, theirs, obj)
	assert.Same(t, theirs, a.LeftAlone(key, w))
	assert.Nil(t, a.LeftAlone(key, w.DeepCopy()), "another build")
	_, res, err = a.execute(t.Context(), step, func() { t.Fatal("no request") })
	require.NoError(t, err)
	assert.Equal(t, ResultUnchanged, res, "announced once")
	other := theirs.DeepCopy()
	other.SetUID("another")
	step.Live = other
	_, res, err = a.execute(t.Context(), step, func() { t.Fatal("no request") })
	require.NoError(t, err)
	assert.Equal(t, ResultLeftAlone, res, "another object at the name: announced")
}

// A Yielder's objects are pruned and deleted only with the owner's record:
// one carrying the operator's labels but no record (upstream's) is left;
// an operand that does not yield deletes what the owner claims.
func TestYielderDeletesOnlyRecordedObjects(t *testing.T) {
	owner := Owner{Namespace: "ns", Name: hcov1.HyperConvergedName, UID: "hc-uid", AdoptsUnrecorded: true}
	yielding := yieldingOperand{planOperand{namedOperand: "test"}}
	obj := func(namespace string, annotations map[string]string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(configMapKind)
		u.SetNamespace(namespace)
		u.SetName("a")
		u.SetLabels(map[string]string{LabelManagedBy: ManagedByValue, LabelApp: hcov1.HyperConvergedName})
		u.SetAnnotations(annotations)
		return u
	}
	recorded := obj("elsewhere", map[string]string{OwnerAnnotation: "ns/" + hcov1.HyperConvergedName, OwnerUIDAnnotation: "hc-uid"})
	unrecorded := obj("elsewhere", nil)
	others := obj("elsewhere", map[string]string{OwnerAnnotation: "other/" + hcov1.HyperConvergedName})
	assert.True(t, owner.deletable(yielding, recorded))
	assert.False(t, owner.deletable(yielding, unrecorded), "upstream's, unrecorded: left")
	assert.False(t, owner.deletable(yielding, others))
	assert.True(t, owner.deletable(yielding.planOperand, unrecorded), "an operand that does not yield: the owner adopts it")
	assert.False(t, owner.deletable(yielding.planOperand, others))

	v := fakeView{served: true, objects: map[string]*unstructured.Unstructured{"recorded": recorded, "unrecorded": unrecorded}}
	steps, err := deletions(context.Background(), []Operand{yielding}, v, owner, func(objectKey) bool { return false })
	require.NoError(t, err)
	require.Len(t, steps, 1)
	assert.Same(t, recorded, steps[0].Live)
}
