package hco

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hcostatus"
	"github.com/hcokit/hcokit/wireform"
)

func object(t *testing.T, obj map[string]any) *unstructured.Unstructured {
	t.Helper()
	return &unstructured.Unstructured{Object: runtime.DeepCopyJSON(obj)}
}

// managedBy returns a managedFields entry for manager owning the given
// labels and annotations.
func managedBy(manager, fieldsJSON string) metav1.ManagedFieldsEntry {
	return metav1.ManagedFieldsEntry{Manager: manager, Operation: metav1.ManagedFieldsOperationUpdate, FieldsType: "FieldsV1",
		FieldsV1: &metav1.FieldsV1{Raw: []byte(fieldsJSON)}}
}

func TestVersionsWaitOnlyForReportingOperands(t *testing.T) {
	reg, err := NewRegistry(namedOperand("kubevirt"), namedOperand("hpp"))
	require.NoError(t, err)
	r := &Reconciler{registry: reg, env: Environment{Version: "2", OperandVersions: map[string]string{"kubevirt": "v1", "hpp": "v9"}}}

	_, done := r.versions(hcostatus.Assessment{ObservedVersions: map[string]string{"kubevirt": "v0"}})
	assert.False(t, done, "kubevirt has not reached its version")

	vs, done := r.versions(hcostatus.Assessment{ObservedVersions: map[string]string{"kubevirt": "v1"}})
	assert.True(t, done, "hpp wants nothing and reports nothing: not waited for")
	assert.Equal(t, []hcov1.Version{{Name: OperatorVersionName, Version: "2"}}, vs, "the operator's version only, as upstream records it")

	_, done = r.versions(hcostatus.Assessment{ObservedVersions: map[string]string{"kubevirt": "v1"}, ProblemReason: hcostatus.ReasonInvalidConfiguration})
	assert.False(t, done, "no version is recorded while the configuration is invalid")

	_, done = r.versions(hcostatus.Assessment{ObservedVersions: map[string]string{"kubevirt": "v1"}, Failures: []string{"operand cdi: boom"}})
	assert.False(t, done, "nor while an operand fails")
}

// keepingOperand keeps a webhook configuration's caBundles (ContentKeeper).
type keepingOperand struct{ namedOperand }

func (keepingOperand) KeptFields(gvk schema.GroupVersionKind, _ string) [][]string {
	return wireform.WorkloadKeptFields(gvk)
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
