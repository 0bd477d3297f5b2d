package featuregates

import (
	"slices"

	"k8s.io/utils/ptr"

	hcov1 "github.com/hcokit/hcokit/api/v1"
)

// KubeVirt feature gate names.
const (
	CPUManager = "CPUManager"
	// ExternalNetResourceInjection lets virt-launcher pods take network
	// resources from the network-resources-injector.
	ExternalNetResourceInjection = "ExternalNetResourceInjection"
	Snapshot                     = "Snapshot"
	HotplugVolumes               = "HotplugVolumes"
	DeclarativeHotplugVolumes    = "DeclarativeHotplugVolumes"
	HostDevices                  = "HostDevices"
	KubevirtSeccompProfile       = "KubevirtSeccompProfile"
	HypervStrictCheck            = "HypervStrictCheck"
	WithHostPassthroughCPU       = "WithHostPassthroughCPU"
	DownwardMetrics              = "DownwardMetrics"
	AlignCPUs                    = "AlignCPUs"
	DecentralizedLiveMigration   = "DecentralizedLiveMigration"
	ObjectGraph                  = "ObjectGraph"
	IncrementalBackup            = "IncrementalBackup"
	UtilityVolumes               = "UtilityVolumes"
	ContainerPathVolumes         = "ContainerPathVolumes"
	ConfigurableHypervisor       = "ConfigurableHypervisor"
	OptOutRoleAggregation        = "OptOutRoleAggregation"
	Template                     = "Template"
	SecureExecution              = "SecureExecution"
	PasstBinding                 = "PasstBinding"
	PCINUMAAwareTopology         = "PCINUMAAwareTopology"
	GraceIOVirtualization        = "GraceIOVirtualization"
	IOMMUFD                      = "IOMMUFD"
)

// alwaysOn are the KubeVirt gates the operator enables whatever the
// HyperConverged says, upstream HCO's hard-coded ones
// (controllers/handlers/kubevirt.go hardCodeKvFgs at 03da3cf). ExpandDisks
// and VMExport, GA in KubeVirt v1.9.0, are not among them.
var alwaysOn = []string{CPUManager, Snapshot, HostDevices, KubevirtSeccompProfile}

// AlwaysOn returns the gates enabled whatever the HyperConverged says.
// HotplugVolumes or DeclarativeHotplugVolumes (one of the two is always on)
// and HypervStrictCheck (on unless KVM is emulated) are not among them.
func AlwaysOn() []string { return slices.Clone(alwaysOn) }

// kubeVirtBeta are the gates KubeVirt v1.9.0 (kubevirt.io/api v1.9.0)
// registers as Beta, so enables unless they are listed in
// disabledFeatureGates: kubevirt/kubevirt release-1.9
// pkg/virt-config/featuregate/active.go (inactive.go has the gates that are
// GA or deprecated in v1.9.0, e.g. MigrationPriorityQueue, SecureExecution,
// VideoConfig). Upstream HCO keeps the same list, generated from the
// KubeVirt it pins (pkg/internal/kvfeaturegates/kv-beta-feature-gates.json),
// and disables each of them that it does not enable itself; see
// [DisabledForKubeVirt].
var kubeVirtBeta = []string{
	DeclarativeHotplugVolumes, ExternalNetResourceInjection, "GPUsWithDRA", "HostDevicesWithDRA", "ImageVolume",
	KubevirtSeccompProfile, "LibvirtHooksServerAndClient", "NodeRestriction", OptOutRoleAggregation, PasstBinding,
	"PodSecondaryInterfaceNamingUpgrade", "RebootPolicy", Snapshot, Template, "VmiMemoryOverheadReport",
	"WorkloadEncryptionSEV",
}

// KubeVirtBeta returns the KubeVirt v1.9.0 Beta gates, sorted.
func KubeVirtBeta() []string {
	out := slices.Clone(kubeVirtBeta)
	slices.Sort(out)
	return out
}

// Options are the facts about the cluster and the rest of the
// HyperConverged that change the gate list.
type Options struct {
	// KVMEmulation drops gates that need hardware virtualization
	// (HypervStrictCheck).
	KVMEmulation bool

	// ConfigurableHypervisor is true when spec.virtualization.hypervisors
	// names a hypervisor; it adds ConfigurableHypervisor.
	ConfigurableHypervisor bool

	// RoleAggregationStrategy is true when
	// spec.virtualization.roleAggregationStrategy is set; it adds
	// OptOutRoleAggregation.
	RoleAggregationStrategy bool

	// SecureExecution is true when a workload node is s390x (the node
	// facts' workload architectures); it adds SecureExecution
	// (IBM Z Secure Execution), as upstream HCO does.
	SecureExecution bool

	// PasstBinding is true when the HyperConverged carries
	// [DeployPasstNetworkBindingAnnotation] "true"; it adds PasstBinding.
	PasstBinding bool

	// ExternalNetResourceInjection is true while the network-resources-
	// injector is deployed (spec.deployment.deployNetworkResourcesInjector,
	// default true) and ready (its Deployment's replicas are; upstream HCO
	// reads the same from its VirtNetworkResourcesInjectorReady condition).
	// It adds ExternalNetResourceInjection, as upstream HCO does.
	ExternalNetResourceInjection bool

	// AIE is true when the HyperConverged carries [DeployAIEAnnotation]
	// "true"; it adds GraceIOVirtualization, IOMMUFD and
	// PCINUMAAwareTopology, as upstream HCO does.
	AIE bool
}

