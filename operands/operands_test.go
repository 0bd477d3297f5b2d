// Tests of the stock operand modules together, without a cluster.
package operands_test

import (
	"testing"

	conditionsv1 "github.com/openshift/custom-resource-status/conditions/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kvv1 "kubevirt.io/api/core/v1"
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	sspv1beta3 "kubevirt.io/ssp-operator/api/v1beta3"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/featuregates"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hcostatus"
	"github.com/hcokit/hcokit/operands/cdi"
	"github.com/hcokit/hcokit/operands/cnao"
	cnaov1 "github.com/hcokit/hcokit/operands/cnao/api/v1"
	"github.com/hcokit/hcokit/operands/hpp"
	hppv1beta1 "github.com/hcokit/hcokit/operands/hpp/api/v1beta1"
	"github.com/hcokit/hcokit/operands/kubevirt"
	"github.com/hcokit/hcokit/operands/ssp"
)

func ptr[T any](v T) *T { return &v }

var env = hco.Facts{Environment: hco.Environment{Namespace: hcov1.DefaultNamespace, Version: "1.0.0"}}

func newHC() *hcov1.HyperConverged {
	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: hcov1.DefaultNamespace}}
	hcov1.Default(hc)
	return hc
}

// fullHC sets every field the operands read.
func fullHC() *hcov1.HyperConverged {
	hc := newHC()
	hc.Annotations = map[string]string{hcov1.DeployOVSAnnotation: "true"}
	s := &hc.Spec
	s.Deployment.NodePlacements = &hcov1.NodePlacements{
		Infra: &hcov1.NodePlacement{NodeSelector: map[string]string{"nodeType": "infra"}},
		Workload: &hcov1.NodePlacement{
			NodeSelector: map[string]string{"nodeType": "nested-virtualization"},
			Tolerations:  []corev1.Toleration{{Key: "key", Operator: corev1.TolerationOpEqual, Value: "kubevirt", Effect: corev1.TaintEffectNoSchedule}},
		},
	}
	s.FeatureGates.Set(featuregates.GateWithHostPassthroughCPU, true)
	s.FeatureGates.Set(featuregates.GateDeployKubeSecondaryDNS, true)
	v := &s.Virtualization
	v.LiveMigrationConfig.Network = ptr("migration")
	v.PermittedHostDevices = &hcov1.PermittedHostDevices{
		PciHostDevices:  []hcov1.PciHostDevice{{PCIDeviceSelector: "10DE:1EB8", ResourceName: "nvidia.com/T4", ExternalResourceProvider: true}},
		MediatedDevices: []hcov1.MediatedHostDevice{{MDEVNameSelector: "GRID T4-1Q", ResourceName: "nvidia.com/GRID_T4-1Q"}},
	}
	v.MediatedDevicesConfiguration = &hcov1.MediatedDevicesConfiguration{MediatedDeviceTypes: []string{"nvidia-222"}}
	v.VmiCPUAllocationRatio = ptr(4)
	v.ObsoleteCPUModels = []string{"Nehalem"}
	v.VirtualMachineOptions.DefaultCPUModel = ptr("Skylake")
	v.VirtualMachineOptions.DefaultRuntimeClass = ptr("kata")
	s.Storage = &hcov1.StorageConfig{
		WorkloadResourceRequirements: &corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}},
		ScratchSpaceStorageClass:     ptr("scratch"),
		StorageImport:                &hcov1.StorageImportConfig{InsecureRegistries: []string{"registry.local:5000"}},
		HostpathProvisioner:          &hcov1.HostpathProvisionerConfig{StoragePools: []hcov1.HostpathStoragePool{{Name: "local", Path: "/var/hpp"}}, ImagePullPolicy: corev1.PullAlways},
	}
	s.WorkloadSources.CommonTemplatesNamespace = ptr("templates")
	s.Deployment.UninstallStrategy = hcov1.UninstallStrategyRemoveWorkloads
	return hc
}

