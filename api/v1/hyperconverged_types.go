package v1

import (
	"slices"
	"strings"

	ocpconfigv1 "github.com/openshift/api/config/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kvv1 "kubevirt.io/api/core/v1"
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
)

// HyperConverged is the single entry point and single source of truth for the
// virtualization stack. The operator creates and keeps in sync the custom
// resources of the component operators from it.
//
// +kubebuilder:object:root=true
// +kubebuilder:storageversion
// +kubebuilder:resource:scope=Namespaced,categories={all},shortName={hco,hcos}
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="Available",type=string,JSONPath=`.status.conditions[?(@.type=="Available")].status`
// +kubebuilder:printcolumn:name="Progressing",type=string,JSONPath=`.status.conditions[?(@.type=="Progressing")].status`
// +kubebuilder:printcolumn:name="Degraded",type=string,JSONPath=`.status.conditions[?(@.type=="Degraded")].status`
type HyperConverged struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// The defaults are upstream HCO's (commit 03da3cf), with the seeds' live
	// migration limits.
	// +kubebuilder:default={"security": {"certConfig": {"ca": {"duration": "48h0m0s", "renewBefore": "24h0m0s"}, "server": {"duration": "24h0m0s", "renewBefore": "12h0m0s"}}}, "virtualization": {"liveMigrationConfig": {"completionTimeoutPerGiB": 800, "parallelMigrationsPerCluster": 5, "parallelOutboundMigrationsPerNode": 2, "progressTimeout": 150, "bandwidthPerMigration": "64Mi", "allowAutoConverge": false, "allowPostCopy": false}, "virtualMachineOptions": {"disableFreePageReporting": false, "disableSerialConsoleLog": false}, "vmiCPUAllocationRatio": 10}, "workloadSources": {"enableCommonBootImageImport": true}, "deployment": {"uninstallStrategy": "BlockUninstallIfWorkloadsExist", "deployVmConsoleProxy": false, "deployNetworkResourcesInjector": true, "applicationAwareConfig": {"enable": false}}}
	// +optional
	Spec   HyperConvergedSpec   `json:"spec,omitempty"`
	Status HyperConvergedStatus `json:"status,omitempty"`
}

// HyperConvergedList is a list of HyperConverged.
//
// +kubebuilder:object:root=true
type HyperConvergedList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []HyperConverged `json:"items"`
}

// HyperConvergedSpec is the admin's desired configuration of the stack,
// grouped by concern.
type HyperConvergedSpec struct {
	// FeatureGates enables or disables features that are not generally
	// available. Each entry names a gate; "state" is Enabled (the default
	// when omitted) or Disabled. A gate that is not listed has its phase's
	// default: beta gates are on, alpha and deprecated ones off. Unknown
	// names are accepted, so YAML written for another version still applies;
	// they are ignored, and the validating webhook answers with a warning
	// naming them.
	// +optional
	FeatureGates FeatureGates `json:"featureGates,omitempty"`

	// Virtualization configures KubeVirt: live migration, host devices,
	// workload updates, CPU models and VM defaults.
	// +kubebuilder:default={"liveMigrationConfig": {"completionTimeoutPerGiB": 800, "parallelMigrationsPerCluster": 5, "parallelOutboundMigrationsPerNode": 2, "progressTimeout": 150, "bandwidthPerMigration": "64Mi", "allowAutoConverge": false, "allowPostCopy": false, "allowWorkloadDisruption": false}, "virtualMachineOptions": {"disableFreePageReporting": false, "disableSerialConsoleLog": false}, "vmiCPUAllocationRatio": 10}
	// +optional
	Virtualization VirtualizationConfig `json:"virtualization,omitempty"`

	// Storage configures CDI and, in hcokit, the hostpath provisioner.
	// +optional
	Storage *StorageConfig `json:"storage,omitempty"`

	// Networking configures the cluster network addons.
	// +optional
	Networking *NetworkingConfig `json:"networking,omitempty"`

	// WorkloadSources configures where VM templates and boot images come from.
	// +optional
	WorkloadSources WorkloadSourcesConfig `json:"workloadSources,omitempty"`

	// Security holds the rotation policy of the internal certificates.
	// +kubebuilder:default={"certConfig": {"ca": {"duration": "48h0m0s", "renewBefore": "24h0m0s"}, "server": {"duration": "24h0m0s", "renewBefore": "12h0m0s"}}}
	// +optional
	Security SecurityConfig `json:"security,omitempty"`

	// Deployment says where the components run and what happens on uninstall.
	// +kubebuilder:default={"uninstallStrategy": "BlockUninstallIfWorkloadsExist", "deployVmConsoleProxy": false, "deployNetworkResourcesInjector": true, "applicationAwareConfig": {"enable": false}}
	// +optional
	Deployment DeploymentConfig `json:"deployment,omitempty"`

	// Observability configures the virt-observability-controller: which
	// alerts, recording rules and workload metrics it creates, as upstream
	// HCO's. The observability operand passes it to the controller, which it
	// deploys while the deployObservabilityController gate is enabled.
	// +optional
	Observability *ObservabilityConfig `json:"observability,omitempty"`
}

