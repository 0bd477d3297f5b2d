package v1beta1

import (
	ocpconfigv1 "github.com/openshift/api/config/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kvv1 "kubevirt.io/api/core/v1"
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	hcov1 "github.com/hcokit/hcokit/api/v1"
)

// HyperConverged is the single entry point and single source of truth for the
// virtualization stack. The operator creates and keeps in sync the custom
// resources of the component operators from it.
//
// +kubebuilder:object:root=true
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
	// +kubebuilder:default={"certConfig": {"ca": {"duration": "48h0m0s", "renewBefore": "24h0m0s"}, "server": {"duration": "24h0m0s", "renewBefore": "12h0m0s"}}, "featureGates": {"downwardMetrics": false, "deployKubeSecondaryDNS": false, "decentralizedLiveMigration": true, "declarativeHotplugVolumes": true, "objectGraph": false, "incrementalBackup": false, "containerPathVolumes": false}, "liveMigrationConfig": {"completionTimeoutPerGiB": 800, "parallelMigrationsPerCluster": 5, "parallelOutboundMigrationsPerNode": 2, "progressTimeout": 150, "bandwidthPerMigration": "64Mi", "allowAutoConverge": false, "allowPostCopy": false}, "resourceRequirements": {"vmiCPUAllocationRatio": 10}, "uninstallStrategy": "BlockUninstallIfWorkloadsExist", "virtualMachineOptions": {"disableFreePageReporting": false, "disableSerialConsoleLog": false}, "enableApplicationAwareQuota": false, "enableCommonBootImageImport": true, "deployVmConsoleProxy": false}
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