// fullV1beta1HC is fullHC as v1beta1, in the spellings the seeds use
// (pciVendorSelector, mediatedDevicesTypes) and with minCPUModel, which v1
// dropped.
func fullV1beta1HC() *v1beta1.HyperConverged {
	hc := &v1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: v1beta1.HyperConvergedName, Namespace: v1beta1.DefaultNamespace}}
	v1beta1.Default(hc)
	hc.Annotations = map[string]string{v1beta1.DeployOVSAnnotation: "true"}
	s := &hc.Spec
	s.Infra.NodePlacement = &v1beta1.NodePlacement{NodeSelector: map[string]string{"nodeType": "infra"}}
	s.Workloads.NodePlacement = &v1beta1.NodePlacement{
		NodeSelector: map[string]string{"nodeType": "nested-virtualization"},
		Tolerations:  []corev1.Toleration{{Key: "key", Operator: corev1.TolerationOpEqual, Value: "kubevirt", Effect: corev1.TaintEffectNoSchedule}},
	}
	s.FeatureGates.WithHostPassthroughCPU = ptr(true)
	s.FeatureGates.DeployKubeSecondaryDNS = ptr(true)
	s.LiveMigrationConfig.Network = ptr("migration")
	s.PermittedHostDevices = &v1beta1.PermittedHostDevices{
		PciHostDevices:  []v1beta1.PciHostDevice{{PCIVendorSelector: "10DE:1EB8", ResourceName: "nvidia.com/T4", ExternalResourceProvider: true}},
		MediatedDevices: []v1beta1.MediatedHostDevice{{MDEVNameSelector: "GRID T4-1Q", ResourceName: "nvidia.com/GRID_T4-1Q"}},
	}
	s.MediatedDevicesConfiguration = &v1beta1.MediatedDevicesConfiguration{MediatedDevicesTypes: []string{"nvidia-222"}}
	s.ResourceRequirements.StorageWorkloads = &corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}}
	s.ResourceRequirements.VmiCPUAllocationRatio = ptr(4)
	s.ScratchSpaceStorageClass = ptr("scratch")
	s.StorageImport = &v1beta1.StorageImportConfig{InsecureRegistries: []string{"registry.local:5000"}}
	s.ObsoleteCPUs = &v1beta1.HyperConvergedObsoleteCPUs{MinCPUModel: "Haswell", CPUModels: []string{"Nehalem"}}
	s.CommonTemplatesNamespace = ptr("templates")
	s.DefaultCPUModel = ptr("Skylake")
	s.DefaultRuntimeClass = ptr("kata")
	s.UninstallStrategy = v1beta1.UninstallStrategyRemoveWorkloads
	s.HostpathProvisioner = &v1beta1.HostpathProvisionerConfig{StoragePools: []v1beta1.HostpathStoragePool{{Name: "local", Path: "/var/hpp"}}, ImagePullPolicy: corev1.PullAlways}
	return hc
}

func registry(t testing.TB) *hco.Registry {
	r, err := hco.NewRegistry(kubevirt.New(), cdi.New(), cnao.New(), ssp.New(), hpp.New())
	require.NoError(t, err)
	return r
}

func TestDefaultsProduceTheFourDefaultCRs(t *testing.T) {
	objs, err := hco.Render(registry(t), newHC(), env)
	require.NoError(t, err)
	var got []string
	for _, o := range objs {
		got = append(got, o.GetObjectKind().GroupVersionKind().Kind+"/"+o.GetNamespace()+"/"+o.GetName())
		assert.Equal(t, "hco-operator", o.GetLabels()["app.kubernetes.io/managed-by"])
		assert.Equal(t, "1.0.0", o.GetLabels()["app.kubernetes.io/version"])
	}
	assert.Equal(t, []string{
		"KubeVirt/kubevirt-hyperconverged/kubevirt-kubevirt-hyperconverged",
		"CDI//cdi-kubevirt-hyperconverged",
		"NetworkAddonsConfig//cluster",
		"SSP/kubevirt-hyperconverged/ssp-kubevirt-hyperconverged",
	}, got, "hpp wants nothing unless spec.hostpathProvisioner is set")
}

