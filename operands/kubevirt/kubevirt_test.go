package kubevirt_test

import (
	"testing"

	ocpconfigv1 "github.com/openshift/api/config/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kvv1 "kubevirt.io/api/core/v1"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/nodefacts"
	"github.com/hcokit/hcokit/operands/kubevirt"
	"github.com/hcokit/hcokit/tlsprofile"
)

func ptr[T any](v T) *T { return &v }

var env = hco.Facts{Environment: hco.Environment{Namespace: hcov1.DefaultNamespace, Version: "1.0.0"}}

// fieldCase sets one field in each version and checks the KubeVirt CR.
type fieldCase struct {
	name  string
	v1    func(*hcov1.HyperConverged)
	beta  func(*v1beta1.HyperConverged)
	check func(*testing.T, *kvv1.KubeVirt)
	// facts, when set, are the facts the CR is built with instead of env.
	facts *hco.Facts
}

// run builds the KubeVirt CR from the v1 object and from the v1beta1 object
// converted to the hub, and checks both.
func run(t *testing.T, cases []fieldCase) {
	t.Helper()
	for _, tc := range cases {
		facts := env
		if tc.facts != nil {
			facts = *tc.facts
		}
		t.Run(tc.name+"/v1", func(t *testing.T) {
			hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: hcov1.DefaultNamespace}}
			hcov1.Default(hc)
			tc.v1(hc)
			kv, err := kubevirt.Build(hc, facts)
			require.NoError(t, err)
			tc.check(t, kv)
		})
		t.Run(tc.name+"/v1beta1", func(t *testing.T) {
			old := &v1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: v1beta1.HyperConvergedName, Namespace: v1beta1.DefaultNamespace}}
			v1beta1.Default(old)
			tc.beta(old)
			hub := &hcov1.HyperConverged{}
			require.NoError(t, old.ConvertTo(hub))
			kv, err := kubevirt.Build(hub, facts)
			require.NoError(t, err)
			tc.check(t, kv)
		})
	}
}

func cfg(kv *kvv1.KubeVirt) *kvv1.KubeVirtConfiguration { return &kv.Spec.Configuration }

