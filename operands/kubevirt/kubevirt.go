package kubevirt

import (
	"encoding/json"
	"fmt"
	"k8s.io/apimachinery/pkg/runtime"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kvv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/featuregates"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hcostatus"
	"github.com/hcokit/hcokit/hostdevices"
	"github.com/hcokit/hcokit/migration"
	"github.com/hcokit/hcokit/nodefacts"
	"github.com/hcokit/hcokit/operands/netresinjector"
	"github.com/hcokit/hcokit/placement"
	"github.com/hcokit/hcokit/tlsprofile"
)

// Name is the operand's registry name.
const Name = "kubevirt"

// CRName is the name of the KubeVirt CR the operand owns.
const CRName = "kubevirt-kubevirt-hyperconverged"

// SeccompProfile is the localhost seccomp profile KubeVirt installs and VMI
// pods use.
const SeccompProfile = "kubevirt/kubevirt.json"

// obsoleteCPUModels are CPU models that VMs are kept off, whatever the
// HyperConverged adds to them.
var obsoleteCPUModels = []string{
	"486", "486-v1", "pentium", "pentium-v1", "pentium2", "pentium2-v1", "pentium3", "pentium3-v1",
	"pentiumpro", "pentiumpro-v1", "coreduo", "coreduo-v1", "n270", "n270-v1", "core2duo", "core2duo-v1",
	"Conroe", "Conroe-v1", "athlon", "athlon-v1", "phenom", "phenom-v1", "qemu64", "qemu64-v1",
	"qemu32", "qemu32-v1", "kvm64", "kvm64-v1", "kvm32", "kvm32-v1",
	"Opteron_G1", "Opteron_G1-v1", "Opteron_G2", "Opteron_G2-v1",
}

// diskVerificationMemoryLimit caps the memory of containerDisk verification.
var diskVerificationMemoryLimit = resource.MustParse("2G")

// Operand builds the KubeVirt CR.
type Operand struct{}

var (
	_ hco.Operand         = Operand{}
	_ hco.JSONPatcher     = Operand{}
	_ hco.DeletionOrderer = Operand{}
)

// New returns the KubeVirt operand.
func New() Operand { return Operand{} }

// Name implements hco.Operand.
func (Operand) Name() string { return Name }

// JSONPatchAnnotation implements hco.JSONPatcher.
func (Operand) JSONPatchAnnotation() string { return hcov1.KubeVirtJSONPatchAnnotation }

// Kinds implements hco.Operand.
func (Operand) Kinds() []client.Object {
	return []client.Object{&kvv1.KubeVirt{TypeMeta: metav1.TypeMeta{APIVersion: kvv1.GroupVersion.String(), Kind: "KubeVirt"}}}
}

// Desired implements hco.Operand: the KubeVirt CR for hc. The jsonpatch
// annotation is applied by the library (hco.DesiredObjects), not here.
func (Operand) Desired(hc *hcov1.HyperConverged, facts hco.Facts) ([]client.Object, error) {
	spec := &hc.Spec
	migrations, err := migration.ForKubeVirt(spec.Virtualization.LiveMigrationConfig)
	if err != nil {
		return nil, err
	}
	config, err := configuration(hc, facts)
	if err != nil {
		return nil, err
	}
	config.MigrationConfiguration = migrations
	infra, workloads := placement.ForKubeVirt(spec.InfraPlacement(), spec.WorkloadPlacement())
	infra = InfraForControlPlane(infra, facts.Nodes)

	kv := &kvv1.KubeVirt{
		ObjectMeta: metav1.ObjectMeta{
			Name:        CRName,
			Namespace:   hc.Namespace,
			Labels:      hco.Labels(hc, facts.Environment, hco.ComponentCompute),
			Annotations: annotations(spec),
		},
		Spec: kvv1.KubeVirtSpec{
			UninstallStrategy:           uninstallStrategy(spec.Deployment.UninstallStrategy),
			Infra:                       infra,
			Workloads:                   workloads,
			Configuration:               *config,
			CertificateRotationStrategy: certRotation(spec.Security.CertConfig),
			WorkloadUpdateStrategy:      workloadUpdateStrategy(spec.Virtualization.WorkloadUpdateStrategy),
			ProductName:                 hco.PartOfValue,
			ProductVersion:              facts.Version,
			ProductComponent:            hco.ComponentCompute,
			// Upstream has KubeVirt's ServiceMonitor in its own namespace.
			ServiceMonitorNamespace: hc.Namespace,
		},
	}
	return []client.Object{kv}, nil
}