func TestKindsMatchDesired(t *testing.T) {
	for _, op := range registry(t).Operands() {
		// As the library builds them: the kind of a typed object left
		// without one comes from Kinds, by its Go type.
		objs, err := hco.DesiredObjects(op, fullHC(), env)
		require.NoError(t, err)
		require.NotEmpty(t, objs, op.Name())
		kinds := op.Kinds()
		for _, o := range objs {
			found := false
			for _, k := range kinds {
				if k.GetObjectKind().GroupVersionKind() == o.GetObjectKind().GroupVersionKind() {
					found = true
				}
			}
			assert.True(t, found, "%s returns a %s not listed in Kinds", op.Name(), o.GetObjectKind().GroupVersionKind())
		}
	}
}

func TestFullHyperConvergedPropagates(t *testing.T) {
	hc := fullHC()

	kv, err := kubevirt.Build(hc, env)
	require.NoError(t, err)
	c := kv.Spec.Configuration
	assert.Equal(t, "nested-virtualization", kv.Spec.Workloads.NodePlacement.NodeSelector["nodeType"])
	assert.Equal(t, "infra", kv.Spec.Infra.NodePlacement.NodeSelector["nodeType"])
	assert.Contains(t, c.DeveloperConfiguration.FeatureGates, "WithHostPassthroughCPU")
	assert.Equal(t, 4, c.DeveloperConfiguration.CPUAllocationRatio)
	assert.Equal(t, "64Mi", c.MigrationConfiguration.BandwidthPerMigration.String())
	assert.Equal(t, int64(800), *c.MigrationConfiguration.CompletionTimeoutPerGiB)
	assert.Equal(t, "migration", *c.MigrationConfiguration.Network)
	assert.Equal(t, "10DE:1EB8", c.PermittedHostDevices.PciHostDevices[0].PCIVendorSelector)
	assert.Equal(t, []string{"nvidia-222"}, c.MediatedDevicesConfiguration.MediatedDeviceTypes)
	assert.True(t, c.ObsoleteCPUModels["Nehalem"])
	assert.True(t, c.ObsoleteCPUModels["486"])
	assert.Empty(t, c.DeprecatedMinCPUModel, "v1 has no minCPUModel; KubeVirt's deprecated field stays unset, as upstream")
	assert.Equal(t, "Skylake", c.CPUModel)
	assert.Equal(t, "kata", c.DefaultRuntimeClass)
	assert.Equal(t, "masquerade", c.NetworkConfiguration.NetworkInterface)
	assert.Equal(t, kvv1.KubeVirtUninstallStrategyRemoveWorkloads, kv.Spec.UninstallStrategy)
	assert.Equal(t, 48*60*60.0, kv.Spec.CertificateRotationStrategy.SelfSigned.CA.Duration.Seconds())
	assert.Equal(t, []kvv1.WorkloadUpdateMethod{"LiveMigrate"}, kv.Spec.WorkloadUpdateStrategy.WorkloadUpdateMethods)

	cdiCR := cdi.Build(hc, env)
	assert.Equal(t, "infra", cdiCR.Spec.Infra.NodeSelector["nodeType"])
	assert.Equal(t, "nested-virtualization", cdiCR.Spec.Workloads.NodeSelector["nodeType"])
	assert.Equal(t, "scratch", *cdiCR.Spec.Config.ScratchSpaceStorageClass)
	assert.Equal(t, []string{"registry.local:5000"}, cdiCR.Spec.Config.InsecureRegistries)
	assert.Equal(t, "500m", cdiCR.Spec.Config.PodResourceRequirements.Limits.Cpu().String())
	assert.Equal(t, cdiv1beta1.CDIUninstallStrategyRemoveWorkloads, *cdiCR.Spec.UninstallStrategy)
	assert.Contains(t, cdiCR.Spec.Config.FeatureGates, "HonorWaitForFirstConsumer")
	assert.Empty(t, cdiCR.Namespace, "CDI is cluster-scoped")

	nac, err := cnao.Build(hc, env)
	require.NoError(t, err)
	assert.NotNil(t, nac.Spec.Ovs, "deployOVS: true deploys OvS")
	assert.NotNil(t, nac.Spec.KubeSecondaryDNS)
	assert.Equal(t, "infra", nac.Spec.PlacementConfiguration.Infra.NodeSelector["nodeType"])
	assert.Equal(t, "kubevirt", nac.Spec.PlacementConfiguration.Workloads.Tolerations[0].Value)
	assert.Equal(t, "48h0m0s", nac.Spec.SelfSignConfiguration.CARotateInterval)
	assert.Equal(t, "12h0m0s", nac.Spec.SelfSignConfiguration.CertOverlapInterval)

	sspCR, err := ssp.Build(hc, env)
	require.NoError(t, err)
	assert.Equal(t, "templates", sspCR.Spec.CommonTemplates.Namespace)
	assert.Equal(t, "infra", sspCR.Spec.TemplateValidator.Placement.NodeSelector["nodeType"], "SSP gets infra placement")

	hppCR := hpp.Build(hc, env.Environment)
	require.NotNil(t, hppCR)
	assert.Equal(t, "nested-virtualization", hppCR.Spec.Workload.NodeSelector["nodeType"], "HPP gets workloads placement")
	assert.Equal(t, []hppv1beta1.StoragePool{{Name: "local", Path: "/var/hpp"}}, hppCR.Spec.StoragePools)
	assert.Equal(t, corev1.PullAlways, hppCR.Spec.ImagePullPolicy)
}