// ObservabilityConfig filters what the observability controller creates.
type ObservabilityConfig struct {
	// Workloads filters the workload metrics.
	// +optional
	Workloads *ObservabilityWorkloadsConfig `json:"workloads,omitempty"`

	// AllowedAlerts are the alert rule names to create; unset: all. "none"
	// alone creates none.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:XValidation:rule="(self.size() <= 1) || !self.exists(r, (r == 'none'))",message="'none' cannot be combined with other values"
	AllowedAlerts []string `json:"allowedAlerts,omitempty"`

	// AllowedRecordingRules are the recording rule names to create; unset:
	// all. "none" alone creates none.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:XValidation:rule="(self.size() <= 1) || !self.exists(r, (r == 'none'))",message="'none' cannot be combined with other values"
	AllowedRecordingRules []string `json:"allowedRecordingRules,omitempty"`
}

// ObservabilityWorkloadsConfig filters the workload metrics.
type ObservabilityWorkloadsConfig struct {
	// AllowedMetrics are the metric names to expose; unset: all. "none"
	// alone exposes none.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:XValidation:rule="(self.size() <= 1) || !self.exists(r, (r == 'none'))",message="'none' cannot be combined with other values"
	AllowedMetrics []string `json:"allowedMetrics,omitempty"`
}

// FeatureGateState is Enabled or Disabled.
// +kubebuilder:validation:Enum=Enabled;Disabled
type FeatureGateState string

const (
	// FeatureGateEnabled turns a gate on; an entry without a state means the same.
	FeatureGateEnabled FeatureGateState = "Enabled"
	// FeatureGateDisabled turns a gate off.
	FeatureGateDisabled FeatureGateState = "Disabled"
)

// FeatureGate is one entry of spec.featureGates: a gate's name and, when it
// is not Enabled, its state.
type FeatureGate struct {
	// Name of the gate, e.g. "downwardMetrics".
	// +kubebuilder:validation:MaxLength=256
	Name string `json:"name"`
	// State is Enabled (the default when omitted) or Disabled.
	// +kubebuilder:validation:Enum=Enabled;Disabled
	// +optional
	State *FeatureGateState `json:"state,omitempty"`
}

// IsEnabled reports whether the entry turns its gate on: a missing state
// reads as Enabled.
func (g FeatureGate) IsEnabled() bool {
	return g.State == nil || *g.State == FeatureGateEnabled
}

// FeatureGates is the list of spec.featureGates: at most one entry per
// name, compared case-insensitively, as upstream HCO's.
//
// +kubebuilder:validation:MaxItems=64
// +kubebuilder:validation:XValidation:rule="self.all(x, self.exists_one(y, x.name.lowerAscii() == y.name.lowerAscii()))",message="feature gate names must be unique (case-insensitive)"
type FeatureGates []FeatureGate

// Index returns the position of the entry called name, compared
// case-insensitively, or -1.
func (gs FeatureGates) Index(name string) int {
	return slices.IndexFunc(gs, func(g FeatureGate) bool { return strings.EqualFold(g.Name, name) })
}

// Lookup returns whether the gate called name is listed and, if it is,
// whether its entry turns it on. It knows no gate's default (a beta gate is
// on when not listed): to read what a gate means, use featuregates.Enabled.
func (gs FeatureGates) Lookup(name string) (enabled, listed bool) {
	i := gs.Index(name)
	if i < 0 {
		return false, false
	}
	return gs[i].IsEnabled(), true
}

// Set lists the gate called name with an explicit state, adding an entry
// when none exists (as upstream's Enable and Disable do).
func (gs *FeatureGates) Set(name string, enabled bool) {
	state := FeatureGateDisabled
	if enabled {
		state = FeatureGateEnabled
	}
	if i := gs.Index(name); i >= 0 {
		(*gs)[i].State = &state
		return
	}
	*gs = append(*gs, FeatureGate{Name: name, State: &state})
}

// Remove deletes the entry called name, if any.
func (gs *FeatureGates) Remove(name string) {
	if i := gs.Index(name); i >= 0 {
		*gs = slices.Delete(*gs, i, i+1)
	}
}

