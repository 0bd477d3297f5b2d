package v1beta1_test

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	"k8s.io/apimachinery/pkg/api/resource"
	metafuzzer "k8s.io/apimachinery/pkg/apis/meta/fuzzer"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"sigs.k8s.io/randfill"
	"sigs.k8s.io/yaml"

	corev1 "k8s.io/api/core/v1"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/internal/upstreamtest"
)

// TestConvertExamples: every v1beta1 example of the repository (the seeds'
// features) survives v1beta1 -> v1 -> v1beta1 unchanged.
func TestConvertExamples(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "examples", "v1beta1", "*.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	n := 0
	for _, f := range files {
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		var meta metav1.TypeMeta
		require.NoError(t, yaml.Unmarshal(raw, &meta))
		if meta.APIVersion != v1beta1.GroupVersion.String() {
			continue
		}
		n++
		t.Run(filepath.Base(f), func(t *testing.T) {
			var hc v1beta1.HyperConverged
			require.NoError(t, yaml.UnmarshalStrict(raw, &hc))
			v1beta1.Default(&hc)
			assertV1beta1RoundTrip(t, &hc)
		})
	}
	require.NotZero(t, n, "no v1beta1 example found")
}

// TestConvertFieldByField pins where each v1beta1 field lands in v1.
func TestConvertFieldByField(t *testing.T) {
	in := &v1beta1.HyperConverged{
		ObjectMeta: metav1.ObjectMeta{Name: "kubevirt-hyperconverged", Namespace: "ns", Annotations: map[string]string{"deployOVS": "true"}},
		Spec: v1beta1.HyperConvergedSpec{
			Infra:     v1beta1.HyperConvergedConfig{NodePlacement: &v1beta1.NodePlacement{NodeSelector: map[string]string{"nodeType": "infra"}}},
			Workloads: v1beta1.HyperConvergedConfig{NodePlacement: &v1beta1.NodePlacement{NodeSelector: map[string]string{"nodeType": "nested-virtualization"}}},
			FeatureGates: v1beta1.HyperConvergedFeatureGates{
				WithHostPassthroughCPU: ptr(true), DownwardMetrics: ptr(false),
				Others: map[string]bool{"futureGate": true, "objectGraph": false},
			},
			LiveMigrationConfig: v1beta1.LiveMigrationConfigurations{AllowPostCopy: ptr(true), Network: ptr("migration")},
			PermittedHostDevices: &v1beta1.PermittedHostDevices{PciHostDevices: []v1beta1.PciHostDevice{
				{PCIVendorSelector: "10DE:1EB8", ResourceName: "nvidia.com/T4", ExternalResourceProvider: true},
				{PCIDeviceSelector: "8086:6F54", ResourceName: "intel.com/qat"},
			}},
			MediatedDevicesConfiguration: &v1beta1.MediatedDevicesConfiguration{MediatedDevicesTypes: []string{"nvidia-222"}},
			ResourceRequirements: &v1beta1.OperandResourceRequirements{
				VmiCPUAllocationRatio: ptr(4),
				StorageWorkloads:      &corev1ResourceRequirements,
			},
			ScratchSpaceStorageClass: ptr("fast"),
			ObsoleteCPUs:             &v1beta1.HyperConvergedObsoleteCPUs{MinCPUModel: "Haswell", CPUModels: []string{"Nehalem"}},
			CommonTemplatesNamespace: ptr("templates"),
			DefaultCPUModel:          ptr("Skylake"),
			UninstallStrategy:        v1beta1.UninstallStrategyRemoveWorkloads,
			HostpathProvisioner:      &v1beta1.HostpathProvisionerConfig{StoragePools: []v1beta1.HostpathStoragePool{{Name: "local", Path: "/var/hpp"}}},
		},
	}
	v1beta1.Default(in)

	var hub hcov1.HyperConverged
	require.NoError(t, in.DeepCopy().ConvertTo(&hub))
	s := hub.Spec
	assert.Equal(t, "hco.kubevirt.io/v1", hub.APIVersion)
	assert.Equal(t, "true", hub.Annotations["deployOVS"])
	assert.Equal(t, "infra", s.Deployment.NodePlacements.Infra.NodeSelector["nodeType"])
	assert.Equal(t, "nested-virtualization", s.Deployment.NodePlacements.Workload.NodeSelector["nodeType"])
	assert.True(t, s.FeatureGates.Enabled("withHostPassthroughCPU"))
	assert.False(t, s.FeatureGates.Enabled("downwardMetrics"))
	assert.Contains(t, s.FeatureGates, hcov1.FeatureGate{Name: "futureGate", State: ptr(hcov1.FeatureGateEnabled)}, "a gate v1beta1 has no field for is kept")
	assert.False(t, s.FeatureGates.Enabled("objectGraph"))
	assert.Contains(t, s.FeatureGates, hcov1.FeatureGate{Name: "withHostPassthroughCPU", State: ptr(hcov1.FeatureGateEnabled)}, "a gate turned on in v1beta1 is listed with its state, as upstream's conversion does")
	assert.Equal(t, "64Mi", *s.Virtualization.LiveMigrationConfig.BandwidthPerMigration)
	assert.True(t, *s.Virtualization.LiveMigrationConfig.AllowPostCopy)
	assert.Equal(t, "10DE:1EB8", s.Virtualization.PermittedHostDevices.PciHostDevices[0].PCIDeviceSelector, "the older spelling becomes v1's")
	assert.Equal(t, []string{"nvidia-222"}, s.Virtualization.MediatedDevicesConfiguration.MediatedDeviceTypes)
	assert.Equal(t, 4, *s.Virtualization.VmiCPUAllocationRatio)
	assert.Equal(t, []string{"Nehalem"}, s.Virtualization.ObsoleteCPUModels)
	assert.Equal(t, "Skylake", *s.Virtualization.VirtualMachineOptions.DefaultCPUModel)
	assert.Equal(t, "fast", *s.Storage.ScratchSpaceStorageClass)
	assert.Equal(t, &corev1ResourceRequirements, s.Storage.WorkloadResourceRequirements)
	assert.Equal(t, "local", s.Storage.HostpathProvisioner.StoragePools[0].Name)
	assert.Equal(t, "templates", *s.WorkloadSources.CommonTemplatesNamespace)
	assert.Equal(t, hcov1.UninstallStrategyRemoveWorkloads, s.Deployment.UninstallStrategy)
	assert.Equal(t, 48*60*60.0, s.Security.CertConfig.CA.Duration.Seconds())
	assert.JSONEq(t, `{"minCPUModel":"Haswell","pciVendorSelectors":["10DE:1EB8"],"mediatedDevicesConfiguration":{"mediatedDevicesTypes":["nvidia-222"]}}`,
		hub.Annotations[v1beta1.FieldsAnnotation], "what v1 has no field for is kept in an annotation")

	assertV1beta1RoundTrip(t, in)
}