// A v1beta1 HyperConverged, converted to the hub as the API server does,
// gives the same operand objects as the same configuration written in v1.
func TestV1beta1ThroughConversionRendersTheSame(t *testing.T) {
	hub := &hcov1.HyperConverged{}
	require.NoError(t, fullV1beta1HC().ConvertTo(hub))
	assert.Contains(t, hub.Annotations, v1beta1.FieldsAnnotation, "minCPUModel and the older spellings are kept for the way back")

	fromV1beta1, err := hco.Render(registry(t), hub, env)
	require.NoError(t, err)
	fromV1, err := hco.Render(registry(t), fullHC(), env)
	require.NoError(t, err)
	assert.Equal(t, fromV1, fromV1beta1)
}

func TestDisableMDevConfiguration(t *testing.T) {
	kv, err := kubevirt.Build(newHC(), env)
	require.NoError(t, err)
	assert.Nil(t, kv.Spec.Configuration.MediatedDevicesConfiguration, "off: KubeVirt's default")

	hc := fullHC()
	hc.Spec.FeatureGates.Set(featuregates.GateDisableMDevConfiguration, true)
	kv, err = kubevirt.Build(hc, env)
	require.NoError(t, err)
	m := kv.Spec.Configuration.MediatedDevicesConfiguration
	require.NotNil(t, m.Enabled)
	assert.False(t, *m.Enabled)
	assert.Equal(t, []string{"nvidia-222"}, m.MediatedDeviceTypes, "the configured types are kept")

	hc = newHC()
	hc.Spec.FeatureGates.Set(featuregates.GateDisableMDevConfiguration, true)
	kv, err = kubevirt.Build(hc, env)
	require.NoError(t, err)
	assert.False(t, *kv.Spec.Configuration.MediatedDevicesConfiguration.Enabled)
}

func TestDeployOVSOnlyWhenTrue(t *testing.T) {
	for value, want := range map[string]bool{"true": true, "false": false, "True": false, "": false} {
		hc := newHC()
		hc.Annotations = map[string]string{hcov1.DeployOVSAnnotation: value}
		nac, err := cnao.Build(hc, env)
		require.NoError(t, err)
		assert.Equal(t, want, nac.Spec.Ovs != nil, "deployOVS=%q", value)
	}
	nac, err := cnao.Build(newHC(), env)
	require.NoError(t, err)
	assert.Nil(t, nac.Spec.Ovs, "no annotation, no OvS")
}