func TestFields(t *testing.T) {
	modern := &ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileModernType, Modern: &ocpconfigv1.ModernTLSProfile{}}
	ksm := &kvv1.KSMConfiguration{NodeLabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"ksm": "on"}}}
	cbt := &kvv1.ChangedBlockTrackingSelectors{VirtualMachineLabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"cbt": "on"}}}
	lu := &kvv1.LiveUpdateConfiguration{MaxCpuSockets: ptr(uint32(8))}
	hv := []kvv1.HypervisorConfiguration{{Name: "hyperv-direct"}}
	manual := kvv1.RoleAggregationStrategy("Manual")
	it := &kvv1.InstancetypeConfiguration{ReferencePolicy: ptr(kvv1.Reference)}
	cit := &kvv1.CommonInstancetypesDeployment{Enabled: ptr(false)}
	lv := &kvv1.LogVerbosity{VirtAPI: 5, VirtHandler: 3}
	binding := map[string]kvv1.InterfaceBindingPlugin{"passt": {SidecarImage: "passt:1"}}

	run(t, []fieldCase{
		{
			name: "tlsSecurityProfile unset is Intermediate",
			v1:   func(*hcov1.HyperConverged) {}, beta: func(*v1beta1.HyperConverged) {},
			check: func(t *testing.T, kv *kvv1.KubeVirt) {
				assert.Equal(t, kvv1.VersionTLS12, cfg(kv).TLSConfiguration.MinTLSVersion)
				assert.Contains(t, cfg(kv).TLSConfiguration.Ciphers, "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256")
			},
		},
		{
			name: "tlsSecurityProfile Modern",
			v1:   func(hc *hcov1.HyperConverged) { hc.Spec.Security.TLSSecurityProfile = modern },
			beta: func(hc *v1beta1.HyperConverged) { hc.Spec.TLSSecurityProfile = modern },
			check: func(t *testing.T, kv *kvv1.KubeVirt) {
				assert.Equal(t, &kvv1.TLSConfiguration{MinTLSVersion: kvv1.VersionTLS13}, cfg(kv).TLSConfiguration)
			},
		},
		{
			name: "evictionStrategy unset is LiveMigrate",
			v1:   func(*hcov1.HyperConverged) {}, beta: func(*v1beta1.HyperConverged) {},
			check: func(t *testing.T, kv *kvv1.KubeVirt) {
				assert.Equal(t, kvv1.EvictionStrategyLiveMigrate, *cfg(kv).EvictionStrategy)
			},
		},
		{
			name: "evictionStrategy None",
			v1: func(hc *hcov1.HyperConverged) {
				hc.Spec.Virtualization.EvictionStrategy = ptr(kvv1.EvictionStrategyNone)
			},
			beta: func(hc *v1beta1.HyperConverged) { hc.Spec.EvictionStrategy = ptr(kvv1.EvictionStrategyNone) },
			check: func(t *testing.T, kv *kvv1.KubeVirt) {
				assert.Equal(t, kvv1.EvictionStrategyNone, *cfg(kv).EvictionStrategy)
			},
		},
		{
			name: "virtualMachineOptions",
			v1: func(hc *hcov1.HyperConverged) {
				hc.Spec.Virtualization.VirtualMachineOptions.DisableFreePageReporting = ptr(true)
				hc.Spec.Virtualization.VirtualMachineOptions.DisableSerialConsoleLog = ptr(true)
			},
			beta: func(hc *v1beta1.HyperConverged) {
				hc.Spec.VirtualMachineOptions = &v1beta1.VirtualMachineOptions{DisableFreePageReporting: ptr(true), DisableSerialConsoleLog: ptr(true)}
			},
			check: func(t *testing.T, kv *kvv1.KubeVirt) {
				assert.Equal(t, &kvv1.VirtualMachineOptions{DisableFreePageReporting: &kvv1.DisableFreePageReporting{}, DisableSerialConsoleLog: &kvv1.DisableSerialConsoleLog{}}, cfg(kv).VirtualMachineOptions)
			},
		},
		{
			name: "memoryOvercommitPercentage",
			v1: func(hc *hcov1.HyperConverged) {
				hc.Spec.Virtualization.HigherWorkloadDensity.MemoryOvercommitPercentage = 150
			},
			beta: func(hc *v1beta1.HyperConverged) {
				hc.Spec.HigherWorkloadDensity = &v1beta1.HigherWorkloadDensityConfiguration{MemoryOvercommitPercentage: 150}
			},
			check: func(t *testing.T, kv *kvv1.KubeVirt) {
				assert.Equal(t, 150, cfg(kv).DeveloperConfiguration.MemoryOvercommit)
			},
		},
		{
			name:  "liveUpdateConfiguration",
			v1:    func(hc *hcov1.HyperConverged) { hc.Spec.Virtualization.LiveUpdateConfiguration = lu },
			beta:  func(hc *v1beta1.HyperConverged) { hc.Spec.LiveUpdateConfiguration = lu },
			check: func(t *testing.T, kv *kvv1.KubeVirt) { assert.Equal(t, lu, cfg(kv).LiveUpdateConfiguration) },
		},
		{
			name:  "ksmConfiguration",
			v1:    func(hc *hcov1.HyperConverged) { hc.Spec.Virtualization.KSMConfiguration = ksm },
			beta:  func(hc *v1beta1.HyperConverged) { hc.Spec.KSMConfiguration = ksm },
			check: func(t *testing.T, kv *kvv1.KubeVirt) { assert.Equal(t, ksm, cfg(kv).KSMConfiguration) },
		},
		{
			name: "ksmConfiguration unset is empty, as upstream stores it at creation",
			v1:   func(*hcov1.HyperConverged) {},
			beta: func(*v1beta1.HyperConverged) {},
			check: func(t *testing.T, kv *kvv1.KubeVirt) {
				assert.Equal(t, &kvv1.KSMConfiguration{}, cfg(kv).KSMConfiguration)
			},
		},
		{
			name: "changedBlockTrackingLabelSelectors",
			v1:   func(hc *hcov1.HyperConverged) { hc.Spec.Virtualization.ChangedBlockTrackingLabelSelectors = cbt },
			beta: func(hc *v1beta1.HyperConverged) { hc.Spec.ChangedBlockTrackingLabelSelectors = cbt },
			check: func(t *testing.T, kv *kvv1.KubeVirt) {
				assert.Equal(t, cbt, cfg(kv).ChangedBlockTrackingLabelSelectors)
			},
		},
		{
			name: "hypervisors",
			v1:   func(hc *hcov1.HyperConverged) { hc.Spec.Virtualization.Hypervisors = hv },
			beta: func(hc *v1beta1.HyperConverged) { hc.Spec.Hypervisors = hv },
			check: func(t *testing.T, kv *kvv1.KubeVirt) {
				assert.Equal(t, hv, cfg(kv).Hypervisors)
				assert.Contains(t, cfg(kv).DeveloperConfiguration.FeatureGates, "ConfigurableHypervisor")
			},
		},
		{
			name: "roleAggregationStrategy",
			v1:   func(hc *hcov1.HyperConverged) { hc.Spec.Virtualization.RoleAggregationStrategy = &manual },
			beta: func(hc *v1beta1.HyperConverged) { hc.Spec.RoleAggregationStrategy = &manual },
			check: func(t *testing.T, kv *kvv1.KubeVirt) {
				assert.Equal(t, manual, *cfg(kv).RoleAggregationStrategy)
				assert.Contains(t, cfg(kv).DeveloperConfiguration.FeatureGates, "OptOutRoleAggregation")
				assert.NotContains(t, cfg(kv).DeveloperConfiguration.DisabledFeatureGates, "OptOutRoleAggregation")
			},
		},
		{
			name: "tuningPolicy annotation",
			v1: func(hc *hcov1.HyperConverged) {
				hc.Spec.Virtualization.TuningPolicy = hcov1.TuningPolicyAnnotation
				hc.Annotations = map[string]string{kubevirt.TuningPolicyAnnotation: `{"qps": 100, "burst": 200}`}
			},
			beta: func(hc *v1beta1.HyperConverged) {
				hc.Spec.TuningPolicy = hcov1.TuningPolicyAnnotation
				hc.Annotations = map[string]string{kubevirt.TuningPolicyAnnotation: `{"qps": 100, "burst": 200}`}
			},
			check: func(t *testing.T, kv *kvv1.KubeVirt) {
				want := &kvv1.ReloadableComponentConfiguration{RestClient: &kvv1.RESTClientConfiguration{
					RateLimiter: &kvv1.RateLimiter{TokenBucketRateLimiter: &kvv1.TokenBucketRateLimiter{QPS: 100, Burst: 200}}}}
				for _, got := range []*kvv1.ReloadableComponentConfiguration{cfg(kv).APIConfiguration, cfg(kv).WebhookConfiguration, cfg(kv).ControllerConfiguration, cfg(kv).HandlerConfiguration} {
					assert.Equal(t, want, got)
				}
			},
		},
		{
			name: "mediatedDevicesConfiguration.enabled false",
			v1: func(hc *hcov1.HyperConverged) {
				hc.Spec.Virtualization.MediatedDevicesConfiguration = &hcov1.MediatedDevicesConfiguration{Enabled: ptr(false)}
			},
			beta: func(hc *v1beta1.HyperConverged) {
				hc.Spec.MediatedDevicesConfiguration = &v1beta1.MediatedDevicesConfiguration{Enabled: ptr(false)}
			},
			check: func(t *testing.T, kv *kvv1.KubeVirt) { assert.False(t, *cfg(kv).MediatedDevicesConfiguration.Enabled) },
		},
		{
			name: "vmStateStorageClass",
			v1: func(hc *hcov1.HyperConverged) {
				hc.Spec.Storage = &hcov1.StorageConfig{VMStateStorageClass: ptr("tpm")}
			},
			beta:  func(hc *v1beta1.HyperConverged) { hc.Spec.VMStateStorageClass = ptr("tpm") },
			check: func(t *testing.T, kv *kvv1.KubeVirt) { assert.Equal(t, "tpm", cfg(kv).VMStateStorageClass) },
		},
		{
			name: "persistentReservation gate",
			v1:   func(hc *hcov1.HyperConverged) { hc.Spec.FeatureGates.Set("persistentReservation", true) },
			beta: func(hc *v1beta1.HyperConverged) { hc.Spec.FeatureGates.PersistentReservation = ptr(true) },
			check: func(t *testing.T, kv *kvv1.KubeVirt) {
				// As upstream at 03da3cf: the configuration only, not
				// KubeVirt's deprecated PersistentReservation gate.
				assert.NotContains(t, cfg(kv).DeveloperConfiguration.FeatureGates, "PersistentReservation")
				assert.True(t, *cfg(kv).PersistentReservationConfiguration.Enabled)
			},
		},
		{
			name: "persistentReservationConfiguration.enabled false is passed on",
			v1: func(hc *hcov1.HyperConverged) {
				hc.Spec.Storage = &hcov1.StorageConfig{PersistentReservationConfiguration: &hcov1.PersistentReservationConfiguration{Enabled: ptr(false)}}
			},
			beta: func(hc *v1beta1.HyperConverged) {
				hc.Spec.PersistentReservationConfiguration = &hcov1.PersistentReservationConfiguration{Enabled: ptr(false)}
			},
			check: func(t *testing.T, kv *kvv1.KubeVirt) {
				require.NotNil(t, cfg(kv).PersistentReservationConfiguration)
				assert.False(t, *cfg(kv).PersistentReservationConfiguration.Enabled)
			},
		},
		{
			name: "networkBinding, plus l2bridge",
			v1:   func(hc *hcov1.HyperConverged) { hc.Spec.Networking = &hcov1.NetworkingConfig{NetworkBinding: binding} },
			beta: func(hc *v1beta1.HyperConverged) { hc.Spec.NetworkBinding = binding },
			check: func(t *testing.T, kv *kvv1.KubeVirt) {
				b := cfg(kv).NetworkConfiguration.Binding
				assert.Equal(t, binding["passt"], b["passt"])
				assert.Equal(t, kvv1.InterfaceBindingPlugin{DomainAttachmentType: kvv1.ManagedTap, Migration: &kvv1.InterfaceBindingMigration{}}, b["l2bridge"])
			},
		},
		{
			name:  "instancetypeConfig",
			v1:    func(hc *hcov1.HyperConverged) { hc.Spec.WorkloadSources.InstancetypeConfig = it },
			beta:  func(hc *v1beta1.HyperConverged) { hc.Spec.InstancetypeConfig = it },
			check: func(t *testing.T, kv *kvv1.KubeVirt) { assert.Equal(t, it, cfg(kv).Instancetype) },
		},
		{
			name:  "commonInstancetypesDeployment",
			v1:    func(hc *hcov1.HyperConverged) { hc.Spec.WorkloadSources.CommonInstancetypesDeployment = cit },
			beta:  func(hc *v1beta1.HyperConverged) { hc.Spec.CommonInstancetypesDeployment = cit },
			check: func(t *testing.T, kv *kvv1.KubeVirt) { assert.Equal(t, cit, cfg(kv).CommonInstancetypesDeployment) },
		},
		{
			name: "logVerbosityConfig.kubevirt",
			v1: func(hc *hcov1.HyperConverged) {
				hc.Spec.Deployment.LogVerbosityConfig = &hcov1.LogVerbosityConfiguration{Kubevirt: lv}
			},
			beta: func(hc *v1beta1.HyperConverged) {
				hc.Spec.LogVerbosityConfig = &hcov1.LogVerbosityConfiguration{Kubevirt: lv}
			},
			check: func(t *testing.T, kv *kvv1.KubeVirt) {
				assert.Equal(t, lv, cfg(kv).DeveloperConfiguration.LogVerbosity)
			},
		},
		{
			name: "alignCPUs sets the annotation",
			v1:   func(hc *hcov1.HyperConverged) { hc.Spec.FeatureGates.Set("alignCPUs", true) },
			beta: func(hc *v1beta1.HyperConverged) { hc.Spec.FeatureGates.AlignCPUs = ptr(true) },
			check: func(t *testing.T, kv *kvv1.KubeVirt) {
				assert.Contains(t, kv.Annotations, kvv1.EmulatorThreadCompleteToEvenParity)
				assert.Contains(t, cfg(kv).DeveloperConfiguration.FeatureGates, "AlignCPUs")
			},
		},
		{
			name: "incrementalBackup",
			v1:   func(hc *hcov1.HyperConverged) { hc.Spec.FeatureGates.Set("incrementalBackup", true) },
			beta: func(hc *v1beta1.HyperConverged) {
				hc.Spec.FeatureGates.Others = map[string]bool{"incrementalBackup": true}
			},
			check: func(t *testing.T, kv *kvv1.KubeVirt) {
				assert.Subset(t, cfg(kv).DeveloperConfiguration.FeatureGates, []string{"IncrementalBackup", "UtilityVolumes"})
			},
		},
	})
}