// TestConvertFromEditedV1: a kept spelling comes back only while v1 still
// says the same; an edit made through v1 wins.
func TestConvertFromEditedV1(t *testing.T) {
	in := &v1beta1.HyperConverged{Spec: v1beta1.HyperConvergedSpec{
		MediatedDevicesConfiguration: &v1beta1.MediatedDevicesConfiguration{MediatedDevicesTypes: []string{"nvidia-222"}},
	}}
	var hub hcov1.HyperConverged
	require.NoError(t, in.ConvertTo(&hub))
	hub.Spec.Virtualization.MediatedDevicesConfiguration.MediatedDeviceTypes = []string{"nvidia-223"}

	var out v1beta1.HyperConverged
	require.NoError(t, out.ConvertFrom(&hub))
	assert.Equal(t, []string{"nvidia-223"}, out.Spec.MediatedDevicesConfiguration.MediatedDeviceTypes)
	assert.Nil(t, out.Spec.MediatedDevicesConfiguration.MediatedDevicesTypes)
	assert.NotContains(t, out.Annotations, v1beta1.FieldsAnnotation, "the annotation is v1's business; v1beta1 clients do not see it")
}

// TestConvertUpstreamV1 converts upstream's grouped v1 fields to v1beta1 and back.
func TestConvertUpstreamV1(t *testing.T) {
	raw := []byte(`
apiVersion: hco.kubevirt.io/v1
kind: HyperConverged
metadata: {name: kubevirt-hyperconverged, namespace: kubevirt-hyperconverged}
spec:
  featureGates:
  - name: downwardMetrics
  - name: alignCPUs
    state: Disabled
  - name: template
  virtualization:
    liveMigrationConfig: {parallelMigrationsPerCluster: 3}
    permittedHostDevices:
      pciHostDevices: [{pciDeviceSelector: "10DE:1EB8", resourceName: nvidia.com/T4}]
    obsoleteCPUModels: [Nehalem]
    virtualMachineOptions: {defaultRuntimeClass: kata}
  storage: {scratchSpaceStorageClass: fast}
  deployment:
    nodePlacements: {infra: {nodeSelector: {role: infra}}}
    uninstallStrategy: RemoveWorkloads
`)
	var hub hcov1.HyperConverged
	require.NoError(t, yaml.UnmarshalStrict(raw, &hub))
	hcov1.Default(&hub)

	var old v1beta1.HyperConverged
	require.NoError(t, old.ConvertFrom(hub.DeepCopy()))
	assert.True(t, *old.Spec.FeatureGates.DownwardMetrics)
	assert.False(t, *old.Spec.FeatureGates.AlignCPUs)
	assert.Equal(t, map[string]bool{"template": true}, old.Spec.FeatureGates.Others)
	assert.Equal(t, uint32(3), *old.Spec.LiveMigrationConfig.ParallelMigrationsPerCluster)
	assert.Equal(t, "10DE:1EB8", old.Spec.PermittedHostDevices.PciHostDevices[0].PCIDeviceSelector)
	assert.Equal(t, []string{"Nehalem"}, old.Spec.ObsoleteCPUs.CPUModels)
	assert.Equal(t, "kata", *old.Spec.DefaultRuntimeClass)
	assert.Equal(t, "fast", *old.Spec.ScratchSpaceStorageClass)
	assert.Equal(t, "infra", old.Spec.Infra.NodePlacement.NodeSelector["role"])
	assert.Equal(t, v1beta1.UninstallStrategyRemoveWorkloads, old.Spec.UninstallStrategy)
	assert.Equal(t, true, featureGatesJSON(t, old.Spec.FeatureGates)["template"],
		"a gate without a field is written beside the named ones")

	assertV1RoundTrip(t, &hub)
}