// Build returns the KubeVirt CR for hc, typed: Desired's one object.
func Build(hc *hcov1.HyperConverged, facts hco.Facts) (*kvv1.KubeVirt, error) {
	objs, err := Operand{}.Desired(hc, facts)
	if err != nil {
		return nil, err
	}
	return objs[0].(*kvv1.KubeVirt), nil
}

// annotations are the KubeVirt CR's annotations: alignCPUs also asks
// KubeVirt to complete dedicated CPUs to an even count, as upstream does.
func annotations(spec *hcov1.HyperConvergedSpec) map[string]string {
	if !featuregates.Enabled(spec.FeatureGates, featuregates.GateAlignCPUs) {
		return nil
	}
	return map[string]string{kvv1.EmulatorThreadCompleteToEvenParity: ""}
}

// configuration is the KubeVirt configuration for hc but its migrations
// (Desired sets them).
func configuration(hc *hcov1.HyperConverged, facts hco.Facts) (*kvv1.KubeVirtConfiguration, error) {
	spec := &hc.Spec
	virt := &spec.Virtualization
	devices, err := hostdevices.ForKubeVirt(virt.PermittedHostDevices)
	if err != nil {
		return nil, err
	}
	rates, err := RateLimits(virt.TuningPolicy, hc.Annotations)
	if err != nil {
		return nil, err
	}
	gates := featuregates.ForKubeVirt(spec.FeatureGates, featuregates.OptionsFor(hc, facts.KVMEmulation, workloadArchitectures(facts.Nodes), netresinjector.Ready(facts)))
	smbios, err := SMBIOS(facts.SMBIOS)
	if err != nil {
		return nil, err
	}
	dev := &kvv1.DeveloperConfiguration{
		FeatureGates:         gates,
		DisabledFeatureGates: featuregates.DisabledForKubeVirt(gates),
		DiskVerification:     &kvv1.DiskVerification{MemoryLimit: ptr(diskVerificationMemoryLimit.DeepCopy())},
		UseEmulation:         facts.KVMEmulation,
	}
	if d := virt.HigherWorkloadDensity; d != nil {
		dev.MemoryOvercommit = d.MemoryOvercommitPercentage
	}
	if lv := spec.Deployment.LogVerbosityConfig; lv != nil && lv.Kubevirt != nil {
		dev.LogVerbosity = lv.Kubevirt.DeepCopy()
	}
	c := &kvv1.KubeVirtConfiguration{
		DeveloperConfiguration: dev,
		NetworkConfiguration: &kvv1.NetworkConfiguration{
			NetworkInterface: string(kvv1.MasqueradeInterface),
			Binding:          NetworkBindings(spec.Networking),
		},
		PermittedHostDevices:               devices,
		MediatedDevicesConfiguration:       mediatedDevices(spec),
		ObsoleteCPUModels:                  obsoleteCPUs(virt.ObsoleteCPUModels),
		TLSConfiguration:                   tlsprofile.ForKubeVirt(tlsprofile.Resolve(spec.Security.TLSSecurityProfile, facts.ClusterTLSProfile)),
		APIConfiguration:                   rates.DeepCopy(),
		WebhookConfiguration:               rates.DeepCopy(),
		ControllerConfiguration:            rates.DeepCopy(),
		HandlerConfiguration:               rates.DeepCopy(),
		EvictionStrategy:                   EvictionStrategy(virt.EvictionStrategy, infrastructureHighlyAvailable(facts.Nodes)),
		KSMConfiguration:                   ksmConfiguration(virt.KSMConfiguration),
		ChangedBlockTrackingLabelSelectors: virt.ChangedBlockTrackingLabelSelectors.DeepCopy(),
		LiveUpdateConfiguration:            virt.LiveUpdateConfiguration.DeepCopy(),
		VirtualMachineOptions:              virtualMachineOptions(virt.VirtualMachineOptions),
		Instancetype:                       spec.WorkloadSources.InstancetypeConfig.DeepCopy(),
		CommonInstancetypesDeployment:      spec.WorkloadSources.CommonInstancetypesDeployment.DeepCopy(),
		RoleAggregationStrategy:            copyPtr(virt.RoleAggregationStrategy),
		SeccompConfiguration: &kvv1.SeccompConfiguration{
			VirtualMachineInstanceProfile: &kvv1.VirtualMachineInstanceProfile{
				CustomProfile: &kvv1.CustomProfile{LocalhostProfile: ptr(SeccompProfile)},
			},
		},
		VMRolloutStrategy:         ptr(kvv1.VMRolloutStrategyLiveUpdate),
		SMBIOSConfig:              smbios,
		ArchitectureConfiguration: ArchitectureConfiguration(facts.MachineTypes, defaultArchitecture(facts.Nodes)),
	}
	for _, h := range virt.Hypervisors {
		c.Hypervisors = append(c.Hypervisors, *h.DeepCopy())
	}
	if enabled, set := featuregates.PersistentReservationEnabled(spec); set {
		c.PersistentReservationConfiguration = &kvv1.PersistentReservationConfiguration{Enabled: ptr(enabled)}
	}
	if s := spec.Storage; s != nil && s.VMStateStorageClass != nil {
		c.VMStateStorageClass = *s.VMStateStorageClass
	}
	if o := virt.VirtualMachineOptions; o != nil {
		if o.DefaultCPUModel != nil {
			c.CPUModel = *o.DefaultCPUModel
		}
		if o.DefaultRuntimeClass != nil {
			c.DefaultRuntimeClass = *o.DefaultRuntimeClass
		}
	}
	if r := virt.VmiCPUAllocationRatio; r != nil {
		if *r < 1 {
			return nil, fmt.Errorf("spec.virtualization.vmiCPUAllocationRatio: %d is not allowed; use 1 or more (default 10)", *r)
		}
		dev.CPUAllocationRatio = *r
	}
	c.AutoCPULimitNamespaceLabelSelector = virt.AutoCPULimitNamespaceLabelSelector.DeepCopy()
	return c, nil
}

