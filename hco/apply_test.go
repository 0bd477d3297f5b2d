package hco

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/hcokit/hcokit/hcostatus"
)

func object(t *testing.T, obj map[string]any) *unstructured.Unstructured {
	t.Helper()
	return &unstructured.Unstructured{Object: runtime.DeepCopyJSON(obj)}
}

func TestContentLeavesOutMetadataAndStatus(t *testing.T) {
	a := object(t, map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "a", "resourceVersion": "1"},
		"data": map[string]any{"k": "v"}, "status": map[string]any{"x": int64(1)}})
	b := object(t, map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "b", "labels": map[string]any{"l": "x"}},
		"data": map[string]any{"k": "v"}})
	assert.Equal(t, map[string]any{"data": map[string]any{"k": "v"}}, content(a))
	assert.True(t, equality.Semantic.DeepEqual(content(a), content(b)))
}

func TestWireFormOfATypedObject(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns", ResourceVersion: "7"}, Data: map[string]string{"k": "v"}}
	u, err := wireForm(cm, clientgoscheme.Scheme, jsonPatch{})
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
	u, err = wireForm(svc, clientgoscheme.Scheme, jsonPatch{})
	require.NoError(t, err)
	ports, _, _ := unstructured.NestedSlice(u.Object, "spec", "ports")
	assert.Equal(t, int64(443), ports[0].(map[string]any)["port"])

	_, err = wireForm(&unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": "x"}}}, clientgoscheme.Scheme, jsonPatch{})
	assert.ErrorContains(t, err, "needs apiVersion and kind")
}

// managedBy returns a managedFields entry for manager owning the given
// labels and annotations.
func managedBy(manager, fieldsJSON string) metav1.ManagedFieldsEntry {
	return metav1.ManagedFieldsEntry{Manager: manager, Operation: metav1.ManagedFieldsOperationUpdate, FieldsType: "FieldsV1",
		FieldsV1: &metav1.FieldsV1{Raw: []byte(fieldsJSON)}}
}

func TestStaleMetadataIsWhatTheOperatorSetAndNoLongerBuilds(t *testing.T) {
	observed := object(t, map[string]any{"metadata": map[string]any{"name": "a"}})
	observed.SetLabels(map[string]string{"ours": "1", "dropped": "1", "theirs": "1", "takenOver": "2"})
	observed.SetAnnotations(map[string]string{"oldNote": "x", "userNote": "y"})
	observed.SetManagedFields([]metav1.ManagedFieldsEntry{
		managedBy(FieldOwner, `{"f:metadata":{"f:labels":{"f:ours":{},"f:dropped":{}},"f:annotations":{"f:oldNote":{}}},"f:spec":{"f:x":{}}}`),
		managedBy("kubectl-edit", `{"f:metadata":{"f:labels":{"f:theirs":{},"f:takenOver":{}},"f:annotations":{"f:userNote":{}}}}`),
	})
	want := object(t, map[string]any{"metadata": map[string]any{"name": "a"}})
	want.SetLabels(map[string]string{"ours": "1"})

	stale := staleMetadata(observed, want)
	assert.Equal(t, []string{"dropped"}, stale.labels)
	assert.Equal(t, []string{"oldNote"}, stale.annotations)

	next := merged(observed, want, stale)
	assert.Equal(t, map[string]string{"ours": "1", "theirs": "1", "takenOver": "2"}, next.GetLabels())
	assert.Equal(t, map[string]string{"userNote": "y"}, next.GetAnnotations())
	assert.Nil(t, next.GetManagedFields(), "the API server keeps its own record")
}

func TestMergedReplacesTheContentAndKeepsStatusAndOthersMetadata(t *testing.T) {
	observed := object(t, map[string]any{
		"apiVersion": "x/v1", "kind": "K",
		"metadata": map[string]any{"name": "a", "resourceVersion": "9", "finalizers": []any{"theirs"}, "labels": map[string]any{"l": "old"}},
		"spec":     map[string]any{"ours": "edited", "defaulted": "d", "addedByHand": "h"},
		"status":   map[string]any{"phase": "Deployed"},
	})
	want := object(t, map[string]any{"apiVersion": "x/v1", "kind": "K",
		"metadata": map[string]any{"name": "a", "labels": map[string]any{"l": "new"}},
		"spec":     map[string]any{"ours": "built"}})
	next := merged(observed, want, staleKeys{})
	assert.Equal(t, map[string]any{"ours": "built"}, next.Object["spec"], "the spec is what the operator built; the server defaults it again")
	assert.Equal(t, map[string]any{"phase": "Deployed"}, next.Object["status"])
	assert.Equal(t, "9", next.GetResourceVersion(), "the update's precondition")
	assert.Equal(t, []string{"theirs"}, next.GetFinalizers())
	assert.Equal(t, map[string]string{"l": "new"}, next.GetLabels())
	assert.Equal(t, "edited", observed.Object["spec"].(map[string]any)["ours"], "observed (the cache's object) is not changed")
}

func TestKeepOwnManagedFieldsTrimsTheCachedObject(t *testing.T) {
	obj := object(t, map[string]any{"metadata": map[string]any{"name": "a"}})
	obj.SetManagedFields([]metav1.ManagedFieldsEntry{managedBy("virt-operator", `{}`), managedBy(FieldOwner, `{"f:spec":{}}`)})
	out, err := keepOwnManagedFields(obj)
	require.NoError(t, err)
	fields := out.(*unstructured.Unstructured).GetManagedFields()
	require.Len(t, fields, 1)
	assert.Equal(t, FieldOwner, fields[0].Manager)
	assert.JSONEq(t, `{"f:spec":{}}`, string(fields[0].FieldsV1.Raw), "the entry is kept as it was")

	others := object(t, map[string]any{"metadata": map[string]any{"name": "b"}})
	others.SetManagedFields([]metav1.ManagedFieldsEntry{managedBy("virt-operator", `{}`)})
	out, err = keepOwnManagedFields(others)
	require.NoError(t, err)
	assert.NotContains(t, out.(*unstructured.Unstructured).Object["metadata"], "managedFields", "none of the operator's: none left")

	typed := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", ManagedFields: []metav1.ManagedFieldsEntry{
		managedBy("kubectl", `{}`), managedBy(FieldOwner, `{"f:data":{}}`)}}}
	out, err = keepOwnManagedFields(typed)
	require.NoError(t, err)
	require.Len(t, out.(*corev1.ConfigMap).ManagedFields, 1)
	assert.Equal(t, FieldOwner, out.(*corev1.ConfigMap).ManagedFields[0].Manager)
}

