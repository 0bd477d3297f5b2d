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

// baseline is the v1 list with no gates set: the opinionated gates plus
// upstream's beta gates, which are on by default. As upstream at 03da3cf:
// no ExpandDisks or VMExport (GA in KubeVirt v1.9.0).
var baseline = []string{"CPUManager", "DecentralizedLiveMigration", "DeclarativeHotplugVolumes", "HostDevices",
	"HypervStrictCheck", "KubevirtSeccompProfile", "Snapshot", "Template"}

// offBaseline is the list with every beta gate listed "False" (what a
// v1beta1 object with its CRD defaults converts to).
var offBaseline = []string{"CPUManager", "HostDevices", "HotplugVolumes", "HypervStrictCheck", "KubevirtSeccompProfile", "Snapshot"}

func betaOff() map[string]bool {
	return map[string]bool{
		featuregates.GateDecentralizedLiveMigration: false, featuregates.GateDeclarativeHotplugVolumes: false, featuregates.GateTemplate: false,
	}
}

func with(m map[string]bool, name string, on bool) map[string]bool { m[name] = on; return m }

func TestForKubeVirt(t *testing.T) {
	tests := []struct {
		name  string
		gates hcov1.FeatureGates
		opts  featuregates.Options
		want  []string
	}{
		{name: "no gates set: the opinionated ones and the beta gates", want: baseline},
		{name: "beta gates listed False", gates: gates(betaOff()), want: offBaseline},
		{name: "alpha gates false is the same as unset", gates: gates(map[string]bool{
			featuregates.GateWithHostPassthroughCPU: false, featuregates.GateDownwardMetrics: false, featuregates.GateAlignCPUs: false,
		}), want: baseline},
		{
			// The seeds' example: withHostPassthroughCPU: true.
			name:  "withHostPassthroughCPU",
			gates: gates(map[string]bool{featuregates.GateWithHostPassthroughCPU: true}),
			want:  sorted(append(slices.Clone(baseline), "WithHostPassthroughCPU")),
		},
		{
			name:  "declarativeHotplugVolumes False swaps in HotplugVolumes",
			gates: gates(map[string]bool{featuregates.GateDeclarativeHotplugVolumes: false}),
			want:  sorted(append(without(baseline, "DeclarativeHotplugVolumes"), "HotplugVolumes")),
		},
		{
			name:  "incrementalBackup adds UtilityVolumes too",
			gates: gates(with(betaOff(), featuregates.GateIncrementalBackup, true)),
			want:  sorted(append(slices.Clone(offBaseline), "IncrementalBackup", "UtilityVolumes")),
		},
		{
			name: "every gate",
			gates: gates(map[string]bool{
				featuregates.GateWithHostPassthroughCPU: true, featuregates.GateDownwardMetrics: true, featuregates.GateDisableMDevConfiguration: true,
				featuregates.GatePersistentReservation: true, featuregates.GateAlignCPUs: true, featuregates.GateDecentralizedLiveMigration: true,
				featuregates.GateDeployKubeSecondaryDNS: true, "nonRoot": true, featuregates.GateObjectGraph: true,
				featuregates.GateContainerPathVolumes: true, featuregates.GateIncrementalBackup: true,
			}),
			// persistentReservation sets KubeVirt's
			// persistentReservationConfiguration, not a gate.
			opts: featuregates.Options{ConfigurableHypervisor: true, RoleAggregationStrategy: true},
			want: sorted(append(slices.Clone(baseline), "WithHostPassthroughCPU", "DownwardMetrics", "AlignCPUs",
				"ObjectGraph", "ContainerPathVolumes", "IncrementalBackup", "UtilityVolumes", "ConfigurableHypervisor", "OptOutRoleAggregation")),
		},
		{
			// An entry without a state is enabled; "False" turns the gate off.
			name: "enabled omitted means True, False means off",
			gates: hcov1.FeatureGates{
				{Name: featuregates.GateDownwardMetrics},
				{Name: featuregates.GateAlignCPUs, State: ptr(hcov1.FeatureGateDisabled)},
				{Name: featuregates.GateObjectGraph, State: ptr(hcov1.FeatureGateEnabled)},
			},
			want: sorted(append(slices.Clone(baseline), "DownwardMetrics", "ObjectGraph")),
		},
		{name: "unknown gate names are ignored", gates: gates(map[string]bool{"noSuchGate": true}), want: baseline},
		{name: "videoConfig is graduated and ignored", gates: gates(map[string]bool{"videoConfig": true}), want: baseline},
		{name: "template False drops Template", gates: gates(map[string]bool{featuregates.GateTemplate: false}), want: without(baseline, "Template")},
		{name: "s390x workloads add SecureExecution", opts: featuregates.Options{SecureExecution: true}, want: sorted(append(slices.Clone(baseline), "SecureExecution"))},
		{name: "the passt annotation adds PasstBinding", opts: featuregates.Options{PasstBinding: true}, want: sorted(append(slices.Clone(baseline), "PasstBinding"))},
		{name: "the AIE annotation adds GraceIOVirtualization, IOMMUFD and PCINUMAAwareTopology", opts: featuregates.Options{AIE: true},
			want: sorted(append(slices.Clone(baseline), "GraceIOVirtualization", "IOMMUFD", "PCINUMAAwareTopology"))},
		{name: "KVM emulation drops HypervStrictCheck", opts: featuregates.Options{KVMEmulation: true}, want: without(baseline, "HypervStrictCheck")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, featuregates.ForKubeVirt(tc.gates, tc.opts))
		})
	}
}