// The HyperConverged annotations upstream HCO reads to turn on KubeVirt
// gates (its controllers/handlers/kubevirt.go). Upstream also deploys the
// passt binding's and the AI-workload webhook's own resources for them;
// hcokit only sets the gates.
const (
	DeployPasstNetworkBindingAnnotation = "hco.kubevirt.io/deployPasstNetworkBinding"
	DeployAIEAnnotation                 = "hco.kubevirt.io/deployAIE"
)

// OptionsFor returns the options that hc implies (its spec and annotations),
// with the cluster's KVM emulation, the architectures of its workload
// nodes (nil while unknown) and whether the network-resources-injector is
// ready.
func OptionsFor(hc *hcov1.HyperConverged, kvmEmulation bool, workloadArchitectures []string, injectorReady bool) Options {
	spec := &hc.Spec
	return Options{
		KVMEmulation:                 kvmEmulation,
		ConfigurableHypervisor:       len(spec.Virtualization.Hypervisors) > 0,
		RoleAggregationStrategy:      spec.Virtualization.RoleAggregationStrategy != nil,
		SecureExecution:              slices.Contains(workloadArchitectures, "s390x"),
		PasstBinding:                 hc.Annotations[DeployPasstNetworkBindingAnnotation] == "true",
		AIE:                          hc.Annotations[DeployAIEAnnotation] == "true",
		ExternalNetResourceInjection: ptr.Deref(spec.Deployment.DeployNetworkResourcesInjector, true) && injectorReady,
	}
}

// The HyperConverged gates (spec.featureGates names) hcokit acts on.
const (
	GateWithHostPassthroughCPU     = "withHostPassthroughCPU"
	GateDownwardMetrics            = "downwardMetrics"
	GateDeployKubeSecondaryDNS     = "deployKubeSecondaryDNS"
	GateDisableMDevConfiguration   = "disableMDevConfiguration"
	GatePersistentReservation      = "persistentReservation"
	GateAlignCPUs                  = "alignCPUs"
	GateDecentralizedLiveMigration = "decentralizedLiveMigration"
	GateDeclarativeHotplugVolumes  = "declarativeHotplugVolumes"
	// GateTemplate turns on KubeVirt's Template gate (virt-template, VM
	// templates); beta in upstream's v1, so on unless listed "False".
	GateTemplate             = "template"
	GateObjectGraph          = "objectGraph"
	GateIncrementalBackup    = "incrementalBackup"
	GateContainerPathVolumes = "containerPathVolumes"
	// GateEnableMultiArchBootImageImport imports the golden images of every
	// workload architecture (SSP's enableMultipleArchitectures).
	GateEnableMultiArchBootImageImport = "enableMultiArchBootImageImport"
)

// GateDeployObservabilityController deploys the virt-observability-controller
// (the observability operand), as upstream.
const GateDeployObservabilityController = "deployObservabilityController"

// Known returns the HyperConverged gates hcokit knows (upstream's gate
// table and withHostPassthroughCPU), sorted.
func Known() []string {
	out := hcov1.FeatureGateNames()
	slices.Sort(out)
	return out
}

// Default reports whether the gate called name is on when spec.featureGates
// does not list it: upstream HCO's beta gates are on (decentralizedLiveMigration,
// declarativeHotplugVolumes, template: its pkg/featuregatedetails/feature-gates.json
// at 03da3cf); every other gate, alpha, deprecated or unknown, is off.
func Default(name string) bool { return hcov1.DefaultEnabled(name) }

// Enabled reports whether the gate called name is on: as its entry in gs
// says when listed (no state or Enabled: on; Disabled: off), otherwise its
// [Default]; a gate hcokit does not know is off. Names compare
// case-insensitively, as the list's uniqueness rule does.
func Enabled(gs hcov1.FeatureGates, name string) bool { return gs.Enabled(name) }

// PersistentReservationEnabled is the effective SCSI persistent reservation
// setting: spec.storage.persistentReservationConfiguration.enabled when set,
// otherwise on when the deprecated persistentReservation gate is (upstream's
// webhook moves the gate into the field). The second result is false when
// neither says anything, i.e. KubeVirt's default (off) applies. It sets
// KubeVirt's persistentReservationConfiguration only; upstream HCO no longer
// turns on KubeVirt's deprecated PersistentReservation gate.
func PersistentReservationEnabled(spec *hcov1.HyperConvergedSpec) (enabled, set bool) {
	if s := spec.Storage; s != nil && s.PersistentReservationConfiguration != nil && s.PersistentReservationConfiguration.Enabled != nil {
		return *s.PersistentReservationConfiguration.Enabled, true
	}
	if Enabled(spec.FeatureGates, GatePersistentReservation) {
		return true, true
	}
	return false, false
}