func TestV1BetaGateDefaults(t *testing.T) {
	hc := &hcov1.HyperConverged{}
	hcov1.Default(hc)
	kv, err := kubevirt.Build(hc, env)
	require.NoError(t, err)
	gates := kv.Spec.Configuration.DeveloperConfiguration.FeatureGates
	assert.Subset(t, gates, []string{"DecentralizedLiveMigration", "DeclarativeHotplugVolumes", "Template"})
	assert.NotContains(t, gates, "HotplugVolumes")
	assert.NotContains(t, gates, "VideoConfig", "graduated: upstream's v1 no longer lists videoConfig")
	assert.NotContains(t, kv.Spec.Configuration.DeveloperConfiguration.DisabledFeatureGates, "Template")
	assert.NotContains(t, kv.Annotations, kvv1.EmulatorThreadCompleteToEvenParity)
}

// Fields that come from the HyperConverged's annotations and namespace, and
// from the node facts, rather than its spec, in both versions.
func TestGatesFromAnnotationsAndNodes(t *testing.T) {
	annotate := func(m map[string]string) map[string]string {
		if m == nil {
			m = map[string]string{}
		}
		m["hco.kubevirt.io/deployPasstNetworkBinding"] = "true"
		m["hco.kubevirt.io/deployAIE"] = "true"
		return m
	}
	run(t, []fieldCase{
		{
			name: "passt and AIE annotations",
			v1:   func(hc *hcov1.HyperConverged) { hc.Annotations = annotate(hc.Annotations) },
			beta: func(hc *v1beta1.HyperConverged) { hc.Annotations = annotate(hc.Annotations) },
			check: func(t *testing.T, kv *kvv1.KubeVirt) {
				assert.Subset(t, cfg(kv).DeveloperConfiguration.FeatureGates, []string{"PasstBinding", "GraceIOVirtualization", "IOMMUFD", "PCINUMAAwareTopology"})
				assert.NotContains(t, cfg(kv).DeveloperConfiguration.DisabledFeatureGates, "PasstBinding")
			},
		},
		{
			name: "s390x workload nodes",
			v1:   func(*hcov1.HyperConverged) {}, beta: func(*v1beta1.HyperConverged) {},
			facts: &hco.Facts{Environment: env.Environment, Nodes: &nodefacts.Facts{WorkloadArchitectures: []string{"amd64", "s390x"}}},
			check: func(t *testing.T, kv *kvv1.KubeVirt) {
				assert.Contains(t, cfg(kv).DeveloperConfiguration.FeatureGates, "SecureExecution")
			},
		},
		{
			name: "template False",
			v1:   func(hc *hcov1.HyperConverged) { hc.Spec.FeatureGates.Set("template", false) },
			beta: func(hc *v1beta1.HyperConverged) { hc.Spec.FeatureGates.Others = map[string]bool{"template": false} },
			check: func(t *testing.T, kv *kvv1.KubeVirt) {
				assert.NotContains(t, cfg(kv).DeveloperConfiguration.FeatureGates, "Template")
				assert.Contains(t, cfg(kv).DeveloperConfiguration.DisabledFeatureGates, "Template", "a Beta gate not asked for is disabled")
			},
		},
		{
			name: "videoConfig is graduated: no KubeVirt gate either way",
			v1:   func(hc *hcov1.HyperConverged) { hc.Spec.FeatureGates.Set("videoConfig", true) },
			beta: func(hc *v1beta1.HyperConverged) { hc.Spec.FeatureGates.Others = map[string]bool{"videoConfig": true} },
			check: func(t *testing.T, kv *kvv1.KubeVirt) {
				assert.NotContains(t, cfg(kv).DeveloperConfiguration.FeatureGates, "VideoConfig")
				assert.NotContains(t, cfg(kv).DeveloperConfiguration.DisabledFeatureGates, "VideoConfig", "GA in KubeVirt v1.9.0")
			},
		},
		{
			name: "serviceMonitorNamespace is the HyperConverged's",
			v1:   func(*hcov1.HyperConverged) {}, beta: func(*v1beta1.HyperConverged) {},
			check: func(t *testing.T, kv *kvv1.KubeVirt) {
				assert.Equal(t, hcov1.DefaultNamespace, kv.Spec.ServiceMonitorNamespace)
				assert.NotContains(t, cfg(kv).DeveloperConfiguration.FeatureGates, "PasstBinding")
				assert.Contains(t, cfg(kv).DeveloperConfiguration.DisabledFeatureGates, "PasstBinding")
				assert.NotContains(t, cfg(kv).DeveloperConfiguration.FeatureGates, "SecureExecution")
			},
		},
	})
}