// mediatedDevices is KubeVirt's mediatedDevicesConfiguration: the types,
// and enabled: false when mediatedDevicesConfiguration.enabled (or the
// deprecated disableMDevConfiguration gate) turns handling off. An explicit
// enabled: true is passed on as well.
func mediatedDevices(spec *hcov1.HyperConvergedSpec) *kvv1.MediatedDevicesConfiguration {
	out := hostdevices.MediatedDevicesForKubeVirt(spec.Virtualization.MediatedDevicesConfiguration)
	enabled, set := featuregates.MediatedDevicesEnabled(spec)
	if !set {
		return out
	}
	if out == nil {
		out = &kvv1.MediatedDevicesConfiguration{}
	}
	out.Enabled = ptr(enabled)
	return out
}

// ksmConfiguration is KubeVirt's ksmConfiguration: the HyperConverged's,
// and an empty one (no node label selector: KSM on no node) when it has
// none, which is what upstream HCO's mutating webhook stores in every
// HyperConverged it sees created (pkg/webhooks/mutator at 03da3cf).
func ksmConfiguration(c *kvv1.KSMConfiguration) *kvv1.KSMConfiguration {
	if c == nil {
		return &kvv1.KSMConfiguration{}
	}
	return c.DeepCopy()
}

// virtualMachineOptions turns the two switches into KubeVirt's empty marker
// structs; nil when neither is on.
func virtualMachineOptions(o *hcov1.VirtualMachineOptions) *kvv1.VirtualMachineOptions {
	if o == nil {
		return nil
	}
	var out kvv1.VirtualMachineOptions
	if o.DisableFreePageReporting != nil && *o.DisableFreePageReporting {
		out.DisableFreePageReporting = &kvv1.DisableFreePageReporting{}
	}
	if o.DisableSerialConsoleLog != nil && *o.DisableSerialConsoleLog {
		out.DisableSerialConsoleLog = &kvv1.DisableSerialConsoleLog{}
	}
	if out.DisableFreePageReporting == nil && out.DisableSerialConsoleLog == nil {
		return nil
	}
	return &out
}