// VirtualizationConfig configures KubeVirt.
//
// +kubebuilder:validation:XValidation:rule="!has(self.vmiCPUAllocationRatio) || self.vmiCPUAllocationRatio > 0",message="vmiCPUAllocationRatio must be greater than 0"
type VirtualizationConfig struct {
	// TuningPolicy sets KubeVirt's API client rate limits: "annotation"
	// takes qps and burst from the annotation hco.kubevirt.io/tuningPolicy;
	// "highBurst" (deprecated upstream) raises them. Unset: KubeVirt's defaults.
	// +kubebuilder:validation:Enum=annotation;highBurst
	// +optional
	TuningPolicy HyperConvergedTuningPolicy `json:"tuningPolicy,omitempty"`

	// LiveMigrationConfig holds the limits and timeouts applied to live
	// migrations so that they do not overwhelm the cluster.
	// +kubebuilder:default={"completionTimeoutPerGiB": 800, "parallelMigrationsPerCluster": 5, "parallelOutboundMigrationsPerNode": 2, "progressTimeout": 150, "bandwidthPerMigration": "64Mi", "allowAutoConverge": false, "allowPostCopy": false, "allowWorkloadDisruption": false}
	// +optional
	LiveMigrationConfig LiveMigrationConfigurations `json:"liveMigrationConfig,omitempty"`

	// PermittedHostDevices lists the host devices that virtual machines may use.
	// It replaces KubeVirt's list as a whole.
	// +optional
	PermittedHostDevices *PermittedHostDevices `json:"permittedHostDevices,omitempty"`

	// MediatedDevicesConfiguration says which mediated device types are
	// created on the nodes.
	// +optional
	MediatedDevicesConfiguration *MediatedDevicesConfiguration `json:"mediatedDevicesConfiguration,omitempty"`

	// WorkloadUpdateStrategy says how running VMs are updated after a KubeVirt update.
	// +kubebuilder:default={"workloadUpdateMethods": {"LiveMigrate"}, "batchEvictionSize": 10, "batchEvictionInterval": "1m0s"}
	// +optional
	WorkloadUpdateStrategy HyperConvergedWorkloadUpdateStrategy `json:"workloadUpdateStrategy,omitempty"`

	// ObsoleteCPUModels are added to the operator's built-in list of obsolete
	// CPU models, which the node labeller does not advertise.
	// +listType=set
	// +optional
	ObsoleteCPUModels []string `json:"obsoleteCPUModels,omitempty"`

	// VirtualMachineOptions are cluster defaults of every virtual machine.
	// +kubebuilder:default={"disableFreePageReporting": false, "disableSerialConsoleLog": false}
	// +optional
	VirtualMachineOptions *VirtualMachineOptions `json:"virtualMachineOptions,omitempty"`

	// HigherWorkloadDensity holds settings that raise VM density.
	// +kubebuilder:default={"memoryOvercommitPercentage": 100}
	// +optional
	HigherWorkloadDensity *HigherWorkloadDensityConfiguration `json:"higherWorkloadDensity,omitempty"`

	// VmiCPUAllocationRatio: a VMI pod requests 1/ratio of a physical CPU per
	// virtual CPU. No effect on dedicated CPUs. Default: 10.
	// +kubebuilder:default=10
	// +kubebuilder:validation:Minimum=1
	// +optional
	VmiCPUAllocationRatio *int `json:"vmiCPUAllocationRatio,omitempty"`

	// AutoCPULimitNamespaceLabelSelector sets a CPU limit equal to the vCPU
	// count on VMIs in namespaces matching the selector.
	// +optional
	AutoCPULimitNamespaceLabelSelector *metav1.LabelSelector `json:"autoCPULimitNamespaceLabelSelector,omitempty"`

	// EvictionStrategy is the cluster-wide eviction strategy of VMIs on a
	// node drain: None, LiveMigrate, LiveMigrateIfPossible or External.
	// Unset: LiveMigrate on a cluster with more than one worker node, None
	// on a single-worker cluster (upstream's rule).
	// +kubebuilder:validation:Enum=None;LiveMigrate;LiveMigrateIfPossible;External
	// +optional
	EvictionStrategy *kvv1.EvictionStrategy `json:"evictionStrategy,omitempty"`

	// LiveUpdateConfiguration holds the limits of CPU and memory hotplug.
	// +optional
	LiveUpdateConfiguration *kvv1.LiveUpdateConfiguration `json:"liveUpdateConfiguration,omitempty"`

	// KSMConfiguration enables KSM on the nodes its selector matches.
	// +optional
	KSMConfiguration *kvv1.KSMConfiguration `json:"ksmConfiguration,omitempty"`

	// ChangedBlockTrackingLabelSelectors select the VMs with changed block
	// tracking enabled (needed for incremental backups).
	// +optional
	ChangedBlockTrackingLabelSelectors *kvv1.ChangedBlockTrackingSelectors `json:"changedBlockTrackingLabelSelectors,omitempty"`

	// Hypervisors names the hypervisor VMs run on ("kvm" or "hyperv-direct");
	// at most one entry. Unset: kvm.
	// +listType=atomic
	// +kubebuilder:validation:MaxItems:=1
	// +optional
	Hypervisors []kvv1.HypervisorConfiguration `json:"hypervisors,omitempty"`

	// RoleAggregationStrategy says whether KubeVirt's cluster roles are
	// aggregated to admin, edit and view: AggregateToDefault (unset) or Manual.
	// +kubebuilder:validation:Enum=AggregateToDefault;Manual
	// +optional
	RoleAggregationStrategy *kvv1.RoleAggregationStrategy `json:"roleAggregationStrategy,omitempty"`
}

// HyperConvergedTuningPolicy is a named set of KubeVirt rate limits.
type HyperConvergedTuningPolicy string

const (
	// TuningPolicyAnnotation takes qps and burst from the annotation
	// hco.kubevirt.io/tuningPolicy.
	TuningPolicyAnnotation HyperConvergedTuningPolicy = "annotation"
	// TuningPolicyHighBurst raises the limits (deprecated upstream).
	TuningPolicyHighBurst HyperConvergedTuningPolicy = "highBurst"
)

// VirtualMachineOptions are cluster defaults of every virtual machine.
type VirtualMachineOptions struct {
	// DisableFreePageReporting turns off free page reporting of the memory
	// balloon. Accepted and stored; hcokit does not act on it yet. Default: false.
	// +kubebuilder:default=false
	// +optional
	DisableFreePageReporting *bool `json:"disableFreePageReporting,omitempty"`

	// DisableSerialConsoleLog turns off logging of the auto-attached serial
	// console. Accepted and stored; hcokit does not act on it yet. Default: false.
	// +kubebuilder:default=false
	// +optional
	DisableSerialConsoleLog *bool `json:"disableSerialConsoleLog,omitempty"`

	// DefaultCPUModel is the CPU model of a VMI that sets none. Unset: host-model.
	// +optional
	DefaultCPUModel *string `json:"defaultCPUModel,omitempty"`

	// DefaultRuntimeClass is the RuntimeClass of a VMI pod that sets none.
	// +optional
	DefaultRuntimeClass *string `json:"defaultRuntimeClass,omitempty"`
}