// HyperConvergedSpec is the admin's desired configuration of the stack.
type HyperConvergedSpec struct {
	// Infra influences the pods of the infrastructure components: those the
	// cluster needs for virtualization but not on every node running VMs.
	// +optional
	Infra HyperConvergedConfig `json:"infra,omitempty"`

	// Workloads influences the pods that must run on the nodes where virtual
	// machines run. It can be changed only while no VirtualMachine or
	// DataVolume exists.
	// +optional
	Workloads HyperConvergedConfig `json:"workloads,omitempty"`

	// FeatureGates enables or disables features that are not generally
	// available; upstream's defaults turn the beta gates on. Unknown gate
	// names are kept (not pruned, not rejected by strict field validation; an
	// hcokit extension) so that YAML written for another version, and v1's
	// gates that this version has no field for, survive; they are ignored
	// unless v1 knows them, and the validating webhook warns about them.
	// +kubebuilder:default={"downwardMetrics": false, "deployKubeSecondaryDNS": false, "decentralizedLiveMigration": true, "declarativeHotplugVolumes": true, "objectGraph": false, "incrementalBackup": false, "containerPathVolumes": false}
	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	FeatureGates HyperConvergedFeatureGates `json:"featureGates,omitempty"`

	// LiveMigrationConfig holds the limits and timeouts applied to live
	// migrations so that they do not overwhelm the cluster.
	// +kubebuilder:default={"completionTimeoutPerGiB": 800, "parallelMigrationsPerCluster": 5, "parallelOutboundMigrationsPerNode": 2, "progressTimeout": 150, "bandwidthPerMigration": "64Mi", "allowAutoConverge": false, "allowPostCopy": false}
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

	// CertConfig holds the rotation policy of the internal self-signed certificates.
	// +kubebuilder:default={"ca": {"duration": "48h0m0s", "renewBefore": "24h0m0s"}, "server": {"duration": "24h0m0s", "renewBefore": "12h0m0s"}}
	// +optional
	CertConfig HyperConvergedCertConfig `json:"certConfig,omitempty"`

	// ResourceRequirements describes the resources of the operand workloads.
	// +kubebuilder:default={"vmiCPUAllocationRatio": 10}
	// +optional
	ResourceRequirements *OperandResourceRequirements `json:"resourceRequirements,omitempty"`

	// ScratchSpaceStorageClass overrides the storage class CDI uses for scratch
	// space during imports. Unset: the default storage class, else the
	// DataVolume's, else none.
	// +optional
	ScratchSpaceStorageClass *string `json:"scratchSpaceStorageClass,omitempty"`

	// StorageImport configures CDI imports.
	// +optional
	StorageImport *StorageImportConfig `json:"storageImport,omitempty"`

	// WorkloadUpdateStrategy says how running VMs are updated after a KubeVirt update.
	// +kubebuilder:default={"workloadUpdateMethods": {"LiveMigrate"}, "batchEvictionSize": 10, "batchEvictionInterval": "1m0s"}
	// +optional
	WorkloadUpdateStrategy HyperConvergedWorkloadUpdateStrategy `json:"workloadUpdateStrategy,omitempty"`

	// ObsoleteCPUs keeps VMs off obsolete CPU models.
	// +optional
	ObsoleteCPUs *HyperConvergedObsoleteCPUs `json:"obsoleteCPUs,omitempty"`

	// CommonTemplatesNamespace is the namespace SSP deploys the common
	// templates in. Unset: the operator's configured default ("openshift").
	// +optional
	CommonTemplatesNamespace *string `json:"commonTemplatesNamespace,omitempty"`

	// DefaultCPUModel is the CPU model of a VMI that sets none. Unset: host-model.
	// +optional
	DefaultCPUModel *string `json:"defaultCPUModel,omitempty"`

	// DefaultRuntimeClass is the RuntimeClass of a VMI pod that sets none.
	// +optional
	DefaultRuntimeClass *string `json:"defaultRuntimeClass,omitempty"`

	// UninstallStrategy says what happens on deletion while workloads
	// (VirtualMachines, DataVolumes) exist. BlockUninstallIfWorkloadsExist,
	// the default, refuses the deletion; RemoveWorkloads deletes them all.
	// +kubebuilder:default=BlockUninstallIfWorkloadsExist
	// +optional
	UninstallStrategy HyperConvergedUninstallStrategy `json:"uninstallStrategy,omitempty"`

	// HostpathProvisioner, when set, makes the operator own the
	// HostPathProvisioner CR "hostpath-provisioner". Not an upstream HCO field.
	// +optional
	HostpathProvisioner *HostpathProvisionerConfig `json:"hostpathProvisioner,omitempty"`

	// VirtualMachineOptions are cluster defaults of every virtual machine.
	// +kubebuilder:default={"disableFreePageReporting": false, "disableSerialConsoleLog": false}
	// +optional
	VirtualMachineOptions *VirtualMachineOptions `json:"virtualMachineOptions,omitempty"`

	// HigherWorkloadDensity holds settings that raise VM density.
	// +kubebuilder:default={"memoryOvercommitPercentage": 100}
	// +optional
	HigherWorkloadDensity *HigherWorkloadDensityConfiguration `json:"higherWorkloadDensity,omitempty"`

	// EnableCommonBootImageImport opts in to the common golden images.
	// Accepted and stored; hcokit does not act on it yet. Default: true.
	// +kubebuilder:default=true
	// +optional
	EnableCommonBootImageImport *bool `json:"enableCommonBootImageImport,omitempty"`

	// DeployVMConsoleProxy deploys SSP's VM console proxy. Accepted and
	// stored; hcokit does not act on it yet. Default: false.
	// +kubebuilder:default=false
	// +optional
	DeployVMConsoleProxy *bool `json:"deployVmConsoleProxy,omitempty"`

	// EnableApplicationAwareQuota turns Application Aware Quota on. Accepted
	// and stored; hcokit has no AAQ module and does not act on it. Default: false.
	// +kubebuilder:default=false
	// +optional
	EnableApplicationAwareQuota *bool `json:"enableApplicationAwareQuota,omitempty"`

	// ApplicationAwareConfig configures Application Aware Quota. Accepted and
	// stored; hcokit has no AAQ module and does not act on it.
	// +optional
	ApplicationAwareConfig *ApplicationAwareConfigurations `json:"applicationAwareConfig,omitempty"`

	// TuningPolicy: see v1's spec.virtualization.tuningPolicy.
	// +kubebuilder:validation:Enum=annotation;highBurst
	// +optional
	TuningPolicy hcov1.HyperConvergedTuningPolicy `json:"tuningPolicy,omitempty"`

	// DataImportCronTemplates: see v1's spec.workloadSources.dataImportCronTemplates.
	// +listType=atomic
	// +optional
	DataImportCronTemplates []hcov1.DataImportCronTemplate `json:"dataImportCronTemplates,omitempty"`

	// FilesystemOverhead: see v1's spec.storage.filesystemOverhead.
	// +optional
	FilesystemOverhead *cdiv1beta1.FilesystemOverhead `json:"filesystemOverhead,omitempty"`

	// LogVerbosityConfig: see v1's spec.deployment.logVerbosityConfig.
	// +optional
	LogVerbosityConfig *hcov1.LogVerbosityConfiguration `json:"logVerbosityConfig,omitempty"`

	// TLSSecurityProfile: see v1's spec.security.tlsSecurityProfile.
	// +optional
	TLSSecurityProfile *ocpconfigv1.TLSSecurityProfile `json:"tlsSecurityProfile,omitempty"`

	// KubeSecondaryDNSNameServerIP: see v1's spec.networking.kubeSecondaryDNSNameServerIP.
	// +optional
	KubeSecondaryDNSNameServerIP *string `json:"kubeSecondaryDNSNameServerIP,omitempty"`

	// KubeMacPoolConfiguration: see v1's spec.networking.kubeMacPoolConfiguration.
	// +optional
	KubeMacPoolConfiguration *hcov1.KubeMacPoolConfig `json:"kubeMacPoolConfiguration,omitempty"`

	// EvictionStrategy: see v1's spec.virtualization.evictionStrategy.
	// +kubebuilder:validation:Enum=None;LiveMigrate;LiveMigrateIfPossible;External
	// +optional
	EvictionStrategy *kvv1.EvictionStrategy `json:"evictionStrategy,omitempty"`

	// VMStateStorageClass: see v1's spec.storage.vmStateStorageClass.
	// +optional
	VMStateStorageClass *string `json:"vmStateStorageClass,omitempty"`

	// CommonBootImageNamespace: see v1's spec.workloadSources.commonBootImageNamespace.
	// +optional
	CommonBootImageNamespace *string `json:"commonBootImageNamespace,omitempty"`

	// KSMConfiguration: see v1's spec.virtualization.ksmConfiguration.
	// +optional
	KSMConfiguration *kvv1.KSMConfiguration `json:"ksmConfiguration,omitempty"`

	// NetworkBinding: see v1's spec.networking.networkBinding.
	// +optional
	NetworkBinding map[string]kvv1.InterfaceBindingPlugin `json:"networkBinding,omitempty"`

	// InstancetypeConfig: see v1's spec.workloadSources.instancetypeConfig.
	// +optional
	InstancetypeConfig *kvv1.InstancetypeConfiguration `json:"instancetypeConfig,omitempty"`

	// CommonInstancetypesDeployment: see v1's
	// spec.workloadSources.commonInstancetypesDeployment. The JSON name
	// starts with a capital letter, as upstream's v1beta1 has it.
	// +optional
	CommonInstancetypesDeployment *kvv1.CommonInstancetypesDeployment `json:"CommonInstancetypesDeployment,omitempty"`

	// LiveUpdateConfiguration: see v1's spec.virtualization.liveUpdateConfiguration.
	// +optional
	LiveUpdateConfiguration *kvv1.LiveUpdateConfiguration `json:"liveUpdateConfiguration,omitempty"`

	// Hypervisors: see v1's spec.virtualization.hypervisors.
	// +listType=atomic
	// +kubebuilder:validation:MaxItems:=1
	// +optional
	Hypervisors []kvv1.HypervisorConfiguration `json:"hypervisors,omitempty"`

	// RoleAggregationStrategy: see v1's spec.virtualization.roleAggregationStrategy.
	// +kubebuilder:validation:Enum=AggregateToDefault;Manual
	// +optional
	RoleAggregationStrategy *kvv1.RoleAggregationStrategy `json:"roleAggregationStrategy,omitempty"`

	// ChangedBlockTrackingLabelSelectors: see v1's
	// spec.virtualization.changedBlockTrackingLabelSelectors.
	// +optional
	ChangedBlockTrackingLabelSelectors *kvv1.ChangedBlockTrackingSelectors `json:"changedBlockTrackingLabelSelectors,omitempty"`

	// PersistentReservationConfiguration: see v1's
	// spec.storage.persistentReservationConfiguration (not an upstream
	// v1beta1 field; here so that the v1 field survives a v1beta1 update).
	// +optional
	PersistentReservationConfiguration *hcov1.PersistentReservationConfiguration `json:"persistentReservationConfiguration,omitempty"`

	// DeployNetworkResourcesInjector: see v1's
	// spec.deployment.deployNetworkResourcesInjector (not an upstream v1beta1
	// field; here so that the v1 field survives a v1beta1 update).
	// +optional
	DeployNetworkResourcesInjector *bool `json:"deployNetworkResourcesInjector,omitempty"`

	// Deprecated: ignored, as upstream HCO ignores it.
	// +optional
	LocalStorageClassName string `json:"localStorageClassName,omitempty"`

	// Deprecated: ignored, as upstream HCO ignores it (use the Migration
	// Toolkit for Virtualization).
	// +optional
	VddkInitImage *string `json:"vddkInitImage,omitempty"`

	// Deprecated: ignored, as upstream HCO ignores it.
	// +optional
	TektonPipelinesNamespace *string `json:"tektonPipelinesNamespace,omitempty"`

	// Deprecated: ignored, as upstream HCO ignores it.
	// +optional
	TektonTasksNamespace *string `json:"tektonTasksNamespace,omitempty"`
}