// SMBIOS parses the operator's SMBIOS setting (hco.Environment.SMBIOS,
// YAML or JSON with KubeVirt's field names) into KubeVirt's
// configuration.smbios; nil when it is empty. An unknown field is an error.
func SMBIOS(raw string) (*kvv1.SMBiosConfiguration, error) {
	if strings.TrimSpace(raw) == "" {
		return nil, nil
	}
	out := &kvv1.SMBiosConfiguration{}
	if err := yaml.UnmarshalStrict([]byte(raw), out); err != nil {
		return nil, fmt.Errorf("SMBIOS %q: %w; use YAML or JSON with family, manufacturer, product, sku and version", raw, err)
	}
	return out, nil
}

// The emulated machines upstream HCO sets for an architecture it has a
// machine type for. It sets no ovmfPath, leaving KubeVirt's (upstream's
// #4521, at 03da3cf).
var emulatedMachines = map[string][]string{
	"amd64": {"q35*", "pc-q35*"},
	"arm64": {"virt*"},
	"s390x": {"s390-ccw-virtio*"},
}

// ArchitectureConfiguration returns KubeVirt's
// configuration.architectureConfiguration for the default machine types by
// architecture (hco.Environment.MachineTypes): for each of amd64, arm64 and
// s390x with a machine type, that machine type with upstream HCO's
// emulated machines; and defaultArch (nodefacts.Facts.DefaultArchitecture)
// as defaultArchitecture. nil when there is neither; other architectures'
// machine types are ignored.
func ArchitectureConfiguration(machineTypes map[string]string, defaultArch string) *kvv1.ArchConfiguration {
	arch := func(name string) *kvv1.ArchSpecificConfiguration {
		m := strings.TrimSpace(machineTypes[name])
		if m == "" {
			return nil
		}
		return &kvv1.ArchSpecificConfiguration{MachineType: m, EmulatedMachines: slices.Clone(emulatedMachines[name])}
	}
	out := &kvv1.ArchConfiguration{Amd64: arch("amd64"), Arm64: arch("arm64"), S390x: arch("s390x"), DefaultArchitecture: defaultArch}
	if out.Amd64 == nil && out.Arm64 == nil && out.S390x == nil && defaultArch == "" {
		return nil
	}
	return out
}

// defaultArchitecture is the node facts' default architecture; empty
// without node facts (render).
func defaultArchitecture(nodes *nodefacts.Facts) string {
	if nodes == nil {
		return ""
	}
	return nodes.DefaultArchitecture
}

// PrimaryUDNBinding is the network binding upstream HCO always registers,
// for the primary user-defined network.
const PrimaryUDNBinding = "l2bridge"

// NetworkBindings returns KubeVirt's network.binding: the HyperConverged's
// spec.networking.networkBinding plus the l2bridge binding, which upstream
// always registers (and which overrides an entry of the same name).
func NetworkBindings(n *hcov1.NetworkingConfig) map[string]kvv1.InterfaceBindingPlugin {
	out := map[string]kvv1.InterfaceBindingPlugin{}
	if n != nil {
		for name, b := range n.NetworkBinding {
			out[name] = *b.DeepCopy()
		}
	}
	out[PrimaryUDNBinding] = kvv1.InterfaceBindingPlugin{
		DomainAttachmentType: kvv1.ManagedTap,
		Migration:            &kvv1.InterfaceBindingMigration{},
	}
	return out
}