// HigherWorkloadDensityConfiguration holds settings that raise VM density.
type HigherWorkloadDensityConfiguration struct {
	// MemoryOvercommitPercentage is the memory a VMI sees relative to its
	// pod's. Accepted and stored; hcokit does not act on it yet. Default: 100.
	// +kubebuilder:default=100
	// +kubebuilder:validation:Minimum=10
	// +optional
	MemoryOvercommitPercentage int `json:"memoryOvercommitPercentage,omitempty"`
}

// StorageConfig configures CDI and the hostpath provisioner.
type StorageConfig struct {
	// ScratchSpaceStorageClass overrides the storage class CDI uses for scratch
	// space during imports. Unset: the default storage class, else the
	// DataVolume's, else none.
	// +optional
	ScratchSpaceStorageClass *string `json:"scratchSpaceStorageClass,omitempty"`

	// StorageImport configures CDI imports.
	// +optional
	StorageImport *StorageImportConfig `json:"storageImport,omitempty"`

	// WorkloadResourceRequirements are the resources of CDI's importer,
	// uploader and cloner pods.
	// +optional
	WorkloadResourceRequirements *corev1.ResourceRequirements `json:"workloadResourceRequirements,omitempty"`

	// HostpathProvisioner, when set, makes the operator own the
	// HostPathProvisioner CR "hostpath-provisioner". Not an upstream HCO field.
	// +optional
	HostpathProvisioner *HostpathProvisionerConfig `json:"hostpathProvisioner,omitempty"`

	// VMStateStorageClass is the storage class of the PVCs that keep VM
	// state, like a TPM's.
	// +optional
	VMStateStorageClass *string `json:"vmStateStorageClass,omitempty"`

	// FilesystemOverhead is the space CDI reserves on Filesystem volumes, a
	// fraction between 0 and 1, globally and per storage class. Unset: 0.055.
	// +optional
	FilesystemOverhead *cdiv1beta1.FilesystemOverhead `json:"filesystemOverhead,omitempty"`

	// PersistentReservationConfiguration deploys what SCSI persistent
	// reservation of LUNs needs (the pr-helper in virt-handler).
	// +optional
	PersistentReservationConfiguration *PersistentReservationConfiguration `json:"persistentReservationConfiguration,omitempty"`
}

// PersistentReservationConfiguration turns SCSI persistent reservation on.
type PersistentReservationConfiguration struct {
	// Enabled deploys the pr-helper. Default: false.
	// +optional
	Enabled *bool `json:"enabled,omitempty"`
}

// NetworkingConfig configures the cluster network addons.
type NetworkingConfig struct {
	// KubeSecondaryDNSNameServerIP is the name server IP of KubeSecondaryDNS.
	// +optional
	KubeSecondaryDNSNameServerIP *string `json:"kubeSecondaryDNSNameServerIP,omitempty"`

	// KubeMacPoolConfiguration is kubemacpool's MAC address range.
	// +optional
	KubeMacPoolConfiguration *KubeMacPoolConfig `json:"kubeMacPoolConfiguration,omitempty"`

	// NetworkBinding registers network binding plugins by name, for VM
	// interfaces to use.
	// +optional
	NetworkBinding map[string]kvv1.InterfaceBindingPlugin `json:"networkBinding,omitempty"`
}

// KubeMacPoolConfig is kubemacpool's MAC address range; both ends or neither.
//
// +kubebuilder:validation:XValidation:rule="(has(self.rangeStart) && has(self.rangeEnd)) || (!has(self.rangeStart) && !has(self.rangeEnd))",message="both rangeStart and rangeEnd must be configured together, or both omitted"
type KubeMacPoolConfig struct {
	// RangeStart is the first MAC address of the range, AA:BB:CC:DD:EE:FF.
	// +kubebuilder:validation:Pattern=`^([0-9a-fA-F]{2}:){5}[0-9a-fA-F]{2}$`
	// +optional
	RangeStart *string `json:"rangeStart,omitempty"`
	// RangeEnd is the last MAC address of the range, AA:BB:CC:DD:EE:FF.
	// +kubebuilder:validation:Pattern=`^([0-9a-fA-F]{2}:){5}[0-9a-fA-F]{2}$`
	// +optional
	RangeEnd *string `json:"rangeEnd,omitempty"`
}

// WorkloadSourcesConfig configures where templates and boot images come from.
type WorkloadSourcesConfig struct {
	// CommonTemplatesNamespace is the namespace SSP deploys the common
	// templates in. Unset: the operator's configured default ("openshift").
	// +optional
	CommonTemplatesNamespace *string `json:"commonTemplatesNamespace,omitempty"`

	// EnableCommonBootImageImport opts in to the common golden images.
	// Default: true.
	// +kubebuilder:default=true
	// +optional
	EnableCommonBootImageImport *bool `json:"enableCommonBootImageImport,omitempty"`

	// EnableMultiArchBootImageImport imports the golden images of every
	// workload node architecture, on a cluster whose nodes differ. Unset:
	// the deprecated enableMultiArchBootImageImport feature gate decides.
	// +optional
	EnableMultiArchBootImageImport *bool `json:"enableMultiArchBootImageImport,omitempty"`

	// CommonBootImageNamespace is the namespace of the common boot images
	// and their DataImportCrons. Unset: SSP's default.
	// +optional
	CommonBootImageNamespace *string `json:"commonBootImageNamespace,omitempty"`

	// DataImportCronTemplates are golden images of the admin's own, and
	// changes to (or opt-outs of) the common ones, by name.
	// +listType=atomic
	// +optional
	DataImportCronTemplates []DataImportCronTemplate `json:"dataImportCronTemplates,omitempty"`

	// InstancetypeConfig configures KubeVirt's instance types.
	// +optional
	InstancetypeConfig *kvv1.InstancetypeConfiguration `json:"instancetypeConfig,omitempty"`

	// CommonInstancetypesDeployment configures KubeVirt's deployment of the
	// common instance types and preferences.
	// +optional
	CommonInstancetypesDeployment *kvv1.CommonInstancetypesDeployment `json:"commonInstancetypesDeployment,omitempty"`
}