// TestFeatureGatesJSON: v1beta1's gates object keeps names it has no field
// for, and refuses a value that is not a boolean, naming it.
func TestFeatureGatesJSON(t *testing.T) {
	var g v1beta1.HyperConvergedFeatureGates
	require.NoError(t, json.Unmarshal([]byte(`{"downwardMetrics": true, "futureGate": false, "gone": null}`), &g))
	assert.True(t, *g.DownwardMetrics)
	assert.Equal(t, map[string]bool{"futureGate": false}, g.Others)
	out, err := json.Marshal(g)
	require.NoError(t, err)
	assert.JSONEq(t, `{"downwardMetrics": true, "futureGate": false}`, string(out))

	err = json.Unmarshal([]byte(`{"futureGate": "yes"}`), &g)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "spec.featureGates.futureGate: must be true or false")
}

// FuzzConversionRoundTrip: for any object the API server could hold
// (defaults filled in), v1beta1 -> v1 -> v1beta1 and v1 -> v1beta1 -> v1
// are the identity on the wire, once a v1beta1 object states both its forms
// of a field v1 made of a deprecated gate (canonicalV1beta1). `make fuzz`
// runs it.
func FuzzConversionRoundTrip(f *testing.F) {
	for seed := range int64(20) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, seed int64) {
		fill := filler(seed)

		var old v1beta1.HyperConverged
		fill.Fill(&old.Spec)
		fill.Fill(&old.ObjectMeta.Annotations)
		old = canonicalV1beta1(t, &old)
		v1beta1.Default(&old)
		assertV1beta1RoundTrip(t, &old)

		var hub hcov1.HyperConverged
		fill.Fill(&hub.Spec)
		fill.Fill(&hub.Status)
		hub = canonicalV1(t, &hub)
		hcov1.Default(&hub)
		assertV1RoundTrip(t, &hub)
	})
}

