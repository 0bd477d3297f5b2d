package featuregates_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/featuregates"
)

func ptr[T any](v T) *T { return &v }

var baseline = []string{"CPUManager", "ExpandDisks", "HostDevices", "HotplugVolumes", "HypervStrictCheck", "KubevirtSeccompProfile", "Snapshot", "VMExport"}

func TestForKubeVirt(t *testing.T) {
	tests := []struct {
		name  string
		gates v1beta1.HyperConvergedFeatureGates
		opts  featuregates.Options
		want  []string
	}{
		{name: "no gates set: the opinionated ones only", want: baseline},
		{name: "all false is the same as unset", gates: v1beta1.HyperConvergedFeatureGates{
			WithHostPassthroughCPU: ptr(false), DownwardMetrics: ptr(false), AlignCPUs: ptr(false),
		}, want: baseline},
		{
			// The seeds' example: withHostPassthroughCPU: true.
			name:  "withHostPassthroughCPU",
			gates: v1beta1.HyperConvergedFeatureGates{WithHostPassthroughCPU: ptr(true)},
			want:  sorted(append(slices.Clone(baseline), "WithHostPassthroughCPU")),
		},
		{
			name:  "declarativeHotplugVolumes swaps HotplugVolumes",
			gates: v1beta1.HyperConvergedFeatureGates{DeclarativeHotplugVolumes: ptr(true)},
			want:  sorted(append(without(baseline, "HotplugVolumes"), "DeclarativeHotplugVolumes")),
		},
		{
			name: "every gate",
			gates: v1beta1.HyperConvergedFeatureGates{
				WithHostPassthroughCPU: ptr(true), DownwardMetrics: ptr(true), DisableMDevConfiguration: ptr(true),
				PersistentReservation: ptr(true), AlignCPUs: ptr(true), DecentralizedLiveMigration: ptr(true),
				DeployKubeSecondaryDNS: ptr(true), NonRoot: ptr(true),
			},
			want: sorted(append(slices.Clone(baseline), "WithHostPassthroughCPU", "DownwardMetrics",
				"PersistentReservation", "AlignCPUs", "DecentralizedLiveMigration")),
		},
		{name: "KVM emulation drops HypervStrictCheck", opts: featuregates.Options{KVMEmulation: true}, want: without(baseline, "HypervStrictCheck")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, featuregates.ForKubeVirt(tc.gates, tc.opts))
		})
	}
}

func TestAlwaysOnIsACopy(t *testing.T) {
	a := featuregates.AlwaysOn()
	a[0] = "changed"
	assert.NotEqual(t, "changed", featuregates.AlwaysOn()[0])
}

func sorted(s []string) []string { slices.Sort(s); return s }

func without(s []string, drop string) []string {
	return slices.DeleteFunc(slices.Clone(s), func(x string) bool { return x == drop })
}

func FuzzForKubeVirt(f *testing.F) {
	f.Add([]byte(`{"withHostPassthroughCPU": true}`), false)
	f.Add([]byte(`{"downwardMetrics": true, "alignCPUs": false, "declarativeHotplugVolumes": true}`), true)
	f.Fuzz(func(t *testing.T, data []byte, emulation bool) {
		var g v1beta1.HyperConvergedFeatureGates
		if json.Unmarshal(data, &g) != nil {
			return
		}
		opts := featuregates.Options{KVMEmulation: emulation}
		a, b := featuregates.ForKubeVirt(g, opts), featuregates.ForKubeVirt(g, opts)
		require.Equal(t, a, b)
		require.True(t, slices.IsSorted(a), "gates not sorted: %v", a)
		require.Len(t, slices.Compact(slices.Clone(a)), len(a), "duplicate gates: %v", a)
	})
}

func BenchmarkForKubeVirt(b *testing.B) {
	g := v1beta1.HyperConvergedFeatureGates{WithHostPassthroughCPU: ptr(true), DownwardMetrics: ptr(true), AlignCPUs: ptr(true)}
	b.ReportAllocs()
	for b.Loop() {
		featuregates.ForKubeVirt(g, featuregates.Options{})
	}
}