// DataImportCronTemplate is a DataImportCron to create: metadata.name is
// required, the namespace optional.
type DataImportCronTemplate struct {
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec *cdiv1beta1.DataImportCronSpec `json:"spec,omitempty"`
}

// SecurityConfig holds the security settings.
type SecurityConfig struct {
	// CertConfig holds the rotation policy of the internal self-signed certificates.
	// +kubebuilder:default={"ca": {"duration": "48h0m0s", "renewBefore": "24h0m0s"}, "server": {"duration": "24h0m0s", "renewBefore": "12h0m0s"}}
	// +optional
	CertConfig HyperConvergedCertConfig `json:"certConfig,omitempty"`

	// TLSSecurityProfile is the TLS profile of every component's endpoints
	// (Old, Intermediate, Modern or Custom). Unset: Intermediate.
	// +optional
	TLSSecurityProfile *ocpconfigv1.TLSSecurityProfile `json:"tlsSecurityProfile,omitempty"`
}

// DeploymentConfig says where the components run and how they are removed.
type DeploymentConfig struct {
	// NodePlacements say where the infrastructure and the workload pods run.
	// +optional
	NodePlacements *NodePlacements `json:"nodePlacements,omitempty"`

	// UninstallStrategy says what happens on deletion while workloads
	// (VirtualMachines, DataVolumes) exist. BlockUninstallIfWorkloadsExist,
	// the default, refuses the deletion; RemoveWorkloads deletes them all.
	// +kubebuilder:default=BlockUninstallIfWorkloadsExist
	// +optional
	UninstallStrategy HyperConvergedUninstallStrategy `json:"uninstallStrategy,omitempty"`

	// DeployVMConsoleProxy deploys SSP's VM console proxy. Accepted and
	// stored; hcokit does not act on it yet. Default: false.
	// +kubebuilder:default=false
	// +optional
	DeployVMConsoleProxy *bool `json:"deployVmConsoleProxy,omitempty"`

	// ApplicationAwareConfig configures Application Aware Quota. Accepted and
	// stored; hcokit has no AAQ module and does not act on it.
	// +optional
	ApplicationAwareConfig *ApplicationAwareConfigurations `json:"applicationAwareConfig,omitempty"`

	// LogVerbosityConfig sets the log verbosity of KubeVirt's and CDI's components.
	// +optional
	LogVerbosityConfig *LogVerbosityConfiguration `json:"logVerbosityConfig,omitempty"`

	// DeployNetworkResourcesInjector deploys the network-resources-injector
	// webhook, which adds the resource requests of the Multus networks a
	// virt-launcher pod names. Default: true.
	// +kubebuilder:default=true
	// +optional
	DeployNetworkResourcesInjector *bool `json:"deployNetworkResourcesInjector,omitempty"`
}

// LogVerbosityConfiguration is the log verbosity of the components.
type LogVerbosityConfiguration struct {
	// Kubevirt is the verbosity of each KubeVirt component.
	// +optional
	Kubevirt *kvv1.LogVerbosity `json:"kubevirt,omitempty"`

	// CDI is the verbosity of CDI's components.
	// +optional
	CDI *int32 `json:"cdi,omitempty"`
}

// NodePlacements say where the two classes of pods run.
type NodePlacements struct {
	// Infra: the infrastructure components, which the cluster needs for
	// virtualization but not on every node running VMs.
	// +optional
	Infra *NodePlacement `json:"infra,omitempty"`

	// Workload: the pods that must run on the nodes where virtual machines
	// run. It can be changed only while no VirtualMachine or DataVolume exists.
	// +optional
	Workload *NodePlacement `json:"workload,omitempty"`
}

// NodePlacement describes node scheduling for a class of pods.
type NodePlacement struct {
	// NodeSelector: a node must carry every one of these labels.
	// +optional
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`

	// Affinity applies in addition to NodeSelector.
	// +optional
	Affinity *corev1.Affinity `json:"affinity,omitempty"`

	// Tolerations let the pods run on nodes with matching taints.
	// +optional
	// +listType=atomic
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`
}

// ApplicationAwareConfigurations configure Application Aware Quota.
type ApplicationAwareConfigurations struct {
	// Enable turns Application Aware Quota on. Default: false.
	// +kubebuilder:default=false
	// +optional
	Enable *bool `json:"enable,omitempty"`

	// VmiCalcConfigName says how a VMI's resources count against a quota.
	// +kubebuilder:validation:Enum=VmiPodUsage;VirtualResources;DedicatedVirtualResources;IgnoreVmiCalculator;GuestEffectiveResources
	// +kubebuilder:default=DedicatedVirtualResources
	// +optional
	VmiCalcConfigName *string `json:"vmiCalcConfigName,omitempty"`

	// NamespaceSelector selects the namespaces whose pods get the scheduling gate.
	// +optional
	NamespaceSelector *metav1.LabelSelector `json:"namespaceSelector,omitempty"`

	// AllowApplicationAwareClusterResourceQuota allows ClusterAppsResourceQuota. Default: false.
	// +kubebuilder:default=false
	// +optional
	AllowApplicationAwareClusterResourceQuota *bool `json:"allowApplicationAwareClusterResourceQuota,omitempty"`
}

