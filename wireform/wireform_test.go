package wireform_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/hcokit/hcokit/wireform"
)

// manager is the field manager whose metadata the tests track.
const manager = "hco-operator"

func object(t *testing.T, obj map[string]any) *unstructured.Unstructured {
	t.Helper()
	return &unstructured.Unstructured{Object: runtime.DeepCopyJSON(obj)}
}

// managedBy returns a managedFields entry for manager owning the given
// fields.
func managedBy(manager, fieldsJSON string) metav1.ManagedFieldsEntry {
	return metav1.ManagedFieldsEntry{Manager: manager, Operation: metav1.ManagedFieldsOperationUpdate, FieldsType: "FieldsV1",
		FieldsV1: &metav1.FieldsV1{Raw: []byte(fieldsJSON)}}
}

func TestContentLeavesOutMetadataAndStatus(t *testing.T) {
	a := object(t, map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "a", "resourceVersion": "1"},
		"data": map[string]any{"k": "v"}, "status": map[string]any{"x": int64(1)}})
	b := object(t, map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "b", "labels": map[string]any{"l": "x"}},
		"data": map[string]any{"k": "v"}})
	assert.Equal(t, map[string]any{"data": map[string]any{"k": "v"}}, wireform.Content(a))
	assert.True(t, equality.Semantic.DeepEqual(wireform.Content(a), wireform.Content(b)))
}

func TestWireFormOfATypedObject(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns", ResourceVersion: "7"}, Data: map[string]string{"k": "v"}}
	u, err := wireform.Of(cm, clientgoscheme.Scheme, "", nil)
	require.NoError(t, err)
	assert.Equal(t, "ConfigMap", u.GetKind(), "the kind comes from the scheme")
	assert.Equal(t, map[string]any{"k": "v"}, u.Object["data"])
	assert.Empty(t, u.GetResourceVersion(), "a desired object carries no precondition")
	_, hasTimestamp := u.Object["metadata"].(map[string]any)["creationTimestamp"]
	assert.False(t, hasTimestamp, "no null creationTimestamp")
	assert.Equal(t, "7", cm.ResourceVersion, "the desired object is not changed")

	// Numbers are decoded as the API server's answers are: an integer is an
	// int64, whatever the Go type, so equality.Semantic compares like with like.
	svc := &corev1.Service{Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 443}}}}
	u, err = wireform.Of(svc, clientgoscheme.Scheme, "", nil)
	require.NoError(t, err)
	ports, _, _ := unstructured.NestedSlice(u.Object, "spec", "ports")
	assert.Equal(t, int64(443), ports[0].(map[string]any)["port"])

	_, err = wireform.Of(&unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": "x"}}}, clientgoscheme.Scheme, "", nil)
	assert.ErrorContains(t, err, "needs apiVersion and kind")
}

func TestStaleIsWhatTheManagerSetAndNoLongerBuilds(t *testing.T) {
	observed := object(t, map[string]any{"metadata": map[string]any{"name": "a"}})
	observed.SetLabels(map[string]string{"ours": "1", "dropped": "1", "theirs": "1", "takenOver": "2"})
	observed.SetAnnotations(map[string]string{"oldNote": "x", "userNote": "y"})
	observed.SetManagedFields([]metav1.ManagedFieldsEntry{
		managedBy(manager, `{"f:metadata":{"f:labels":{"f:ours":{},"f:dropped":{}},"f:annotations":{"f:oldNote":{}}},"f:spec":{"f:x":{}}}`),
		managedBy("kubectl-edit", `{"f:metadata":{"f:labels":{"f:theirs":{},"f:takenOver":{}},"f:annotations":{"f:userNote":{}}}}`),
	})
	want := object(t, map[string]any{"metadata": map[string]any{"name": "a"}})
	want.SetLabels(map[string]string{"ours": "1"})

	stale := wireform.Stale(wireform.Owned(observed, manager), want)
	assert.Equal(t, []string{"dropped"}, stale.Labels)
	assert.Equal(t, []string{"oldNote"}, stale.Annotations)

	next := wireform.Merge(observed, want, stale)
	assert.Equal(t, map[string]string{"ours": "1", "theirs": "1", "takenOver": "2"}, next.GetLabels())
	assert.Equal(t, map[string]string{"userNote": "y"}, next.GetAnnotations())
	assert.Nil(t, next.GetManagedFields(), "the API server keeps its own record")
}

func TestMergeReplacesTheContentAndKeepsStatusAndOthersMetadata(t *testing.T) {
	observed := object(t, map[string]any{
		"apiVersion": "x/v1", "kind": "K",
		"metadata": map[string]any{"name": "a", "resourceVersion": "9", "finalizers": []any{"theirs"}, "labels": map[string]any{"l": "old"}},
		"spec":     map[string]any{"ours": "edited", "defaulted": "d", "addedByHand": "h"},
		"status":   map[string]any{"phase": "Deployed"},
	})
	want := object(t, map[string]any{"apiVersion": "x/v1", "kind": "K",
		"metadata": map[string]any{"name": "a", "labels": map[string]any{"l": "new"}},
		"spec":     map[string]any{"ours": "built"}})
	next := wireform.Merge(observed, want, wireform.Keys{})
	assert.Equal(t, map[string]any{"ours": "built"}, next.Object["spec"], "the spec is what the operator built; the server defaults it again")
	assert.Equal(t, map[string]any{"phase": "Deployed"}, next.Object["status"])
	assert.Equal(t, "9", next.GetResourceVersion(), "the update's precondition")
	assert.Equal(t, []string{"theirs"}, next.GetFinalizers())
	assert.Equal(t, map[string]string{"l": "new"}, next.GetLabels())
	assert.Equal(t, "edited", observed.Object["spec"].(map[string]any)["ours"], "observed (the cache's object) is not changed")
}