// EvictionStrategy returns KubeVirt's evictionStrategy: the HyperConverged's
// when set; otherwise None on a cluster with a single worker node and
// LiveMigrate on any other, as upstream HCO does.
//
// highlyAvailable is the node facts' InfrastructureHighlyAvailable; nil
// (node facts unknown, as in an offline render) means LiveMigrate.
func EvictionStrategy(set *kvv1.EvictionStrategy, highlyAvailable *bool) *kvv1.EvictionStrategy {
	if set != nil {
		return ptr(*set)
	}
	if highlyAvailable != nil && !*highlyAvailable {
		return ptr(kvv1.EvictionStrategyNone)
	}
	return ptr(kvv1.EvictionStrategyLiveMigrate)
}

// TuningPolicyAnnotation on the HyperConverged holds the API client rate
// limits of KubeVirt's components, as JSON {"qps": 100, "burst": 200}, for
// spec.virtualization.tuningPolicy: annotation.
const TuningPolicyAnnotation = "hco.kubevirt.io/tuningPolicy"

// RateLimits returns the rate limits KubeVirt's components (API server,
// webhook, controller, handler) get for the tuning policy: for
// "annotation", qps and burst from [TuningPolicyAnnotation], both required
// and positive; nil otherwise. As upstream HCO's v1 does, the deprecated
// "highBurst" sets nothing, leaving KubeVirt's defaults.
func RateLimits(policy hcov1.HyperConvergedTuningPolicy, annotations map[string]string) (*kvv1.ReloadableComponentConfiguration, error) {
	if policy != hcov1.TuningPolicyAnnotation {
		return nil, nil
	}
	raw, ok := annotations[TuningPolicyAnnotation]
	if !ok {
		return nil, fmt.Errorf("spec.virtualization.tuningPolicy is %q but the annotation %s is missing; set it to {\"qps\": N, \"burst\": M}", policy, TuningPolicyAnnotation)
	}
	var rates struct {
		QPS   float32 `json:"qps"`
		Burst int     `json:"burst"`
	}
	if err := json.Unmarshal([]byte(raw), &rates); err != nil {
		return nil, fmt.Errorf("annotation %s: %w", TuningPolicyAnnotation, err)
	}
	if rates.QPS <= 0 {
		return nil, fmt.Errorf("annotation %s: qps must be set and greater than 0", TuningPolicyAnnotation)
	}
	if rates.Burst <= 0 {
		return nil, fmt.Errorf("annotation %s: burst must be set and greater than 0", TuningPolicyAnnotation)
	}
	return &kvv1.ReloadableComponentConfiguration{RestClient: &kvv1.RESTClientConfiguration{
		RateLimiter: &kvv1.RateLimiter{TokenBucketRateLimiter: &kvv1.TokenBucketRateLimiter{QPS: rates.QPS, Burst: rates.Burst}},
	}}, nil
}

func obsoleteCPUs(extra []string) map[string]bool {
	m := make(map[string]bool, len(obsoleteCPUModels)+len(extra))
	for _, c := range obsoleteCPUModels {
		m[c] = true
	}
	for _, c := range extra {
		m[c] = true
	}
	return m
}

func uninstallStrategy(s hcov1.HyperConvergedUninstallStrategy) kvv1.KubeVirtUninstallStrategy {
	if s == hcov1.UninstallStrategyRemoveWorkloads {
		return kvv1.KubeVirtUninstallStrategyRemoveWorkloads
	}
	return kvv1.KubeVirtUninstallStrategyBlockUninstallIfWorkloadsExist
}