// HyperConvergedUninstallStrategy says what happens to workloads when the
// HyperConverged is deleted.
// +kubebuilder:validation:Enum=RemoveWorkloads;BlockUninstallIfWorkloadsExist
type HyperConvergedUninstallStrategy string

const (
	// UninstallStrategyRemoveWorkloads lets deletion cascade to every
	// VirtualMachine and DataVolume.
	UninstallStrategyRemoveWorkloads HyperConvergedUninstallStrategy = "RemoveWorkloads"
	// UninstallStrategyBlockUninstallIfWorkloadsExist refuses deletion while
	// VirtualMachines or DataVolumes exist. The default, and the safe choice.
	UninstallStrategyBlockUninstallIfWorkloadsExist HyperConvergedUninstallStrategy = "BlockUninstallIfWorkloadsExist"
)

// LiveMigrationConfigurations are the live migration limits and timeouts.
type LiveMigrationConfigurations struct {
	// ParallelMigrationsPerCluster is the number of migrations running in
	// parallel in the cluster. Default: 5.
	// +kubebuilder:default=5
	// +optional
	ParallelMigrationsPerCluster *uint32 `json:"parallelMigrationsPerCluster,omitempty"`

	// ParallelOutboundMigrationsPerNode is the maximum number of outbound
	// migrations per node. Default: 2.
	// +kubebuilder:default=2
	// +optional
	ParallelOutboundMigrationsPerNode *uint32 `json:"parallelOutboundMigrationsPerNode,omitempty"`

	// BandwidthPerMigration limits each migration, in bytes per second, as a
	// quantity: "64Mi" is 64 MiB/s. Default: 64Mi.
	// +kubebuilder:default="64Mi"
	// +kubebuilder:validation:Pattern=`^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$`
	// +optional
	BandwidthPerMigration *string `json:"bandwidthPerMigration,omitempty"`

	// CompletionTimeoutPerGiB cancels a migration that has not completed in
	// this many seconds per GiB of guest memory (and migrated disks): with 800,
	// a 6GiB VM times out after 4800 s. Default: 800.
	// +kubebuilder:default=800
	// +kubebuilder:validation:Minimum=1
	// +optional
	CompletionTimeoutPerGiB *int64 `json:"completionTimeoutPerGiB,omitempty"`

	// ProgressTimeout cancels a migration whose memory copy makes no progress
	// for this many seconds. Default: 150.
	// +kubebuilder:default=150
	// +kubebuilder:validation:Minimum=1
	// +optional
	ProgressTimeout *int64 `json:"progressTimeout,omitempty"`

	// Network is the name of a dedicated multus network for migrations.
	// +optional
	Network *string `json:"network,omitempty"`

	// AllowAutoConverge lets the platform slow a VM down to make its migration
	// converge. Default: false.
	// +kubebuilder:default=false
	// +optional
	AllowAutoConverge *bool `json:"allowAutoConverge,omitempty"`

	// AllowPostCopy lets a migration switch to post-copy when pre-copy reaches
	// its completion timeout. Default: false.
	// +kubebuilder:default=false
	// +optional
	AllowPostCopy *bool `json:"allowPostCopy,omitempty"`

	// AllowWorkloadDisruption: a migration past its completion time is not
	// cancelled; if permitted it switches to post-copy, or the VMI is paused
	// so that the migration completes. Default: false.
	// +kubebuilder:default=false
	// +optional
	AllowWorkloadDisruption *bool `json:"allowWorkloadDisruption,omitempty"`
}

// PermittedHostDevices holds the devices allowed for passthrough.
type PermittedHostDevices struct {
	// +listType=map
	// +listMapKey=pciDeviceSelector
	// +optional
	PciHostDevices []PciHostDevice `json:"pciHostDevices,omitempty"`
	// +listType=map
	// +listMapKey=mdevNameSelector
	// +optional
	MediatedDevices []MediatedHostDevice `json:"mediatedDevices,omitempty"`
	// +listType=map
	// +listMapKey=resourceName
	// +optional
	USBHostDevices []USBHostDevice `json:"usbHostDevices,omitempty"`
}

// PciHostDevice is a host PCI device allowed for passthrough.
type PciHostDevice struct {
	// PCIDeviceSelector is "VENDOR:DEVICE" in hex, e.g. "10DE:1EB8" (lspci -nn).
	// +kubebuilder:validation:Pattern=`^[0-9a-fA-F]{4}:[0-9a-fA-F]{4}$`
	PCIDeviceSelector string `json:"pciDeviceSelector"`
	// ResourceName is the name the device is advertised and requested by.
	ResourceName string `json:"resourceName"`
	// ExternalResourceProvider: an external device plugin allocates and
	// monitors the device; KubeVirt only permits it.
	// +optional
	ExternalResourceProvider bool `json:"externalResourceProvider,omitempty"`
	// Disabled keeps the entry but does not permit the device.
	// +optional
	Disabled bool `json:"disabled,omitempty"`
}

// MediatedHostDevice is a mediated device type allowed for passthrough.
type MediatedHostDevice struct {
	// MDEVNameSelector is the mediated device type name, e.g. "GRID T4-1Q".
	// +kubebuilder:validation:MinLength=1
	MDEVNameSelector string `json:"mdevNameSelector"`
	// ResourceName is the name the device is advertised and requested by.
	ResourceName string `json:"resourceName"`
	// +optional
	ExternalResourceProvider bool `json:"externalResourceProvider,omitempty"`
	// +optional
	Disabled bool `json:"disabled,omitempty"`
}