// SMBIOS and the machine types come from the operator's environment, as
// upstream's deploy/operator.yaml passes them.
func TestEnvironmentSMBIOSAndMachineTypes(t *testing.T) {
	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: hcov1.DefaultNamespace}}
	hcov1.Default(hc)
	kv, err := kubevirt.Build(hc, env)
	require.NoError(t, err)
	assert.Nil(t, cfg(kv).SMBIOSConfig, "unset: KubeVirt's own")
	assert.Nil(t, cfg(kv).ArchitectureConfiguration, "unset: KubeVirt's own")

	e := env
	e.SMBIOS = "Family: KubeVirt\nManufacturer: KubeVirt\nProduct: None"
	e.MachineTypes = map[string]string{"amd64": "pc-q35-rhel9.6.0", "s390x": " s390-ccw-virtio-rhel9.6.0 ", "ppc64le": "ignored"}
	kv, err = kubevirt.Build(hc, e)
	require.NoError(t, err)
	assert.Equal(t, &kvv1.SMBiosConfiguration{Family: "KubeVirt", Manufacturer: "KubeVirt", Product: "None"}, cfg(kv).SMBIOSConfig)
	assert.Equal(t, &kvv1.ArchConfiguration{
		Amd64: &kvv1.ArchSpecificConfiguration{MachineType: "pc-q35-rhel9.6.0", EmulatedMachines: []string{"q35*", "pc-q35*"}},
		S390x: &kvv1.ArchSpecificConfiguration{MachineType: "s390-ccw-virtio-rhel9.6.0", EmulatedMachines: []string{"s390-ccw-virtio*"}},
	}, cfg(kv).ArchitectureConfiguration)

	e.MachineTypes = map[string]string{"arm64": "virt-rhel9.6.0"}
	kv, err = kubevirt.Build(hc, e)
	require.NoError(t, err)
	assert.Equal(t, &kvv1.ArchConfiguration{
		Arm64: &kvv1.ArchSpecificConfiguration{MachineType: "virt-rhel9.6.0", EmulatedMachines: []string{"virt*"}},
	}, cfg(kv).ArchitectureConfiguration)

	s, err := kubevirt.SMBIOS(`{"sku": "1", "version": "2"}`)
	require.NoError(t, err)
	assert.Equal(t, &kvv1.SMBiosConfiguration{Sku: "1", Version: "2"}, s, "JSON works too")
	_, err = kubevirt.SMBIOS("Famly: KubeVirt")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Famly")
	e.SMBIOS = "Famly: KubeVirt"
	_, err = kubevirt.Build(hc, e)
	assert.Error(t, err, "a bad SMBIOS is an error, not ignored")
}