// Equal answers as equality.Semantic.DeepEqual does on JSON values.
func TestEqualIsSemanticDeepEqual(t *testing.T) {
	values := []any{
		nil, "a", "b", "", int64(1), int64(2), float64(1), float64(1.5), true, false,
		map[string]any(nil), map[string]any{}, map[string]any{"a": int64(1)}, map[string]any{"a": float64(1)},
		map[string]any{"a": int64(1), "b": nil}, map[string]any{"a": int64(1), "c": nil},
		map[string]any{"a": map[string]any{"x": []any{"p", int64(3)}}}, map[string]any{"a": map[string]any{"x": []any{"p", int64(4)}}},
		[]any(nil), []any{}, []any{nil}, []any{"a", map[string]any{}}, []any{"a", map[string]any(nil)}, []any{"a", []any{}},
		int32(1), []string{"a"},
	}
	for _, a := range values {
		for _, b := range values {
			assert.Equal(t, equality.Semantic.DeepEqual(a, b), wireform.Equal(a, b), "%#v and %#v", a, b)
		}
	}
}

func TestWithin(t *testing.T) {
	tests := []struct {
		name       string
		want, have any
		in         bool
	}{
		{"equal", map[string]any{"a": int64(1)}, map[string]any{"a": int64(1)}, true},
		{"a default beside", map[string]any{"a": int64(1)}, map[string]any{"a": int64(1), "preemptionPolicy": "PreemptLowerPriority"}, true},
		{"a default inside a list item", map[string]any{"ports": []any{map[string]any{"port": int64(443)}}},
			map[string]any{"ports": []any{map[string]any{"port": int64(443), "protocol": "TCP"}}}, true},
		{"another value", map[string]any{"a": int64(1)}, map[string]any{"a": int64(2)}, false},
		{"missing", map[string]any{"a": int64(1)}, map[string]any{}, false},
		{"an item more", map[string]any{"l": []any{"x"}}, map[string]any{"l": []any{"x", "y"}}, false},
		{"a map where a value is wanted", map[string]any{"a": "x"}, map[string]any{"a": map[string]any{}}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.in, wireform.Within(tc.want, tc.have)) })
	}
}

// BenchmarkEqual is why Equal is not equality.Semantic.DeepEqual,
// whose answers it gives (TestEqualIsSemanticDeepEqual): the operator
// compares each object it holds on every reconcile.
func BenchmarkEqual(b *testing.B) {
	obj := map[string]any{}
	for i := range 40 {
		obj[fmt.Sprintf("member%d", i)] = map[string]any{"n": int64(i), "s": "value", "l": []any{"a", "b", map[string]any{"k": true}}}
	}
	same := runtime.DeepCopyJSON(obj)
	b.Run("Equal", func(b *testing.B) {
		for b.Loop() {
			wireform.Equal(obj, same)
		}
	})
	b.Run("equality.Semantic", func(b *testing.B) {
		for b.Loop() {
			equality.Semantic.DeepEqual(obj, same)
		}
	})
}

func TestOwnManagedFieldsTrimsTheCachedObject(t *testing.T) {
	keep := wireform.OwnManagedFields(manager)
	obj := object(t, map[string]any{"metadata": map[string]any{"name": "a"}})
	obj.SetManagedFields([]metav1.ManagedFieldsEntry{managedBy("virt-operator", `{}`), managedBy(manager, `{"f:spec":{}}`)})
	out, err := keep(obj)
	require.NoError(t, err)
	fields := out.(*unstructured.Unstructured).GetManagedFields()
	require.Len(t, fields, 1)
	assert.Equal(t, manager, fields[0].Manager)
	assert.JSONEq(t, `{"f:spec":{}}`, string(fields[0].FieldsV1.Raw), "the entry is kept as it was")

	others := object(t, map[string]any{"metadata": map[string]any{"name": "b"}})
	others.SetManagedFields([]metav1.ManagedFieldsEntry{managedBy("virt-operator", `{}`)})
	out, err = keep(others)
	require.NoError(t, err)
	assert.NotContains(t, out.(*unstructured.Unstructured).Object["metadata"], "managedFields", "none of the operator's: none left")

	typed := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", ManagedFields: []metav1.ManagedFieldsEntry{
		managedBy("kubectl", `{}`), managedBy(manager, `{"f:data":{}}`)}}}
	out, err = keep(typed)
	require.NoError(t, err)
	require.Len(t, out.(*corev1.ConfigMap).ManagedFields, 1)
	assert.Equal(t, manager, out.(*corev1.ConfigMap).ManagedFields[0].Manager)
}