func certRotation(c hcov1.HyperConvergedCertConfig) kvv1.KubeVirtCertificateRotateStrategy {
	return kvv1.KubeVirtCertificateRotateStrategy{SelfSigned: &kvv1.KubeVirtSelfSignConfiguration{
		CA:     &kvv1.CertConfig{Duration: c.CA.Duration.DeepCopy(), RenewBefore: c.CA.RenewBefore.DeepCopy()},
		Server: &kvv1.CertConfig{Duration: c.Server.Duration.DeepCopy(), RenewBefore: c.Server.RenewBefore.DeepCopy()},
	}}
}

func workloadUpdateStrategy(w hcov1.HyperConvergedWorkloadUpdateStrategy) kvv1.KubeVirtWorkloadUpdateStrategy {
	out := kvv1.KubeVirtWorkloadUpdateStrategy{
		BatchEvictionSize:     copyPtr(w.BatchEvictionSize),
		BatchEvictionInterval: w.BatchEvictionInterval.DeepCopy(),
	}
	for _, m := range w.WorkloadUpdateMethods {
		out.WorkloadUpdateMethods = append(out.WorkloadUpdateMethods, kvv1.WorkloadUpdateMethod(m))
	}
	return out
}

// Status implements hco.Operand.
func (Operand) Status(observed []client.Object) hcostatus.Component {
	if len(observed) == 0 {
		return hcostatus.NotFound("KubeVirt")
	}
	kv, ok := observed[0].(*kvv1.KubeVirt)
	if !ok || kv == nil {
		return hcostatus.NotFound("KubeVirt")
	}
	conds := make([]hcostatus.OperandCondition, 0, len(kv.Status.Conditions))
	for _, c := range kv.Status.Conditions {
		conds = append(conds, hcostatus.OperandCondition{Type: string(c.Type), Status: string(c.Status), Reason: c.Reason, Message: c.Message})
	}
	return hcostatus.FromConditions("KubeVirt", conds, kv.Status.ObservedKubeVirtVersion)
}

func ptr[T any](v T) *T { return &v }

func copyPtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// DeletionOrder implements hco.DeletionOrderer: KubeVirt goes after the
// other operands and before CDI.
func (Operand) DeletionOrder() int { return 10 }

// InfraForControlPlane adapts KubeVirt's spec.infra (infra, from the infra
// placement) to the cluster's control plane (nodes), as upstream HCO does:
// without three control-plane nodes (or two and an arbiter) KubeVirt's
// control plane runs one replica; without any control-plane node and
// without an infra placement, an empty placement lets it run anywhere (one
// replica unless there are two workers). Unknown node facts (nil, as in an
// offline render) are taken for a highly available cluster, which leaves
// KubeVirt's defaults. A control-plane node is known by its architecture.
func InfraForControlPlane(infra *kvv1.ComponentConfig, nodes *nodefacts.Facts) *kvv1.ComponentConfig {
	controlPlaneHA := nodes == nil || nodes.ControlPlaneHighlyAvailable()
	if infra == nil && controlPlaneHA {
		return nil
	}
	out := infra
	if out == nil {
		out = &kvv1.ComponentConfig{}
	}
	if infra == nil && nodes != nil && len(nodes.ControlPlaneArchitectures) == 0 {
		out.NodePlacement = &kvv1.NodePlacement{}
		if !nodes.InfrastructureHighlyAvailable() {
			out.Replicas = ptr[uint8](1)
		}
		return out
	}
	if !controlPlaneHA {
		out.Replicas = ptr[uint8](1)
	}
	return out
}

// infrastructureHighlyAvailable is the node facts' rule, nil while unknown.
func infrastructureHighlyAvailable(nodes *nodefacts.Facts) *bool {
	if nodes == nil {
		return nil
	}
	return ptr(nodes.InfrastructureHighlyAvailable())
}

// workloadArchitectures are the architectures VMs can run on, nil while unknown.
func workloadArchitectures(nodes *nodefacts.Facts) []string {
	if nodes == nil {
		return nil
	}
	return nodes.WorkloadArchitectures
}

// AddToScheme implements hco.SchemeAdder: kubevirt.io/v1 types.
func (Operand) AddToScheme(s *runtime.Scheme) error { return kvv1.AddToScheme(s) }