func assertV1beta1RoundTrip(t *testing.T, in *v1beta1.HyperConverged) {
	t.Helper()
	var hub hcov1.HyperConverged
	require.NoError(t, in.DeepCopy().ConvertTo(&hub))
	hub = canonicalV1(t, &hub) // as it is stored: through JSON
	var out v1beta1.HyperConverged
	require.NoError(t, out.ConvertFrom(&hub))
	in.SetGroupVersionKind(v1beta1.GroupVersion.WithKind("HyperConverged"))
	assert.JSONEq(t, wire(t, in), wire(t, &out))
}

func assertV1RoundTrip(t *testing.T, in *hcov1.HyperConverged) {
	t.Helper()
	var old v1beta1.HyperConverged
	require.NoError(t, old.ConvertFrom(in.DeepCopy()))
	old = canonicalV1beta1(t, &old)
	var out hcov1.HyperConverged
	require.NoError(t, old.ConvertTo(&out))
	in.SetGroupVersionKind(hcov1.GroupVersion.WithKind("HyperConverged"))
	assert.JSONEq(t, wire(t, in), wire(t, &out))
}

// filler fills objects the way Kubernetes' own round-trip tests do, with
// values each field's validation would accept where the conversion depends on it.
func filler(seed int64) *randfill.Filler {
	codecs := serializer.NewCodecFactory(runtime.NewScheme())
	return fuzzer.FuzzerFor(fuzzer.MergeFuzzerFuncs(metafuzzer.Funcs, func(serializer.CodecFactory) []any {
		return []any{
			func(q *resource.Quantity, c randfill.Continue) {
				*q = *resource.NewQuantity(c.Int63n(1<<20), resource.BinarySI)
			},
			func(d *metav1.Duration, c randfill.Continue) {
				d.Duration = time.Duration(60+c.Int63n(1e5)) * time.Second
			},
			func(p *v1beta1.PciHostDevice, c randfill.Continue) {
				c.FillNoCustom(p)
				sel := fmt.Sprintf("%04X:%04X", c.Intn(1<<16), c.Intn(1<<16))
				p.PCIDeviceSelector, p.PCIVendorSelector = "", ""
				if c.Bool() {
					p.PCIDeviceSelector = sel
				} else {
					p.PCIVendorSelector = sel
				}
			},
			func(p *hcov1.PciHostDevice, c randfill.Continue) {
				c.FillNoCustom(p)
				p.PCIDeviceSelector = fmt.Sprintf("%04X:%04X", c.Intn(1<<16), c.Intn(1<<16))
			},
			func(s *hcov1.FeatureGateState, c randfill.Continue) {
				*s = []hcov1.FeatureGateState{hcov1.FeatureGateEnabled, hcov1.FeatureGateDisabled}[c.Intn(2)]
			},
			func(m *map[string]string, c randfill.Continue) {
				c.FillNoCustom(m)
				delete(*m, v1beta1.FieldsAnnotation)
				delete(*m, v1beta1.V1OnlyFieldsAnnotation)
			},
		}
	}), rand.NewSource(seed), codecs)
}

