package webhook_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/operands/cdi"
	"github.com/hcokit/hcokit/operands/kubevirt"
	"github.com/hcokit/hcokit/webhook"
)

// These tests cover what the API server cannot easily make happen: failing
// or partial lists, undecodable requests. The rules themselves are tested
// against a real API server in internal/integration/webhook.

const ns = v1beta1.DefaultNamespace

// listing is the stub's answer to a list of one kind.
type listing struct {
	items     int
	remaining *int64
	cont      string
	err       error
}

// stubReader answers metadata-only lists from a table and counts them.
type stubReader struct {
	byKind map[string]listing
	lists  atomic.Int64
}

func (s *stubReader) Get(context.Context, client.ObjectKey, client.Object, ...client.GetOption) error {
	return errors.New("stubReader: Get is not used by the webhook")
}

func (s *stubReader) List(_ context.Context, list client.ObjectList, _ ...client.ListOption) error {
	s.lists.Add(1)
	l, ok := list.(*metav1.PartialObjectMetadataList)
	if !ok {
		return errors.New("stubReader: the webhook must list metadata only")
	}
	a := s.byKind[l.Kind]
	if a.err != nil {
		return a.err
	}
	for i := range a.items {
		l.Items = append(l.Items, metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: string(rune('a' + i))}})
	}
	l.RemainingItemCount, l.Continue = a.remaining, a.cont
	return nil
}

func newHandler(t testing.TB, r client.Reader) *webhook.Handler {
	t.Helper()
	reg, err := hco.NewRegistry(kubevirt.New(), cdi.New())
	require.NoError(t, err)
	return webhook.NewHandler(r, webhook.Options{Namespace: ns, Registry: reg, Environment: hco.Environment{Namespace: ns}})
}

// raw is hc's JSON as an admission request carries it: with its apiVersion.
func raw(t testing.TB, hc *v1beta1.HyperConverged) runtime.RawExtension {
	t.Helper()
	hc = hc.DeepCopy()
	hc.SetGroupVersionKind(v1beta1.GroupVersion.WithKind("HyperConverged"))
	b, err := json.Marshal(hc)
	require.NoError(t, err)
	return runtime.RawExtension{Raw: b}
}

func hcWith(mutate func(*v1beta1.HyperConverged)) *v1beta1.HyperConverged {
	hc := &v1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: v1beta1.HyperConvergedName, Namespace: ns}}
	v1beta1.Default(hc)
	if mutate != nil {
		mutate(hc)
	}
	return hc
}

func deleteRequest(t testing.TB, hc *v1beta1.HyperConverged) admission.Request {
	return admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		Operation: admissionv1.Delete, Namespace: hc.Namespace, Name: hc.Name, OldObject: raw(t, hc),
	}}
}

func message(r admission.Response) string {
	if r.Result == nil {
		return ""
	}
	return r.Result.Message
}

func TestDeleteCountsFromRemainingItemCount(t *testing.T) {
	r := &stubReader{byKind: map[string]listing{
		"VirtualMachineList": {items: 1, remaining: ptr.To[int64](4999)},
		"DataVolumeList":     {items: 1, cont: "more"}, // more exist, uncounted
	}}
	resp := newHandler(t, r).Handle(context.Background(), deleteRequest(t, hcWith(nil)))
	assert.False(t, resp.Allowed)
	assert.Contains(t, message(resp), "found 5000 VirtualMachines, e.g. ns/a and at least 2 DataVolumes, e.g. ns/a;")
	assert.Equal(t, int64(2), r.lists.Load(), "one bounded list per kind")
}

func TestDeleteWhenAWorkloadCRDIsMissing(t *testing.T) {
	r := &stubReader{byKind: map[string]listing{
		"VirtualMachineList": {err: &meta.NoKindMatchError{GroupKind: schema.GroupKind{Group: "kubevirt.io", Kind: "VirtualMachine"}}},
		"DataVolumeList":     {},
	}}
	resp := newHandler(t, r).Handle(context.Background(), deleteRequest(t, hcWith(nil)))
	assert.True(t, resp.Allowed, "no CRD, no VirtualMachines: %s", message(resp))
}

func TestDeleteFailsClosedWhenTheLookupFails(t *testing.T) {
	r := &stubReader{byKind: map[string]listing{"DataVolumeList": {err: errors.New("etcd is sad")}}}
	resp := newHandler(t, r).Handle(context.Background(), deleteRequest(t, hcWith(nil)))
	assert.False(t, resp.Allowed)
	assert.Equal(t, int32(http.StatusInternalServerError), resp.Result.Code)
	assert.Equal(t, "checking for workloads before deleting HyperConverged kubevirt-hyperconverged/kubevirt-hyperconverged: listing DataVolume: etcd is sad", message(resp))
}

func TestDeleteAsksNothingWhenItCannotBlock(t *testing.T) {
	r := &stubReader{byKind: map[string]listing{"VirtualMachineList": {items: 1}}}
	h := newHandler(t, r)
	for name, hc := range map[string]*v1beta1.HyperConverged{
		"RemoveWorkloads": hcWith(func(hc *v1beta1.HyperConverged) { hc.Spec.UninstallStrategy = v1beta1.UninstallStrategyRemoveWorkloads }),
		"another name":    hcWith(func(hc *v1beta1.HyperConverged) { hc.Name = "stray" }),
		"another ns":      hcWith(func(hc *v1beta1.HyperConverged) { hc.Namespace = "default" }),
	} {
		resp := h.Handle(context.Background(), deleteRequest(t, hc))
		assert.True(t, resp.Allowed, name)
	}
	assert.Zero(t, r.lists.Load())
}

