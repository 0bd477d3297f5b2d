package hco

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"

	hcov1 "github.com/hcokit/hcokit/api/v1"
)

// Upstream's upgradePatches.json at 03da3cf, by the version upgraded from.
func TestUpgradeSteps(t *testing.T) {
	names := func(ls []leftover) []string {
		var out []string
		for _, l := range ls {
			out = append(out, l.gvk.Kind+" "+displayName(l.key))
		}
		return out
	}
	tests := []struct {
		from      string
		patches   int
		leftovers []string
	}{
		{"1.15.3", 1, nil},
		{"1.16.0", 1, []string{"DaemonSet hco/passt-binding-cni", "NetworkAttachmentDefinition default/primary-udn-kubevirt-binding",
			"ServiceAccount hco/passt-binding-cni", "SecurityContextConstraints passt-binding-cni"}},
		{"v1.18.2", 1, []string{"DaemonSet hco/passt-binding-cni", "NetworkAttachmentDefinition default/primary-udn-kubevirt-binding",
			"ServiceAccount hco/passt-binding-cni", "SecurityContextConstraints passt-binding-cni",
			"DaemonSet hco/iommufd-device-plugin", "ServiceAccount hco/iommufd-device-plugin", "SecurityContextConstraints iommufd-device-plugin"}},
		{"1.19.0", 0, nil},
		{"1.20.0", 0, nil},
		{"not a version", 0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.from, func(t *testing.T) {
			patches, gone := upgradeSteps(tc.from, "hco")
			assert.Len(t, patches, tc.patches)
			assert.Equal(t, tc.leftovers, names(gone))
		})
	}
}

// The old default completionTimeoutPerGiB (150) becomes the seed's (800);
// any other value is the admin's and stays.
func TestPatchSpec(t *testing.T) {
	patches, _ := upgradeSteps("1.18.0", "hco")
	for _, tc := range []struct {
		have, want *int64
		changed    bool
	}{
		{ptr.To(int64(150)), ptr.To(hcov1.DefaultCompletionTimeoutPerGiB), true},
		{ptr.To(int64(300)), ptr.To(int64(300)), false},
		{nil, nil, false},
	} {
		hc := &hcov1.HyperConverged{}
		hc.Spec.Virtualization.LiveMigrationConfig.CompletionTimeoutPerGiB = tc.have
		hc.Spec.FeatureGates.Set("downwardMetrics", true)
		changed, err := patchSpec(hc, patches)
		require.NoError(t, err)
		assert.Equal(t, tc.changed, changed)
		assert.Equal(t, tc.want, hc.Spec.Virtualization.LiveMigrationConfig.CompletionTimeoutPerGiB)
		assert.True(t, hc.Spec.FeatureGates.Enabled("downwardMetrics"), "the rest of the spec kept")
	}
}

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