// MultiArchBootImageImportEnabled is the effective multi-architecture golden
// image import: spec.workloadSources.enableMultiArchBootImageImport when set,
// otherwise the deprecated enableMultiArchBootImageImport gate (upstream's
// IsMultiArchEnabled at 03da3cf).
func MultiArchBootImageImportEnabled(spec *hcov1.HyperConvergedSpec) bool {
	if p := spec.WorkloadSources.EnableMultiArchBootImageImport; p != nil {
		return *p
	}
	return Enabled(spec.FeatureGates, GateEnableMultiArchBootImageImport)
}

// MediatedDevicesEnabled is the effective mediated devices handling:
// spec.virtualization.mediatedDevicesConfiguration.enabled when set,
// otherwise the opposite of the deprecated disableMDevConfiguration gate
// (upstream's webhook moves the gate into the field). The second result is
// false when neither says anything, i.e. KubeVirt's default (on) applies.
func MediatedDevicesEnabled(spec *hcov1.HyperConvergedSpec) (enabled, set bool) {
	if m := spec.Virtualization.MediatedDevicesConfiguration; m != nil && m.Enabled != nil {
		return *m.Enabled, true
	}
	if Enabled(spec.FeatureGates, GateDisableMDevConfiguration) {
		return false, true
	}
	return true, false
}

// ForKubeVirt returns KubeVirt's feature gates for the HyperConverged gates
// and the options, sorted and without duplicates.
func ForKubeVirt(g hcov1.FeatureGates, opts Options) []string {
	out := make([]string, 0, len(alwaysOn)+16)
	out = append(out, alwaysOn...)
	if Enabled(g, GateDeclarativeHotplugVolumes) {
		out = append(out, DeclarativeHotplugVolumes)
	} else {
		out = append(out, HotplugVolumes)
	}
	if !opts.KVMEmulation {
		out = append(out, HypervStrictCheck)
	}
	for _, m := range userGates {
		if Enabled(g, m.gate) {
			out = append(out, m.kubevirt...)
		}
	}
	if opts.ConfigurableHypervisor {
		out = append(out, ConfigurableHypervisor)
	}
	if opts.RoleAggregationStrategy {
		out = append(out, OptOutRoleAggregation)
	}
	if opts.SecureExecution {
		out = append(out, SecureExecution)
	}
	if opts.PasstBinding {
		out = append(out, PasstBinding)
	}
	if opts.AIE {
		out = append(out, GraceIOVirtualization, IOMMUFD, PCINUMAAwareTopology)
	}
	if opts.ExternalNetResourceInjection {
		out = append(out, ExternalNetResourceInjection)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// DisabledForKubeVirt returns KubeVirt's disabledFeatureGates for the
// enabled list ForKubeVirt returned: every KubeVirt Beta gate not in it, as
// upstream HCO does, so that a KubeVirt upgrade does not turn on features
// the HyperConverged did not ask for. Sorted; nil when none.
func DisabledForKubeVirt(enabled []string) []string {
	var out []string
	for _, g := range KubeVirtBeta() {
		if !slices.Contains(enabled, g) {
			out = append(out, g)
		}
	}
	return out
}

// userGates maps each HyperConverged gate to the KubeVirt gates it turns on.
// withHostPassthroughCPU is deprecated upstream and ignored there; the seed
// documents keep it turning on WithHostPassthroughCPU.
var userGates = []struct {
	gate     string
	kubevirt []string
}{
	{GateWithHostPassthroughCPU, []string{WithHostPassthroughCPU}},
	{GateDownwardMetrics, []string{DownwardMetrics}},
	{GateAlignCPUs, []string{AlignCPUs}},
	{GateDecentralizedLiveMigration, []string{DecentralizedLiveMigration}},
	{GateTemplate, []string{Template}},
	{GateObjectGraph, []string{ObjectGraph}},
	{GateIncrementalBackup, []string{IncrementalBackup, UtilityVolumes}},
	{GateContainerPathVolumes, []string{ContainerPathVolumes}},
}

// Deprecated returns the JSON names of the gates that are accepted for
// compatibility and ignored.
func Deprecated() []string {
	return []string{
		"enableCommonBootImageImport", "deployTektonTaskResources", "deployVmConsoleProxy",
		"deployKubevirtIpamController", "nonRoot", "enableManagedTenantQuota", "autoResourceLimits",
		"enableApplicationAwareQuota", "primaryUserDefinedNetworkBinding",
		// Graduated: upstream's v1 gate list no longer has it, and KubeVirt
		// v1.9.0 has VideoConfig GA (always on).
		"videoConfig",
	}
}