// canonicalV1beta1 returns hc as the API server would hand it to the
// conversion: through JSON, with selectors unique as a device list needs;
// and with both v1beta1 forms of a field v1 made of a deprecated gate
// stated, as ConvertFrom writes them: upstream's gate
// (disableMDevConfiguration, persistentReservation) and hcokit's field
// (mediatedDevicesConfiguration.enabled, persistentReservationConfiguration),
// the field following the gate where both are set (ConvertTo's rule, as
// upstream's conversion sets the gate last).
func canonicalV1beta1(t *testing.T, hc *v1beta1.HyperConverged) v1beta1.HyperConverged {
	t.Helper()
	var out v1beta1.HyperConverged
	require.NoError(t, json.Unmarshal([]byte(wire(t, hc)), &out))
	s := &out.Spec
	switch m := s.MediatedDevicesConfiguration; {
	case s.FeatureGates.DisableMDevConfiguration != nil:
		if m == nil {
			s.MediatedDevicesConfiguration = &v1beta1.MediatedDevicesConfiguration{}
		}
		s.MediatedDevicesConfiguration.Enabled = ptr(!*s.FeatureGates.DisableMDevConfiguration)
	case m != nil && m.Enabled != nil:
		s.FeatureGates.DisableMDevConfiguration = ptr(!*m.Enabled)
	}
	switch p := s.PersistentReservationConfiguration; {
	case s.FeatureGates.PersistentReservation != nil:
		s.PersistentReservationConfiguration = &hcov1.PersistentReservationConfiguration{Enabled: ptr(*s.FeatureGates.PersistentReservation)}
	case p != nil && p.Enabled != nil:
		s.FeatureGates.PersistentReservation = ptr(*p.Enabled)
	}
	if p := out.Spec.PermittedHostDevices; p != nil {
		seen := map[string]bool{}
		p.PciHostDevices = slices.DeleteFunc(p.PciHostDevices, func(d v1beta1.PciHostDevice) bool {
			dup := seen[d.Selector()]
			seen[d.Selector()] = true
			return dup
		})
	}
	return out
}

// canonicalV1 returns hc as the API server would hand it to the conversion:
// through JSON, gate names unique case-insensitively (the CRD's rule). The
// gate list keeps its order and its entries' forms: the round trip must
// give them back as written.
func canonicalV1(t *testing.T, hc *hcov1.HyperConverged) hcov1.HyperConverged {
	t.Helper()
	var out hcov1.HyperConverged
	require.NoError(t, json.Unmarshal([]byte(wire(t, hc)), &out))
	var gates hcov1.FeatureGates
	for _, g := range out.Spec.FeatureGates {
		if gates.Index(g.Name) < 0 {
			gates = append(gates, g)
		}
	}
	out.Spec.FeatureGates = gates
	if p := out.Spec.Virtualization.PermittedHostDevices; p != nil {
		seen := map[string]bool{}
		p.PciHostDevices = slices.DeleteFunc(p.PciHostDevices, func(d hcov1.PciHostDevice) bool {
			dup := seen[d.PCIDeviceSelector]
			seen[d.PCIDeviceSelector] = true
			return dup
		})
	}
	return out
}

// wire is the object's JSON with empty objects dropped: an empty object
// holds no field, and the two versions do not keep one where the other has
// no counterpart for it.
func wire(t *testing.T, obj any) string {
	t.Helper()
	raw, err := json.Marshal(obj)
	require.NoError(t, err)
	var doc any
	require.NoError(t, json.Unmarshal(raw, &doc))
	out, err := json.Marshal(pruneEmpty(doc))
	require.NoError(t, err)
	return string(out)
}

func pruneEmpty(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			x = pruneEmpty(x)
			if m, ok := x.(map[string]any); ok && len(m) == 0 {
				delete(v, k)
				continue
			}
			v[k] = x
		}
		return v
	case []any:
		for i := range v {
			v[i] = pruneEmpty(v[i])
		}
		return v
	}
	return v
}

func featureGatesJSON(t *testing.T, g v1beta1.HyperConvergedFeatureGates) map[string]any {
	t.Helper()
	return upstreamtest.JSON(t, g)
}

var corev1ResourceRequirements = corev1.ResourceRequirements{
	Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")},
}

// TestConvertFromUnreadableAnnotation: a kept-fields annotation edited into
// something unreadable does not make the object unreadable as v1beta1.
func TestConvertFromUnreadableAnnotation(t *testing.T) {
	hub := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{v1beta1.FieldsAnnotation: "{not json"}}}
	hub.Spec.Virtualization.ObsoleteCPUModels = []string{"Nehalem"}
	var out v1beta1.HyperConverged
	require.NoError(t, out.ConvertFrom(hub))
	assert.Equal(t, []string{"Nehalem"}, out.Spec.ObsoleteCPUs.CPUModels)
	assert.Empty(t, out.Spec.ObsoleteCPUs.MinCPUModel)
}
