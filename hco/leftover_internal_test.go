package hco

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// A leftover is deleted only when it carries upstream's labels and is the
// owner's; upstream's NetworkAttachmentDefinition in "default" is claimed
// as a cluster-scoped object is (the eldest HyperConverged only).
func TestLeftoverOf(t *testing.T) {
	labelled := map[string]string{LabelManagedBy: ManagedByValue, LabelApp: "kubevirt-hyperconverged"}
	obj := func(namespace string, labels map[string]string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		u.SetNamespace(namespace)
		u.SetName("passt-binding-cni")
		u.SetLabels(labels)
		return u
	}
	owner := Owner{Namespace: "hco", Name: "kubevirt-hyperconverged", UID: "u1"}
	eldest := owner
	eldest.AdoptsUnrecorded = true
	for _, tc := range []struct {
		name  string
		owner Owner
		obj   *unstructured.Unstructured
		want  bool
	}{
		{"labelled, in the operator namespace", owner, obj("hco", labelled), true},
		{"unlabelled, in the operator namespace: someone else's", owner, obj("hco", nil), false},
		{"labelled, in default, the eldest HyperConverged", eldest, obj("default", labelled), true},
		{"labelled, in default, not the eldest", owner, obj("default", labelled), false},
		{"labelled, cluster-scoped, the eldest", eldest, obj("", labelled), true},
		{"labelled, cluster-scoped, not the eldest", owner, obj("", labelled), false},
	} {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, leftoverOf(tc.owner, tc.obj)) })
	}
}