// USBHostDevice is a host USB device allowed for passthrough.
type USBHostDevice struct {
	ResourceName string `json:"resourceName"`
	// +listType=atomic
	// +optional
	Selectors []USBSelector `json:"selectors,omitempty"`
	// +optional
	ExternalResourceProvider bool `json:"externalResourceProvider,omitempty"`
	// +optional
	Disabled bool `json:"disabled,omitempty"`
}

// USBSelector identifies a USB device by vendor and product.
type USBSelector struct {
	Vendor  string `json:"vendor"`
	Product string `json:"product"`
}

// MediatedDevicesConfiguration says which mediated device types to create.
type MediatedDevicesConfiguration struct {
	// Enabled lets virt-handler create and remove mediated devices. Unset: true.
	// +optional
	Enabled *bool `json:"enabled,omitempty"`

	// +listType=atomic
	// +optional
	MediatedDeviceTypes []string `json:"mediatedDeviceTypes,omitempty"`
	// +listType=atomic
	// +optional
	NodeMediatedDeviceTypes []NodeMediatedDeviceTypesConfig `json:"nodeMediatedDeviceTypes,omitempty"`
}

// NodeMediatedDeviceTypesConfig holds the mediated device types of the nodes
// matching NodeSelector.
type NodeMediatedDeviceTypesConfig struct {
	NodeSelector map[string]string `json:"nodeSelector"`
	// +listType=atomic
	// +optional
	MediatedDeviceTypes []string `json:"mediatedDeviceTypes,omitempty"`
}

// HyperConvergedCertConfig is the rotation policy of the operands' certificates.
//
// +kubebuilder:validation:XValidation:rule="!has(self.ca) || !has(self.server) || !has(self.ca.duration) || !has(self.server.duration) || duration(self.ca.duration) >= duration(self.server.duration)",fieldPath=".server.duration",message="must not exceed spec.security.certConfig.ca.duration: a server certificate cannot outlive its CA; lower server.duration or raise ca.duration"
type HyperConvergedCertConfig struct {
	// CA certificates stay in the bundle as long as they are valid.
	// +kubebuilder:default={"duration": "48h0m0s", "renewBefore": "24h0m0s"}
	// +optional
	CA CertRotateConfigCA `json:"ca,omitempty"`
	// Server certificates are rotated and discarded.
	// +kubebuilder:default={"duration": "24h0m0s", "renewBefore": "12h0m0s"}
	// +optional
	Server CertRotateConfigServer `json:"server,omitempty"`
}

// CertRotateConfigCA holds the CA certificate's lifetime and when to renew
// it, in Go duration format ("48h0m0s").
//
// +kubebuilder:validation:XValidation:rule="!has(self.duration) || duration(self.duration) >= duration('10m')",fieldPath=".duration",message="must be at least 10m0s"
// +kubebuilder:validation:XValidation:rule="!has(self.renewBefore) || duration(self.renewBefore) >= duration('10m')",fieldPath=".renewBefore",message="must be at least 10m0s"
// +kubebuilder:validation:XValidation:rule="!has(self.duration) || !has(self.renewBefore) || duration(self.duration) >= duration(self.renewBefore)",fieldPath=".renewBefore",message="must not exceed spec.security.certConfig.ca.duration; lower renewBefore or raise duration"
type CertRotateConfigCA struct {
	// Duration is the certificate's lifetime. Default: 48h0m0s.
	// +kubebuilder:default="48h0m0s"
	// +optional
	Duration *metav1.Duration `json:"duration,omitempty"`
	// RenewBefore is how long before expiry renewal starts. Default: 24h0m0s.
	// +kubebuilder:default="24h0m0s"
	// +optional
	RenewBefore *metav1.Duration `json:"renewBefore,omitempty"`
}

// CertRotateConfigServer holds the server certificates' lifetime and when to
// renew them, in Go duration format ("24h0m0s").
//
// +kubebuilder:validation:XValidation:rule="!has(self.duration) || duration(self.duration) >= duration('10m')",fieldPath=".duration",message="must be at least 10m0s"
// +kubebuilder:validation:XValidation:rule="!has(self.renewBefore) || duration(self.renewBefore) >= duration('10m')",fieldPath=".renewBefore",message="must be at least 10m0s"
// +kubebuilder:validation:XValidation:rule="!has(self.duration) || !has(self.renewBefore) || duration(self.duration) >= duration(self.renewBefore)",fieldPath=".renewBefore",message="must not exceed spec.security.certConfig.server.duration; lower renewBefore or raise duration"
type CertRotateConfigServer struct {
	// Duration is the certificate's lifetime. Default: 24h0m0s.
	// +kubebuilder:default="24h0m0s"
	// +optional
	Duration *metav1.Duration `json:"duration,omitempty"`
	// RenewBefore is how long before expiry renewal starts. Default: 12h0m0s.
	// +kubebuilder:default="12h0m0s"
	// +optional
	RenewBefore *metav1.Duration `json:"renewBefore,omitempty"`
}

// StorageImportConfig configures CDI imports.
type StorageImportConfig struct {
	// InsecureRegistries may be pulled from without TLS verification.
	// +listType=set
	// +optional
	InsecureRegistries []string `json:"insecureRegistries,omitempty"`
}