func TestEnabledDefaults(t *testing.T) {
	for _, name := range featuregates.Known() {
		beta := name == featuregates.GateDecentralizedLiveMigration || name == featuregates.GateDeclarativeHotplugVolumes || name == featuregates.GateTemplate
		assert.Equal(t, beta, featuregates.Enabled(nil, name), "%s unlisted", name)
		assert.True(t, featuregates.Enabled(gates(map[string]bool{name: true}), name), "%s listed", name)
		assert.False(t, featuregates.Enabled(gates(map[string]bool{name: false}), name), "%s listed False", name)
	}
	assert.False(t, featuregates.Enabled(nil, "nonRoot"))
}

func TestDisabledForKubeVirt(t *testing.T) {
	all := featuregates.KubeVirtBeta()
	assert.Equal(t, all, featuregates.DisabledForKubeVirt(nil))
	assert.Nil(t, featuregates.DisabledForKubeVirt(all))
	got := featuregates.DisabledForKubeVirt(featuregates.ForKubeVirt(nil, featuregates.Options{}))
	assert.NotContains(t, got, "DeclarativeHotplugVolumes")
	assert.NotContains(t, got, "Snapshot")
	assert.Contains(t, got, "OptOutRoleAggregation")
	got = featuregates.DisabledForKubeVirt(featuregates.ForKubeVirt(nil, featuregates.Options{RoleAggregationStrategy: true}))
	assert.NotContains(t, got, "OptOutRoleAggregation")
}

// The KubeVirt v1.9.0 Beta gates, as kubevirt/kubevirt release-1.9 registers
// them (pkg/virt-config/featuregate/active.go); GA ones
// (MigrationPriorityQueue, SecureExecution, VideoConfig, ...) are not.
func TestKubeVirtBetaIsKubeVirt19(t *testing.T) {
	assert.Equal(t, []string{
		"DeclarativeHotplugVolumes", "ExternalNetResourceInjection", "GPUsWithDRA", "HostDevicesWithDRA", "ImageVolume",
		"KubevirtSeccompProfile", "LibvirtHooksServerAndClient", "NodeRestriction", "OptOutRoleAggregation", "PasstBinding",
		"PodSecondaryInterfaceNamingUpgrade", "RebootPolicy", "Snapshot", "Template", "VmiMemoryOverheadReport",
		"WorkloadEncryptionSEV",
	}, featuregates.KubeVirtBeta())
}

func TestOptionsFor(t *testing.T) {
	hc := &hcov1.HyperConverged{}
	assert.Equal(t, featuregates.Options{KVMEmulation: true}, featuregates.OptionsFor(hc, true, nil, false))
	hc.Annotations = map[string]string{
		featuregates.DeployPasstNetworkBindingAnnotation: "true",
		featuregates.DeployAIEAnnotation:                 "true",
	}
	got := featuregates.OptionsFor(hc, false, []string{"amd64", "s390x"}, false)
	assert.True(t, got.PasstBinding)
	assert.True(t, got.AIE)
	assert.True(t, got.SecureExecution)
	hc.Annotations[featuregates.DeployPasstNetworkBindingAnnotation] = "false"
	got = featuregates.OptionsFor(hc, false, []string{"amd64"}, false)
	assert.False(t, got.PasstBinding, "only \"true\" turns it on")
	assert.False(t, got.SecureExecution)
	assert.False(t, got.ExternalNetResourceInjection, "the injector not ready")
	assert.True(t, featuregates.OptionsFor(hc, false, nil, true).ExternalNetResourceInjection, "the injector deployed (the default) and ready")
	hc.Spec.Deployment.DeployNetworkResourcesInjector = new(false)
	assert.False(t, featuregates.OptionsFor(hc, false, nil, true).ExternalNetResourceInjection, "the injector not deployed")
}

