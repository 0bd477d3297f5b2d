package hco

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	hcov1 "github.com/hcokit/hcokit/api/v1"
)

func thing(namespace string, annotations map[string]string, refs ...metav1.OwnerReference) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("v1")
	u.SetKind("Thing")
	u.SetName("thing")
	u.SetNamespace(namespace)
	u.SetAnnotations(annotations)
	u.SetOwnerReferences(refs)
	return u
}

func hcRef(apiVersion, name, uid string) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: apiVersion, Kind: "HyperConverged", Name: name, UID: k8stypes.UID(uid), Controller: ptr.To(true)}
}

func TestOwnerClaims(t *testing.T) {
	ours := Owner{Namespace: "hco", Name: "kubevirt-hyperconverged", UID: "u1"}
	eldest := ours
	eldest.AdoptsUnrecorded = true
	gone := Owner{Namespace: "hco", Name: "kubevirt-hyperconverged", Gone: true}
	recorded := func(ns, uid string) map[string]string {
		return map[string]string{OwnerAnnotation: ns + "/kubevirt-hyperconverged", OwnerUIDAnnotation: uid}
	}
	tests := []struct {
		name  string
		owner Owner
		obj   *unstructured.Unstructured
		want  bool
	}{
		{"cluster-scoped, recorded for the owner", ours, thing("", recorded("hco", "u1")), true},
		{"cluster-scoped, recorded for the owner's predecessor at the same place", ours, thing("", recorded("hco", "u0")), true},
		{"cluster-scoped, recorded for a HyperConverged of another namespace", eldest, thing("", recorded("other", "u2")), false},
		{"cluster-scoped, unrecorded, the owner is not the eldest HyperConverged", ours, thing("", nil), false},
		{"cluster-scoped, unrecorded, the owner is the eldest HyperConverged", eldest, thing("", nil), true},
		{"cluster-scoped, unrecorded, the HyperConverged is gone", gone, thing("", nil), false},
		{"cluster-scoped, recorded for a HyperConverged that is gone", gone, thing("", recorded("hco", "u0")), true},
		{"namespaced, owner reference to the owner (upstream's v1beta1 form)", ours, thing("hco", nil, hcRef("hco.kubevirt.io/v1beta1", "kubevirt-hyperconverged", "u1")), true},
		{"namespaced, owner reference to another HyperConverged of the namespace", ours, thing("hco", nil, hcRef("hco.kubevirt.io/v1", "second", "u3")), false},
		{"namespaced, an owner reference of another kind only: unrecorded", ours, thing("hco", nil, metav1.OwnerReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "x", UID: "d"}), true},
		{"namespaced, unrecorded, in the owner's namespace", ours, thing("hco", nil), true},
		{"namespaced, unrecorded, the HyperConverged is gone", gone, thing("hco", nil), false},
		// Namespaced objects outside the HyperConverged's namespace
		// (OtherNamespacer) are recorded and adopted as cluster-scoped ones.
		{"other namespace, recorded for the owner", ours, thing("shared", recorded("hco", "u1")), true},
		{"other namespace, recorded for a HyperConverged of another namespace", eldest, thing("shared", recorded("other", "u2")), false},
		{"other namespace, recorded for a HyperConverged that is gone", gone, thing("shared", recorded("hco", "u0")), true},
		{"other namespace, unrecorded, the owner is not the eldest HyperConverged", ours, thing("shared", nil), false},
		{"other namespace, unrecorded, the owner is the eldest HyperConverged", eldest, thing("shared", nil), true},
		{"other namespace, unrecorded, the HyperConverged is gone", gone, thing("shared", nil), false},
		{"other namespace, owner reference to a HyperConverged of that namespace", eldest, thing("shared", nil, hcRef("hco.kubevirt.io/v1", "kubevirt-hyperconverged", "u4")), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, by := tc.owner.Claims(tc.obj)
			assert.Equal(t, tc.want, got)
			if !got {
				assert.NotEmpty(t, by, "an object not claimed names whose it is")
			}
		})
	}
}

func TestOwnerRecord(t *testing.T) {
	o := Owner{Namespace: "hco", Name: "kubevirt-hyperconverged", UID: "u1"}

	cluster := thing("", map[string]string{"keep": "me"})
	o.record(cluster)
	assert.Equal(t, map[string]string{"keep": "me", OwnerAnnotation: "hco/kubevirt-hyperconverged", OwnerUIDAnnotation: "u1"}, cluster.GetAnnotations())
	assert.Empty(t, cluster.GetOwnerReferences())

	namespaced := thing("hco", nil)
	o.record(namespaced)
	require.Len(t, namespaced.GetOwnerReferences(), 1)
	ref := namespaced.GetOwnerReferences()[0]
	assert.Equal(t, hcov1.GroupVersion.String(), ref.APIVersion)
	assert.Equal(t, "kubevirt-hyperconverged", ref.Name)
	assert.Equal(t, k8stypes.UID("u1"), ref.UID)
	assert.True(t, *ref.Controller)
	assert.Empty(t, namespaced.GetAnnotations(), "a namespaced object is recorded by its owner reference only")

	// Outside the owner's namespace, the annotations: an owner reference
	// cannot cross namespaces.
	elsewhere := thing("shared", nil)
	o.record(elsewhere)
	assert.Equal(t, map[string]string{OwnerAnnotation: "hco/kubevirt-hyperconverged", OwnerUIDAnnotation: "u1"}, elsewhere.GetAnnotations())
	assert.Empty(t, elsewhere.GetOwnerReferences())
	claimed, _ := o.Claims(elsewhere)
	assert.True(t, claimed, "the record written is the owner's")

	// Upstream's reference to the same HyperConverged is kept as it is.
	upstream := thing("hco", nil, hcRef("hco.kubevirt.io/v1beta1", "kubevirt-hyperconverged", "u1"))
	o.record(upstream)
	assert.Equal(t, []metav1.OwnerReference{hcRef("hco.kubevirt.io/v1beta1", "kubevirt-hyperconverged", "u1")}, upstream.GetOwnerReferences())

	// A predecessor's reference is replaced; another owner's stays, and
	// keeps being the controller.
	other := metav1.OwnerReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "x", UID: "d", Controller: ptr.To(true)}
	stale := thing("hco", nil, hcRef("hco.kubevirt.io/v1", "kubevirt-hyperconverged", "u0"), other)
	o.record(stale)
	refs := stale.GetOwnerReferences()
	require.Len(t, refs, 2)
	assert.Equal(t, other, refs[0])
	assert.Equal(t, k8stypes.UID("u1"), refs[1].UID)
	assert.False(t, *refs[1].Controller, "one controller only")
}

func TestStaleMetadataKeepsTheOwnerRecord(t *testing.T) {
	observed := thing("", map[string]string{OwnerAnnotation: "hco/kubevirt-hyperconverged", OwnerUIDAnnotation: "u1", "old": "x"})
	observed.SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: FieldOwner, FieldsV1: &metav1.FieldsV1{
		Raw: []byte(`{"f:metadata":{"f:annotations":{"f:hco.kubevirt.io/owner":{},"f:hco.kubevirt.io/owner-uid":{},"f:old":{}}}}`)}}})
	stale := staleMetadata(observed, thing("", nil))
	assert.Equal(t, []string{"old"}, stale.Annotations)
}