// VirtualMachineOptions are cluster defaults of every virtual machine.
type VirtualMachineOptions struct {
	// DisableFreePageReporting turns off free page reporting of the memory
	// balloon. Accepted and stored; hcokit does not act on it yet.
	// +kubebuilder:default=false
	// +optional
	DisableFreePageReporting *bool `json:"disableFreePageReporting,omitempty"`

	// DisableSerialConsoleLog turns off logging of the auto-attached serial
	// console. Accepted and stored; hcokit does not act on it yet.
	// +kubebuilder:default=false
	// +optional
	DisableSerialConsoleLog *bool `json:"disableSerialConsoleLog,omitempty"`
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

// ApplicationAwareConfigurations configure Application Aware Quota.
type ApplicationAwareConfigurations struct {
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

// HyperConvergedConfig is the configuration passed to one class of pods.
type HyperConvergedConfig struct {
	// NodePlacement describes where the pods are scheduled.
	// +optional
	NodePlacement *NodePlacement `json:"nodePlacement,omitempty"`
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

// HyperConvergedFeatureGates are optional booleans. Missing or false disables
// the feature. Gates marked deprecated are accepted, so existing YAML keeps
// applying, and ignored.
type HyperConvergedFeatureGates struct {
	// WithHostPassthroughCPU allows live migration of VMs that use the CPU
	// host-passthrough mode. Slightly better CPU performance; enable it only on
	// a cluster whose nodes have identical CPUs. Adds KubeVirt's
	// "WithHostPassthroughCPU" gate (the seed documents'; upstream ignores it).
	// +optional
	WithHostPassthroughCPU *bool `json:"withHostPassthroughCPU,omitempty"`

	// DownwardMetrics exposes a limited set of host metrics to guests.
	// Adds KubeVirt's "DownwardMetrics" gate. Default: false.
	// +kubebuilder:default=false
	// +optional
	DownwardMetrics *bool `json:"downwardMetrics,omitempty"`

	// DeployKubeSecondaryDNS deploys KubeSecondaryDNS through the
	// NetworkAddonsConfig. No effect on KubeVirt. Default: false.
	// +kubebuilder:default=false
	// +optional
	DeployKubeSecondaryDNS *bool `json:"deployKubeSecondaryDNS,omitempty"`

	// DisableMDevConfiguration stops KubeVirt from creating mediated devices:
	// sets KubeVirt's mediatedDevicesConfiguration.enabled to false (its
	// replacement for the deprecated DisableMDEVConfiguration gate).
	// Deprecated upstream: v1 has spec.virtualization.mediatedDevicesConfiguration.enabled.
	// +optional
	DisableMDevConfiguration *bool `json:"disableMDevConfiguration,omitempty"`

	// PersistentReservation allows SCSI persistent reservation of LUNs; it
	// redeploys virt-handler with a qemu-pr-helper container. Sets KubeVirt's
	// persistentReservationConfiguration.enabled. Deprecated upstream: v1 has
	// spec.storage.persistentReservationConfiguration.enabled.
	// +optional
	PersistentReservation *bool `json:"persistentReservation,omitempty"`

	// AlignCPUs lets KubeVirt request up to two extra dedicated CPUs to reach
	// an even count with emulator thread isolation. Adds KubeVirt's
	// "AlignCPUs" gate. Default: false.
	// +kubebuilder:default=false
	// +optional
	AlignCPUs *bool `json:"alignCPUs,omitempty"`

	// DecentralizedLiveMigration allows live migration between clusters.
	// Adds KubeVirt's "DecentralizedLiveMigration" gate. A beta gate: default true.
	// +kubebuilder:default=true
	// +optional
	DecentralizedLiveMigration *bool `json:"decentralizedLiveMigration,omitempty"`

	// DeclarativeHotplugVolumes replaces KubeVirt's "HotplugVolumes" gate
	// (always on) with "DeclarativeHotplugVolumes". A beta gate: default true.
	// +kubebuilder:default=true
	// +optional
	DeclarativeHotplugVolumes *bool `json:"declarativeHotplugVolumes,omitempty"`

	// ObjectGraph enables KubeVirt's ObjectGraph subresource of VMs and VMIs.
	// Adds KubeVirt's "ObjectGraph" gate. Default: false.
	// +kubebuilder:default=false
	// +optional
	ObjectGraph *bool `json:"objectGraph,omitempty"`

	// IncrementalBackup enables changed block tracking and incremental
	// backups. Adds KubeVirt's "IncrementalBackup" and "UtilityVolumes"
	// gates. Default: false.
	// +kubebuilder:default=false
	// +optional
	IncrementalBackup *bool `json:"incrementalBackup,omitempty"`

	// ContainerPathVolumes lets VMs use paths of the virt-launcher pod's
	// filesystem as volumes (virtiofs). Adds KubeVirt's
	// "ContainerPathVolumes" gate. Default: false.
	// +kubebuilder:default=false
	// +optional
	ContainerPathVolumes *bool `json:"containerPathVolumes,omitempty"`

	// EnableMultiArchBootImageImport imports the golden images of every
	// workload node architecture. Deprecated upstream: it converts to and
	// from v1's spec.workloadSources.enableMultiArchBootImageImport.
	// +optional
	EnableMultiArchBootImageImport *bool `json:"enableMultiArchBootImageImport,omitempty"`

	// Deprecated: ignored. Use spec.enableCommonBootImageImport upstream.
	// +optional
	EnableCommonBootImageImport *bool `json:"enableCommonBootImageImport,omitempty"`
	// Deprecated: ignored.
	// +optional
	DeployTektonTaskResources *bool `json:"deployTektonTaskResources,omitempty"`
	// Deprecated: ignored.
	// +optional
	DeployVMConsoleProxy *bool `json:"deployVmConsoleProxy,omitempty"`
	// Deprecated: ignored.
	// +optional
	DeployKubevirtIpamController *bool `json:"deployKubevirtIpamController,omitempty"`
	// Deprecated: ignored.
	// +optional
	NonRoot *bool `json:"nonRoot,omitempty"`
	// Deprecated: ignored.
	// +optional
	EnableManagedTenantQuota *bool `json:"enableManagedTenantQuota,omitempty"`
	// Deprecated: ignored.
	// +optional
	AutoResourceLimits *bool `json:"autoResourceLimits,omitempty"`
	// Deprecated: ignored.
	// +optional
	EnableApplicationAwareQuota *bool `json:"enableApplicationAwareQuota,omitempty"`
	// Deprecated: ignored.
	// +optional
	PrimaryUserDefinedNetworkBinding *bool `json:"primaryUserDefinedNetworkBinding,omitempty"`
	// Deprecated: ignored (KubeVirt's VideoConfig is GA).
	// +optional
	VideoConfig *bool `json:"videoConfig,omitempty"`

	// Others holds the gates this version has no field for (a gate of a newer
	// version, or a typo), by name, so that they survive conversion to v1's
	// list and back. They are read from and written to the same JSON object
	// as the named gates.
	Others map[string]bool `json:"-"`
}

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

	// AllowWorkloadDisruption: see v1's field of the same name. Default: false.
	// +kubebuilder:default=false
	// +optional
	AllowWorkloadDisruption *bool `json:"allowWorkloadDisruption,omitempty"`
}

// PermittedHostDevices holds the devices allowed for passthrough.
type PermittedHostDevices struct {
	// +listType=atomic
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

// PciHostDevice is a host PCI device allowed for passthrough. Exactly one of
// pciDeviceSelector (upstream's current name) and pciVendorSelector (the
// older name) identifies it.
//
// +kubebuilder:validation:XValidation:rule="has(self.pciDeviceSelector) != has(self.pciVendorSelector)",message="set exactly one of pciDeviceSelector and pciVendorSelector"
type PciHostDevice struct {
	// PCIDeviceSelector is "VENDOR:DEVICE" in hex, e.g. "10DE:1EB8" (lspci -nn).
	// +kubebuilder:validation:Pattern=`^[0-9a-fA-F]{4}:[0-9a-fA-F]{4}$`
	// +optional
	PCIDeviceSelector string `json:"pciDeviceSelector,omitempty"`
	// PCIVendorSelector is the older name of PCIDeviceSelector.
	// +kubebuilder:validation:Pattern=`^[0-9a-fA-F]{4}:[0-9a-fA-F]{4}$`
	// +optional
	PCIVendorSelector string `json:"pciVendorSelector,omitempty"`
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

// Selector returns the PCI selector, whichever field holds it.
func (d PciHostDevice) Selector() string {
	if d.PCIDeviceSelector != "" {
		return d.PCIDeviceSelector
	}
	return d.PCIVendorSelector
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
	// Enabled: see v1's field of the same name (not an upstream v1beta1
	// field; here so that the v1 field survives a v1beta1 update).
	// +optional
	Enabled *bool `json:"enabled,omitempty"`

	// +listType=atomic
	// +optional
	MediatedDeviceTypes []string `json:"mediatedDeviceTypes,omitempty"`
	// Deprecated: use mediatedDeviceTypes.
	// +listType=atomic
	// +optional
	MediatedDevicesTypes []string `json:"mediatedDevicesTypes,omitempty"`
	// +listType=atomic
	// +optional
	NodeMediatedDeviceTypes []NodeMediatedDeviceTypesConfig `json:"nodeMediatedDeviceTypes,omitempty"`
}

// NodeMediatedDeviceTypesConfig holds the mediated device types of the nodes
// matching NodeSelector.
//
// +kubebuilder:validation:XValidation:rule="(has(self.mediatedDeviceTypes) && size(self.mediatedDeviceTypes)>0) || (has(self.mediatedDevicesTypes) && size(self.mediatedDevicesTypes)>0)",message="for nodeMediatedDeviceTypes a non-empty mediatedDeviceTypes or mediatedDevicesTypes(deprecated) is required"
type NodeMediatedDeviceTypesConfig struct {
	NodeSelector map[string]string `json:"nodeSelector"`
	// +listType=atomic
	// +optional
	MediatedDeviceTypes []string `json:"mediatedDeviceTypes,omitempty"`
	// Deprecated: use mediatedDeviceTypes.
	// +listType=atomic
	// +optional
	MediatedDevicesTypes []string `json:"mediatedDevicesTypes,omitempty"`
}

// HyperConvergedCertConfig is the rotation policy of the operands' certificates.
//
// +kubebuilder:validation:XValidation:rule="!has(self.ca) || !has(self.server) || !has(self.ca.duration) || !has(self.server.duration) || duration(self.ca.duration) >= duration(self.server.duration)",fieldPath=".server.duration",message="must not exceed spec.certConfig.ca.duration: a server certificate cannot outlive its CA; lower server.duration or raise ca.duration"
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
// +kubebuilder:validation:XValidation:rule="!has(self.duration) || !has(self.renewBefore) || duration(self.duration) >= duration(self.renewBefore)",fieldPath=".renewBefore",message="must not exceed spec.certConfig.ca.duration; lower renewBefore or raise duration"
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
// +kubebuilder:validation:XValidation:rule="!has(self.duration) || !has(self.renewBefore) || duration(self.duration) >= duration(self.renewBefore)",fieldPath=".renewBefore",message="must not exceed spec.certConfig.server.duration; lower renewBefore or raise duration"
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

// OperandResourceRequirements are resource settings of the operand workloads.
//
// +kubebuilder:validation:XValidation:rule="!has(self.vmiCPUAllocationRatio) || self.vmiCPUAllocationRatio > 0",message="vmiCPUAllocationRatio must be greater than 0"
type OperandResourceRequirements struct {
	// StorageWorkloads are the resources of CDI's importer, uploader and
	// cloner pods.
	// +optional
	StorageWorkloads *corev1.ResourceRequirements `json:"storageWorkloads,omitempty"`

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

// HyperConvergedObsoleteCPUs keeps VMs off obsolete CPU models.
type HyperConvergedObsoleteCPUs struct {
	// Deprecated: ignored, as upstream HCO ignores it; v1 has no such field.
	// A value set here survives a round trip through v1 (in the annotation
	// hcokit.io/v1beta1-fields).
	// +optional
	MinCPUModel string `json:"minCPUModel,omitempty"`
	// CPUModels are added to the operator's built-in list of obsolete models.
	// +listType=set
	// +optional
	CPUModels []string `json:"cpuModels,omitempty"`
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

	// DataImportSchedule: see v1's status.
	// +optional
	DataImportSchedule string `json:"dataImportSchedule,omitempty"`

	// DataImportCronTemplates: see v1's status.
	// +listType=atomic
	// +optional
	DataImportCronTemplates []hcov1.DataImportCronTemplateStatus `json:"dataImportCronTemplates,omitempty"`

	// InfrastructureHighlyAvailable: see v1's status.
	// +optional
	InfrastructureHighlyAvailable *bool `json:"infrastructureHighlyAvailable,omitempty"`

	// ControlPlaneHighlyAvailable: see v1's status (an hcokit addition).
	// +optional
	ControlPlaneHighlyAvailable *bool `json:"controlPlaneHighlyAvailable,omitempty"`

	// NodeInfo: see v1's status.
	// +optional
	NodeInfo hcov1.NodeInfoStatus `json:"nodeInfo,omitempty"`
}

// Version is a component's name and version.
type Version struct {
	Name    string `json:"name,omitempty"`
	Version string `json:"version,omitempty"`
}