func TestPersistentReservationEnabled(t *testing.T) {
	spec := func(gate, field *bool) *hcov1.HyperConvergedSpec {
		s := &hcov1.HyperConvergedSpec{}
		if gate != nil {
			s.FeatureGates.Set(featuregates.GatePersistentReservation, *gate)
		}
		if field != nil {
			s.Storage = &hcov1.StorageConfig{PersistentReservationConfiguration: &hcov1.PersistentReservationConfiguration{Enabled: field}}
		}
		return s
	}
	for _, tc := range []struct {
		name         string
		gate, field  *bool
		enabled, set bool
	}{
		{name: "neither"},
		{name: "the gate", gate: ptr(true), enabled: true, set: true},
		{name: "the gate off", gate: ptr(false)},
		{name: "the field", field: ptr(true), enabled: true, set: true},
		{name: "the field off", field: ptr(false), set: true},
		{name: "the field wins", gate: ptr(true), field: ptr(false), set: true},
	} {
		enabled, set := featuregates.PersistentReservationEnabled(spec(tc.gate, tc.field))
		assert.Equal(t, tc.enabled, enabled, tc.name)
		assert.Equal(t, tc.set, set, tc.name)
	}
}

func TestMediatedDevicesEnabled(t *testing.T) {
	s := &hcov1.HyperConvergedSpec{}
	on, set := featuregates.MediatedDevicesEnabled(s)
	assert.True(t, on)
	assert.False(t, set)
	s.FeatureGates.Set(featuregates.GateDisableMDevConfiguration, true)
	on, set = featuregates.MediatedDevicesEnabled(s)
	assert.False(t, on)
	assert.True(t, set)
	s.Virtualization.MediatedDevicesConfiguration = &hcov1.MediatedDevicesConfiguration{Enabled: ptr(true)}
	on, set = featuregates.MediatedDevicesEnabled(s)
	assert.True(t, on, "the field wins")
	assert.True(t, set)
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

// Gate names compare case-insensitively, as the CRD's uniqueness rule does
// (upstream's Index); a gate hcokit does not know is off even when listed.
func TestEnabledNamesAndUnknownGates(t *testing.T) {
	off := hcov1.FeatureGateDisabled
	assert.False(t, featuregates.Enabled(hcov1.FeatureGates{{Name: "DeclarativeHotplugVolumes", State: &off}}, featuregates.GateDeclarativeHotplugVolumes))
	assert.True(t, featuregates.Enabled(hcov1.FeatureGates{{Name: "DOWNWARDMETRICS"}}, featuregates.GateDownwardMetrics))
	assert.False(t, featuregates.Enabled(hcov1.FeatureGates{{Name: "futureGate"}}, "futureGate"))
}

// spec.workloadSources.enableMultiArchBootImageImport decides when set; the
// deprecated gate only when it is not (upstream's IsMultiArchEnabled, 03da3cf).
func TestMultiArchBootImageImportEnabled(t *testing.T) {
	for _, tc := range []struct {
		field *bool
		gate  *bool
		want  bool
	}{
		{},
		{gate: ptr(true), want: true},
		{field: ptr(false), gate: ptr(true)},
		{field: ptr(true), gate: ptr(false), want: true},
		{field: ptr(true), want: true},
	} {
		var s hcov1.HyperConvergedSpec
		s.WorkloadSources.EnableMultiArchBootImageImport = tc.field
		if tc.gate != nil {
			s.FeatureGates.Set(featuregates.GateEnableMultiArchBootImageImport, *tc.gate)
		}
		assert.Equal(t, tc.want, featuregates.MultiArchBootImageImportEnabled(&s), "field %v gate %v", tc.field, tc.gate)
	}
}