func TestUpdateAsksOnlyWhenTheWorkloadPlacementChanges(t *testing.T) {
	r := &stubReader{byKind: map[string]listing{"VirtualMachineList": {items: 1}}}
	h := newHandler(t, r)
	old := hcWith(nil)
	update := func(updated *v1beta1.HyperConverged) admission.Response {
		return h.Handle(context.Background(), admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
			Operation: admissionv1.Update, Namespace: ns, Name: old.Name, Object: raw(t, updated), OldObject: raw(t, old),
		}})
	}
	resp := update(hcWith(func(hc *v1beta1.HyperConverged) { hc.Spec.DefaultCPUModel = ptr.To("Haswell") }))
	assert.True(t, resp.Allowed, message(resp))
	assert.Zero(t, r.lists.Load())

	resp = update(hcWith(func(hc *v1beta1.HyperConverged) {
		hc.Spec.Workloads.NodePlacement = &v1beta1.NodePlacement{NodeSelector: map[string]string{"a": "b"}}
	}))
	assert.False(t, resp.Allowed)
	assert.Equal(t, "spec.workloads.nodePlacement: Forbidden: cannot change while workloads exist, since the pods serving them would move: found 1 VirtualMachine, e.g. ns/a; "+
		"revert the change, or delete every VirtualMachine and DataVolume first", message(resp))
}

func TestUndecodableRequests(t *testing.T) {
	h := newHandler(t, &stubReader{})
	for _, op := range []admissionv1.Operation{admissionv1.Create, admissionv1.Update, admissionv1.Delete} {
		resp := h.Handle(context.Background(), admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
			Operation: op, Namespace: ns, Name: "x", Object: runtime.RawExtension{Raw: []byte(`{"spec":7}`)}, OldObject: runtime.RawExtension{},
		}})
		assert.False(t, resp.Allowed, op)
		assert.Equal(t, int32(http.StatusBadRequest), resp.Result.Code, op)
	}
	resp := h.Handle(context.Background(), admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{Operation: admissionv1.Connect}})
	assert.True(t, resp.Allowed)
}

// FuzzHandle feeds arbitrary objects to every operation: the handler answers
// every one (allowed, denied or a 400) and never panics, which it would
// report as a 500.
func FuzzHandle(f *testing.F) {
	for _, seed := range []string{
		`{}`, `null`, `{"metadata":{"name":"kubevirt-hyperconverged","namespace":"kubevirt-hyperconverged"}}`,
		`{"metadata":{"name":"kubevirt-hyperconverged","namespace":"kubevirt-hyperconverged"},"spec":{"workloads":{"nodePlacement":{"nodeSelector":{"a":"b"}}}}}`,
		`{"metadata":{"annotations":{"kubevirt.kubevirt.io/jsonpatch":"[{\"op\":\"copy\",\"from\":\"/spec\",\"path\":\"/spec/a\"}]"}},"spec":{"featureGates":{"x":1}}}`,
	} {
		f.Add([]byte(seed), []byte(`{"metadata":{"name":"kubevirt-hyperconverged","namespace":"kubevirt-hyperconverged"}}`))
	}
	r := &stubReader{byKind: map[string]listing{"VirtualMachineList": {items: 1, remaining: ptr.To[int64](3)}}}
	h := newHandler(f, r)
	f.Fuzz(func(t *testing.T, object, oldObject []byte) {
		for _, op := range []admissionv1.Operation{admissionv1.Create, admissionv1.Update, admissionv1.Delete} {
			resp := h.Handle(context.Background(), admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
				Operation: op, Namespace: ns, Name: v1beta1.HyperConvergedName,
				Object: runtime.RawExtension{Raw: object}, OldObject: runtime.RawExtension{Raw: oldObject},
			}})
			if resp.Result != nil && resp.Result.Code == http.StatusInternalServerError {
				t.Fatalf("%s: %s", op, resp.Result.Message)
			}
		}
	})
}

// TestDecodeFallsBackToTheRequestKind: an object without apiVersion is read
// in the version the request names, and the answer names that version's fields.
func TestDecodeFallsBackToTheRequestKind(t *testing.T) {
	h := webhook.NewHandler(nil, webhook.Options{Namespace: ns})
	obj := []byte(`{"metadata": {"name": "kubevirt-hyperconverged", "namespace": "` + ns + `"},
		"spec": {"liveMigrationConfig": {"bandwidthPerMigration": "-1Mi"}}}`)
	resp := h.Handle(context.Background(), admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		Operation: admissionv1.Create, Namespace: ns, Name: v1beta1.HyperConvergedName,
		Kind:   metav1.GroupVersionKind{Group: v1beta1.GroupVersion.Group, Version: v1beta1.GroupVersion.Version, Kind: "HyperConverged"},
		Object: runtime.RawExtension{Raw: obj},
	}})
	require.False(t, resp.Allowed)
	assert.Contains(t, resp.Result.Message, "spec.liveMigrationConfig.bandwidthPerMigration")
}