func TestTuningPolicyErrors(t *testing.T) {
	for _, ann := range []map[string]string{nil, {kubevirt.TuningPolicyAnnotation: `{"qps": 100}`}, {kubevirt.TuningPolicyAnnotation: `{"burst": 1}`}, {kubevirt.TuningPolicyAnnotation: `x`}} {
		_, err := kubevirt.RateLimits(hcov1.TuningPolicyAnnotation, ann)
		assert.Error(t, err, "%v", ann)
	}
	r, err := kubevirt.RateLimits(hcov1.TuningPolicyHighBurst, nil)
	assert.NoError(t, err)
	assert.Nil(t, r, "highBurst sets nothing, as upstream's v1")
}

func TestEvictionStrategySeam(t *testing.T) {
	assert.Equal(t, kvv1.EvictionStrategyNone, *kubevirt.EvictionStrategy(nil, ptr(false)))
	assert.Equal(t, kvv1.EvictionStrategyLiveMigrate, *kubevirt.EvictionStrategy(nil, ptr(true)))
	assert.Equal(t, kvv1.EvictionStrategyExternal, *kubevirt.EvictionStrategy(ptr(kvv1.EvictionStrategyExternal), ptr(false)))
}

// TestInfraFollowsTheControlPlane: KubeVirt's spec.infra as upstream builds
// it from the node facts.
func TestInfraFollowsTheControlPlane(t *testing.T) {
	yes, no := true, false
	one := uint8(1)
	placed := &kvv1.ComponentConfig{NodePlacement: &kvv1.NodePlacement{NodeSelector: map[string]string{"infra": "yes"}}}
	status := func(cpHA, infraHA *bool, cpArchs ...string) *nodefacts.Facts {
		if cpHA == nil {
			return nil
		}
		f := &nodefacts.Facts{ControlPlane: len(cpArchs), Workers: 1, ControlPlaneArchitectures: cpArchs}
		if *cpHA {
			f.ControlPlane = 3
		}
		if *infraHA {
			f.Workers = 2
		}
		return f
	}
	for _, tc := range []struct {
		name   string
		infra  *kvv1.ComponentConfig
		status *nodefacts.Facts
		want   *kvv1.ComponentConfig
	}{
		{name: "no node facts (render): KubeVirt's defaults", status: status(nil, nil)},
		{name: "no node facts, a placement: as placed", infra: placed, status: status(nil, nil), want: placed},
		{name: "highly available control plane: KubeVirt's defaults", status: status(&yes, &yes, "amd64")},
		{name: "highly available control plane, a placement: as placed", infra: placed, status: status(&yes, &no, "amd64"), want: placed},
		{name: "one control-plane node: one replica", status: status(&no, &yes, "amd64"), want: &kvv1.ComponentConfig{Replicas: &one}},
		{name: "one control-plane node, a placement: one replica, as placed", infra: placed, status: status(&no, &no, "amd64"),
			want: &kvv1.ComponentConfig{NodePlacement: placed.NodePlacement, Replicas: &one}},
		{name: "no control-plane node, two workers: anywhere", status: status(&no, &yes), want: &kvv1.ComponentConfig{NodePlacement: &kvv1.NodePlacement{}}},
		{name: "no control-plane node, one worker: anywhere, one replica", status: status(&no, &no),
			want: &kvv1.ComponentConfig{NodePlacement: &kvv1.NodePlacement{}, Replicas: &one}},
		{name: "no control-plane node, a placement: one replica, as placed", infra: placed, status: status(&no, &yes),
			want: &kvv1.ComponentConfig{NodePlacement: placed.NodePlacement, Replicas: &one}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.infra.DeepCopy()
			assert.Equal(t, tc.want, kubevirt.InfraForControlPlane(in, tc.status))
		})
	}

	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: hcov1.DefaultNamespace}}
	hcov1.Default(hc)
	kv, err := kubevirt.Build(hc, hco.Facts{Nodes: status(&no, &yes, "amd64")})
	require.NoError(t, err)
	assert.Equal(t, &one, kv.Spec.Infra.Replicas, "Build applies it")
	assert.Nil(t, kv.Spec.Workloads, "the workloads are not the control plane's")
}