// HyperConvergedWorkloadUpdateStrategy says how VMs are updated after KubeVirt is.
type HyperConvergedWorkloadUpdateStrategy struct {
	// WorkloadUpdateMethods in order of preference ("LiveMigrate", "Evict").
	// Empty: no automated workload updates.
	// +kubebuilder:default={"LiveMigrate"}
	// +listType=atomic
	// +optional
	WorkloadUpdateMethods []string `json:"workloadUpdateMethods"`

	// BatchEvictionSize is how many VMIs are updated per interval. Default: 10.
	// +kubebuilder:default=10
	// +optional
	BatchEvictionSize *int `json:"batchEvictionSize,omitempty"`

	// BatchEvictionInterval is the wait between batches. Default: 1m0s.
	// +kubebuilder:default="1m0s"
	// +optional
	BatchEvictionInterval *metav1.Duration `json:"batchEvictionInterval,omitempty"`
}

// HostpathProvisionerConfig configures the HostPathProvisioner CR.
type HostpathProvisionerConfig struct {
	// StoragePools are the node paths or PVC templates the provisioner uses.
	// +kubebuilder:validation:MinItems=1
	// +listType=map
	// +listMapKey=name
	StoragePools []HostpathStoragePool `json:"storagePools"`

	// ImagePullPolicy of the provisioner's pods. Default: IfNotPresent.
	// +kubebuilder:default=IfNotPresent
	// +kubebuilder:validation:Enum=Always;IfNotPresent;Never
	// +optional
	ImagePullPolicy corev1.PullPolicy `json:"imagePullPolicy,omitempty"`
}

// HostpathStoragePool is one storage pool of the provisioner.
type HostpathStoragePool struct {
	// Name identifies the pool; a StorageClass selects it by this name.
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`
	// Path on the node where the pool keeps its volumes.
	// +kubebuilder:validation:MinLength=1
	Path string `json:"path"`
	// PVCTemplate, when set, backs the path with a PVC on each node.
	// +optional
	PVCTemplate *corev1.PersistentVolumeClaimSpec `json:"pvcTemplate,omitempty"`
}

// HyperConvergedStatus is the observed state of the stack.
type HyperConvergedStatus struct {
	// Conditions: ReconcileComplete, Available, Progressing, Degraded,
	// Upgradeable, and TaintedConfiguration while a jsonpatch annotation is in effect.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// RelatedObjects are the objects the operator created and found in the cluster.
	// +listType=atomic
	// +optional
	RelatedObjects []corev1.ObjectReference `json:"relatedObjects,omitempty"`

	// Versions are name/version pairs; "operator" is the operator's own.
	// +listType=atomic
	// +optional
	Versions []Version `json:"versions,omitempty"`

	// ObservedGeneration is the generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// SystemHealthStatus is healthy, warning or error, from the conditions.
	// +optional
	SystemHealthStatus string `json:"systemHealthStatus,omitempty"`

	// DataImportSchedule is the cron schedule of the common golden images,
	// chosen once and kept here so that it survives restarts.
	// +optional
	DataImportSchedule string `json:"dataImportSchedule,omitempty"`

	// DataImportCronTemplates are the golden images applied to SSP, common
	// and custom, as applied.
	// +listType=atomic
	// +optional
	DataImportCronTemplates []DataImportCronTemplateStatus `json:"dataImportCronTemplates,omitempty"`

	// InfrastructureHighlyAvailable is whether the cluster has more than one
	// worker node (and control-plane node).
	// +optional
	InfrastructureHighlyAvailable *bool `json:"infrastructureHighlyAvailable,omitempty"`

	// ControlPlaneHighlyAvailable is whether the cluster has three or more
	// control-plane nodes, or two and an arbiter (upstream's rule); without
	// it KubeVirt's control plane runs one replica. An hcokit addition:
	// upstream keeps this fact to itself.
	// +optional
	ControlPlaneHighlyAvailable *bool `json:"controlPlaneHighlyAvailable,omitempty"`

	// NodeInfo describes the cluster's nodes.
	// +optional
	NodeInfo NodeInfoStatus `json:"nodeInfo,omitempty"`
}

// DataImportCronTemplateStatus is a golden image as applied.
type DataImportCronTemplateStatus struct {
	DataImportCronTemplate `json:",inline"`

	// +optional
	Status DataImportCronStatus `json:"status,omitempty"`
}

// DataImportCronStatus says where a golden image comes from.
type DataImportCronStatus struct {
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// CommonTemplate: one of the common golden images (not the admin's own).
	// +optional
	CommonTemplate bool `json:"commonTemplate,omitempty"`
	// Modified: a common golden image the admin changed.
	// +optional
	Modified bool `json:"modified,omitempty"`
	// OriginalSupportedArchitectures lists, comma-separated, the
	// architectures the common image supports.
	// +optional
	OriginalSupportedArchitectures string `json:"originalSupportedArchitectures,omitempty"`
}

// NodeInfoStatus describes the cluster's nodes.
type NodeInfoStatus struct {
	// WorkloadsArchitectures are the CPU architectures of the workload nodes.
	// +listType=set
	// +optional
	WorkloadsArchitectures []string `json:"workloadsArchitectures,omitempty"`
	// ControlPlaneArchitectures are the CPU architectures of the control-plane nodes.
	// +listType=set
	// +optional
	ControlPlaneArchitectures []string `json:"controlPlaneArchitectures,omitempty"`
	// DefaultWorkloadArchitecture is the architecture the operator chose as
	// the default of the workloads (KubeVirt's defaultArchitecture).
	// +optional
	DefaultWorkloadArchitecture string `json:"defaultWorkloadArchitecture,omitempty"`
}

// Version is a component's name and version.
type Version struct {
	Name    string `json:"name,omitempty"`
	Version string `json:"version,omitempty"`
}
