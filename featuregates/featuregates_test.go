package featuregates_test

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/featuregates"
)

func ptr[T any](v T) *T { return &v }

var baseline = []string{"CPUManager", "ExpandDisks", "HostDevices", "HotplugVolumes", "HypervStrictCheck", "KubevirtSeccompProfile", "Snapshot", "VMExport"}

func TestForKubeVirt(t *testing.T) {
	tests := []struct {
		name  string
		gates hcov1.FeatureGates
		opts  featuregates.Options
		want  []string
	}{
		{name: "no gates set: the opinionated ones only", want: baseline},
		{name: "all false is the same as unset", gates: gates(map[string]bool{
			featuregates.GateWithHostPassthroughCPU: false, featuregates.GateDownwardMetrics: false, featuregates.GateAlignCPUs: false,
		}), want: baseline},
		{
			// The seeds' example: withHostPassthroughCPU: true.
			name:  "withHostPassthroughCPU",
			gates: gates(map[string]bool{featuregates.GateWithHostPassthroughCPU: true}),
			want:  sorted(append(slices.Clone(baseline), "WithHostPassthroughCPU")),
		},
		{
			name:  "declarativeHotplugVolumes swaps HotplugVolumes",
			gates: gates(map[string]bool{featuregates.GateDeclarativeHotplugVolumes: true}),
			want:  sorted(append(without(baseline, "HotplugVolumes"), "DeclarativeHotplugVolumes")),
		},
		{
			name: "every gate",
			gates: gates(map[string]bool{
				featuregates.GateWithHostPassthroughCPU: true, featuregates.GateDownwardMetrics: true, featuregates.GateDisableMDevConfiguration: true,
				featuregates.GatePersistentReservation: true, featuregates.GateAlignCPUs: true, featuregates.GateDecentralizedLiveMigration: true,
				featuregates.GateDeployKubeSecondaryDNS: true, "nonRoot": true,
			}),
			want: sorted(append(slices.Clone(baseline), "WithHostPassthroughCPU", "DownwardMetrics",
				"PersistentReservation", "AlignCPUs", "DecentralizedLiveMigration")),
		},
		{
			// An entry without a state is enabled; "False" turns the gate off.
			name: "enabled omitted means True, False means off",
			gates: hcov1.FeatureGates{
				{Name: featuregates.GateDownwardMetrics},
				{Name: featuregates.GateAlignCPUs, Enabled: ptr(hcov1.FeatureGateDisabled)},
				{Name: featuregates.GatePersistentReservation, Enabled: ptr(hcov1.FeatureGateEnabled)},
			},
			want: sorted(append(slices.Clone(baseline), "DownwardMetrics", "PersistentReservation")),
		},
		{name: "unknown gate names are ignored", gates: gates(map[string]bool{"noSuchGate": true}), want: baseline},
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

// gates builds a v1 gate list from name: enabled pairs.
func gates(m map[string]bool) hcov1.FeatureGates {
	var out hcov1.FeatureGates
	for _, name := range slices.Sorted(maps.Keys(m)) {
		out.Set(name, m[name])
	}
	return out
}

func sorted(s []string) []string { slices.Sort(s); return s }

func without(s []string, drop string) []string {
	return slices.DeleteFunc(slices.Clone(s), func(x string) bool { return x == drop })
}

func FuzzForKubeVirt(f *testing.F) {
	f.Add([]byte(`[{"name": "withHostPassthroughCPU"}]`), false)
	f.Add([]byte(`[{"name": "downwardMetrics", "enabled": "True"}, {"name": "alignCPUs", "enabled": "False"}, {"name": "declarativeHotplugVolumes"}]`), true)
	f.Fuzz(func(t *testing.T, data []byte, emulation bool) {
		var g hcov1.FeatureGates
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
	g := gates(map[string]bool{featuregates.GateWithHostPassthroughCPU: true, featuregates.GateDownwardMetrics: true, featuregates.GateAlignCPUs: true})
	b.ReportAllocs()
	for b.Loop() {
		featuregates.ForKubeVirt(g, featuregates.Options{})
	}
}