// TestFactsAreAnArgument: node facts and the cluster's TLS profile reach the
// KubeVirt CR as the facts argument, with no status on the HyperConverged.
func TestFactsAreAnArgument(t *testing.T) {
	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: hcov1.DefaultNamespace}}
	hcov1.Default(hc)
	require.Equal(t, hcov1.HyperConvergedStatus{}, hc.Status)
	old := ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileOldType, Old: &ocpconfigv1.OldTLSProfile{}}
	facts := hco.Facts{
		Environment:       env.Environment,
		Nodes:             &nodefacts.Facts{Workers: 1, ControlPlane: 1, WorkloadArchitectures: []string{"s390x"}, ControlPlaneArchitectures: []string{"amd64"}},
		ClusterTLSProfile: &old,
	}
	objs, err := kubevirt.New().Desired(hc, facts)
	require.NoError(t, err)
	kv := objs[0].(*kvv1.KubeVirt)
	assert.Equal(t, kvv1.EvictionStrategyNone, *cfg(kv).EvictionStrategy, "one worker")
	assert.Equal(t, ptr(uint8(1)), kv.Spec.Infra.Replicas, "one control-plane node")
	assert.Contains(t, cfg(kv).DeveloperConfiguration.FeatureGates, "SecureExecution", "s390x workload nodes")
	assert.Equal(t, tlsprofile.ForKubeVirt(&old), cfg(kv).TLSConfiguration, "the cluster's profile")
	assert.Equal(t, hcov1.HyperConvergedStatus{}, hc.Status, "nothing written into the HyperConverged")

	hc.Spec.Security.TLSSecurityProfile = &ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileModernType, Modern: &ocpconfigv1.ModernTLSProfile{}}
	objs, err = kubevirt.New().Desired(hc, facts)
	require.NoError(t, err)
	assert.Equal(t, tlsprofile.ForKubeVirt(hc.Spec.Security.TLSSecurityProfile), cfg(objs[0].(*kvv1.KubeVirt)).TLSConfiguration, "the HyperConverged's profile wins")

	objs, err = kubevirt.New().Desired(hc, hco.OfflineFacts(env.Environment))
	require.NoError(t, err)
	assert.Equal(t, kvv1.EvictionStrategyLiveMigrate, *cfg(objs[0].(*kvv1.KubeVirt)).EvictionStrategy, "unknown nodes: highly available")
	assert.Nil(t, objs[0].(*kvv1.KubeVirt).Spec.Infra)
}

// The node facts' default architecture is KubeVirt's, beside the machine
// types or alone, as upstream's getArchConfiguration (03da3cf) sets it.
func TestDefaultArchitectureFromTheNodes(t *testing.T) {
	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: hcov1.DefaultNamespace}}
	hcov1.Default(hc)
	f := env
	f.Nodes = &nodefacts.Facts{Workers: 2, WorkloadArchitectures: []string{"arm64"}, DefaultArchitecture: "arm64"}
	kv, err := kubevirt.Build(hc, f)
	require.NoError(t, err)
	assert.Equal(t, &kvv1.ArchConfiguration{DefaultArchitecture: "arm64"}, cfg(kv).ArchitectureConfiguration)

	f.MachineTypes = map[string]string{"arm64": "virt-rhel9.6.0"}
	kv, err = kubevirt.Build(hc, f)
	require.NoError(t, err)
	assert.Equal(t, &kvv1.ArchConfiguration{DefaultArchitecture: "arm64",
		Arm64: &kvv1.ArchSpecificConfiguration{MachineType: "virt-rhel9.6.0", EmulatedMachines: []string{"virt*"}}}, cfg(kv).ArchitectureConfiguration)
}