func TestSSPTemplatesNamespaceFallbacks(t *testing.T) {
	sspCR, err := ssp.Build(newHC(), hco.Facts{})
	require.NoError(t, err)
	assert.Equal(t, "openshift", sspCR.Spec.CommonTemplates.Namespace)
	sspCR, err = ssp.Build(newHC(), hco.Facts{Environment: hco.Environment{CommonTemplatesNamespace: "kubevirt-os-images"}})
	require.NoError(t, err)
	assert.Equal(t, "kubevirt-os-images", sspCR.Spec.CommonTemplates.Namespace)
}

// The seeds' jsonpatch examples, one per patchable operand, through the
// library's one path (hco.DesiredObjects).
func TestJSONPatchAnnotations(t *testing.T) {
	hc := fullHC()
	hc.Annotations = map[string]string{
		hcov1.KubeVirtJSONPatchAnnotation: `[{"op": "add", "path": "/spec/configuration/migrations", "value": {"allowPostCopy": true}}]`,
		hcov1.CDIJSONPatchAnnotation:      `[{"op": "add", "path": "/spec/config/uploadProxyURLOverride", "value": "proxy.example.com"}]`,
		hcov1.CNAOJSONPatchAnnotation:     `[{"op": "add", "path": "/spec/kubeMacPool", "value": {"rangeStart": "1.1.1.1.1.1", "rangeEnd": "5.5.5.5.5.5"}}]`,
		hcov1.SSPJSONPatchAnnotation:      `[{"op": "add", "path": "/spec/templateValidator/replicas", "value": 5}]`,
		hcov1.HPPJSONPatchAnnotation:      `[{"op": "add", "path": "/spec/pathConfig", "value": {"path": "/var/other"}}]`,
	}
	desired := func(op hco.Operand, into client.Object) client.Object {
		t.Helper()
		objs, err := hco.DesiredObjects(op, hc, env)
		require.NoError(t, err, op.Name())
		require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(objs[0].Object, into))
		return into
	}

	kv := desired(kubevirt.New(), &kvv1.KubeVirt{}).(*kvv1.KubeVirt)
	m := kv.Spec.Configuration.MigrationConfiguration
	assert.True(t, *m.AllowPostCopy)
	assert.Equal(t, "64Mi", m.BandwidthPerMigration.String(), "decoded over the object built, as upstream: the live migration settings stay")
	assert.Equal(t, int64(800), *m.CompletionTimeoutPerGiB)

	cdiCR := desired(cdi.New(), &cdiv1beta1.CDI{}).(*cdiv1beta1.CDI)
	assert.Equal(t, "proxy.example.com", *cdiCR.Spec.Config.UploadProxyURLOverride)

	nac := desired(cnao.New(), &cnaov1.NetworkAddonsConfig{}).(*cnaov1.NetworkAddonsConfig)
	assert.Equal(t, "1.1.1.1.1.1", nac.Spec.KubeMacPool.RangeStart)

	sspCR := desired(ssp.New(), &sspv1beta3.SSP{}).(*sspv1beta3.SSP)
	assert.Equal(t, int32(5), *sspCR.Spec.TemplateValidator.Replicas)

	hppCR := desired(hpp.New(), &hppv1beta1.HostPathProvisioner{}).(*hppv1beta1.HostPathProvisioner)
	assert.Equal(t, "/var/other", hppCR.Spec.PathConfig.Path)

	for _, op := range registry(t).Operands() {
		if p, ok := op.(hco.JSONPatcher); ok {
			assert.Contains(t, hc.Annotations, p.JSONPatchAnnotation(), op.Name())
		}
	}
}