func TestVersionsWaitOnlyForReportingOperands(t *testing.T) {
	reg, err := NewRegistry(namedOperand("kubevirt"), namedOperand("hpp"))
	require.NoError(t, err)
	r := &Reconciler{registry: reg, env: Environment{Version: "2", OperandVersions: map[string]string{"kubevirt": "v1", "hpp": "v9"}}}

	_, done := r.versions(hcostatus.Assessment{ObservedVersions: map[string]string{"kubevirt": "v0"}})
	assert.False(t, done, "kubevirt has not reached its version")

	vs, done := r.versions(hcostatus.Assessment{ObservedVersions: map[string]string{"kubevirt": "v1"}})
	assert.True(t, done, "hpp wants nothing and reports nothing: not waited for")
	assert.Len(t, vs, 2)

	_, done = r.versions(hcostatus.Assessment{ObservedVersions: map[string]string{"kubevirt": "v1"}, ProblemReason: hcostatus.ReasonInvalidConfiguration})
	assert.False(t, done, "no version is recorded while the configuration is invalid")

	_, done = r.versions(hcostatus.Assessment{ObservedVersions: map[string]string{"kubevirt": "v1"}, Failures: []string{"operand cdi: boom"}})
	assert.False(t, done, "nor while an operand fails")
}

// keepingOperand keeps a webhook configuration's caBundles (ContentKeeper).
type keepingOperand struct{ namedOperand }

func (keepingOperand) KeptFields(gvk schema.GroupVersionKind, _ string) [][]string {
	return WorkloadKeptFields(gvk)
}

// planObject builds the update over observed: its resourceVersion, the
// stale label gone and others' kept, the content built, a kept field as
// found, want untouched; and keeps the object once observed holds want.
// (What the applier sends to a real API server is internal/integration's
// writepath_test.)
func TestPlanObjectBuildsTheUpdate(t *testing.T) {
	const owned = `{"f:metadata":{"f:labels":{"f:ours":{},"f:dropped":{}}}}`
	observed := object(t, map[string]any{
		"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingWebhookConfiguration",
		"metadata": map[string]any{"name": "w", "resourceVersion": "5", "labels": map[string]any{"ours": "1", "dropped": "1", "theirs": "1"}},
		"webhooks": []any{map[string]any{"name": "a", "clientConfig": map[string]any{"caBundle": "Q0E="}, "timeoutSeconds": int64(10)}},
	})
	observed.SetManagedFields([]metav1.ManagedFieldsEntry{managedBy(FieldOwner, owned)})
	want := object(t, map[string]any{
		"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingWebhookConfiguration",
		"metadata": map[string]any{"name": "w", "labels": map[string]any{"ours": "1"}},
		"webhooks": []any{map[string]any{"name": "a", "clientConfig": map[string]any{}, "timeoutSeconds": int64(30)}},
	})
	wantBefore := want.DeepCopy()
	op := keepingOperand{}

	labels, annotations := OwnedMetadata(observed)
	assert.Equal(t, []string{"dropped", "ours"}, labels, "the keys the operator's managedFields entry holds")
	assert.Empty(t, annotations)

	owner := Owner{Name: "hc", Namespace: "ns", AdoptsUnrecorded: true}
	s, err := planObject(op, want, observed, nil, owner)
	require.NoError(t, err)
	require.Equal(t, VerbUpdate, s.Verb)
	update := s.Send
	assert.Equal(t, "5", update.GetResourceVersion(), "observed's version is the precondition")
	assert.Equal(t, map[string]string{"ours": "1", "theirs": "1"}, update.GetLabels(), "the stale label goes, others' stay")
	hook := update.Object["webhooks"].([]any)[0].(map[string]any)
	assert.Equal(t, int64(30), hook["timeoutSeconds"], "the content built")
	assert.Equal(t, "Q0E=", hook["clientConfig"].(map[string]any)["caBundle"], "the injected caBundle is kept")
	assert.Equal(t, wantBefore.Object, want.Object, "want is not changed")

	// Once stored, nothing more is written.
	stored := update.DeepCopy()
	stored.SetManagedFields([]metav1.ManagedFieldsEntry{managedBy(FieldOwner, `{"f:metadata":{"f:labels":{"f:ours":{}}}}`)})
	s, err = planObject(op, want, stored, nil, owner)
	require.NoError(t, err)
	assert.Equal(t, VerbKeep, s.Verb, "observed holds want: no write")
}

// jsonEqual answers as equality.Semantic.DeepEqual does on JSON values.
func TestJSONEqualIsSemanticDeepEqual(t *testing.T) {
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
			assert.Equal(t, equality.Semantic.DeepEqual(a, b), jsonEqual(a, b), "%#v and %#v", a, b)
		}
	}
}
