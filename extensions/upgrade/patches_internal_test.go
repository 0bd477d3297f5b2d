package upgrade

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/utils/ptr"

	hcov1 "github.com/hcokit/hcokit/api/v1"
)

// Upstream's upgradePatches.json at 03da3cf, by the version upgraded from.
func TestUpgradeSteps(t *testing.T) {
	names := func(ls []leftover) []string {
		var out []string
		for _, l := range ls {
			out = append(out, l.gvk.Kind+" "+strings.TrimPrefix(l.key.String(), "/"))
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