func TestBadInputNamesTheFieldAndBuildsNothing(t *testing.T) {
	hc := newHC()
	hc.Spec.Virtualization.LiveMigrationConfig.BandwidthPerMigration = ptr("lots")
	objs, err := hco.Render(registry(t), hc, env)
	require.Error(t, err)
	assert.Nil(t, objs)
	assert.Contains(t, err.Error(), "operand kubevirt: spec.virtualization.liveMigrationConfig.bandwidthPerMigration")

	hc = newHC()
	hc.Annotations = map[string]string{hcov1.CDIJSONPatchAnnotation: `[{"op":"add","path":"/metadata/name","value":"x"}]`}
	_, err = hco.Render(registry(t), hc, env)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "operand cdi: annotation \"containerizeddataimporter.kubevirt.io/jsonpatch\", operation 0")
}

func TestStatusMapping(t *testing.T) {
	kvObs := &kvv1.KubeVirt{Status: kvv1.KubeVirtStatus{
		ObservedKubeVirtVersion: "v1.9.0",
		Conditions: []kvv1.KubeVirtCondition{
			{Type: kvv1.KubeVirtConditionAvailable, Status: corev1.ConditionTrue},
			{Type: kvv1.KubeVirtConditionProgressing, Status: corev1.ConditionFalse},
			{Type: kvv1.KubeVirtConditionDegraded, Status: corev1.ConditionFalse},
		},
	}}
	v1 := []conditionsv1.Condition{{Type: "Available", Status: corev1.ConditionFalse, Reason: "Deploying", Message: "waiting"}}
	tests := []struct {
		op       hco.Operand
		observed client.Object
		kind     string
		version  string
	}{
		{kubevirt.New(), kvObs, "KubeVirt", "v1.9.0"},
		{cdi.New(), &cdiv1beta1.CDI{Status: cdiv1beta1.CDIStatus{}}, "CDI", ""},
		{cnao.New(), &cnaov1.NetworkAddonsConfig{Status: cnaov1.NetworkAddonsConfigStatus{Conditions: v1, ObservedVersion: "v0.99"}}, "NetworkAddonsConfig", "v0.99"},
		{ssp.New(), &sspv1beta3.SSP{}, "SSP", ""},
		{hpp.New(), &hppv1beta1.HostPathProvisioner{Status: hppv1beta1.HostPathProvisionerStatus{Conditions: v1}}, "HostPathProvisioner", ""},
	}
	for _, tc := range tests {
		t.Run(tc.kind, func(t *testing.T) {
			s := tc.op.Status([]client.Object{tc.observed})
			assert.Equal(t, tc.kind, s.Kind)
			assert.Equal(t, tc.version, s.ObservedVersion)
			nf := tc.op.Status(nil)
			assert.Equal(t, hcostatus.ReasonNotFound, nf.Available.Reason)
			nf = tc.op.Status([]client.Object{nil})
			assert.Equal(t, hcostatus.ReasonNotFound, nf.Available.Reason)
		})
	}
	s := kubevirt.New().Status([]client.Object{kvObs})
	assert.Equal(t, metav1.ConditionTrue, s.Available.Status)
	s = cnao.New().Status([]client.Object{tests[2].observed})
	assert.Equal(t, hcostatus.ComponentCondition{Status: metav1.ConditionFalse, Reason: "Deploying", Message: "waiting"}, s.Available)
}

func TestDesiredIsDeterministicAndDoesNotModifyTheHyperConverged(t *testing.T) {
	hc := fullHC()
	before := hc.DeepCopy()
	a, err := hco.Render(registry(t), hc, env)
	require.NoError(t, err)
	b, err := hco.Render(registry(t), hc, env)
	require.NoError(t, err)
	assert.Equal(t, a, b)
	assert.Equal(t, before, hc)
}

func BenchmarkRenderAll(b *testing.B) {
	r := registry(b)
	hc := fullHC()
	hc.Annotations[hcov1.KubeVirtJSONPatchAnnotation] = `[{"op": "add", "path": "/spec/configuration/migrations/allowPostCopy", "value": true}]`
	b.ReportAllocs()
	for b.Loop() {
		if _, err := hco.Render(r, hc, env); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRenderAllNoPatch(b *testing.B) {
	r := registry(b)
	hc := fullHC()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := hco.Render(r, hc, env); err != nil {
			b.Fatal(err)
		}
	}
}
