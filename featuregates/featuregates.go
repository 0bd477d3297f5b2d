package featuregates

import (
	"slices"

	hcov1 "github.com/hcokit/hcokit/api/v1"
)

// KubeVirt feature gate names.
const (
	CPUManager                 = "CPUManager"
	Snapshot                   = "Snapshot"
	HotplugVolumes             = "HotplugVolumes"
	DeclarativeHotplugVolumes  = "DeclarativeHotplugVolumes"
	HostDevices                = "HostDevices"
	ExpandDisks                = "ExpandDisks"
	VMExport                   = "VMExport"
	KubevirtSeccompProfile     = "KubevirtSeccompProfile"
	HypervStrictCheck          = "HypervStrictCheck"
	WithHostPassthroughCPU     = "WithHostPassthroughCPU"
	DownwardMetrics            = "DownwardMetrics"
	PersistentReservation      = "PersistentReservation"
	AlignCPUs                  = "AlignCPUs"
	DecentralizedLiveMigration = "DecentralizedLiveMigration"
)

// alwaysOn are the KubeVirt gates the operator enables whatever the
// HyperConverged says (as upstream HCO does). HotplugVolumes is among them
// unless declarativeHotplugVolumes swaps it for DeclarativeHotplugVolumes.
var alwaysOn = []string{CPUManager, Snapshot, HostDevices, ExpandDisks, VMExport, KubevirtSeccompProfile}

// AlwaysOn returns the gates enabled whatever the HyperConverged says.
func AlwaysOn() []string { return slices.Clone(alwaysOn) }

// Options are the facts about the cluster that change the gate list.
type Options struct {
	// KVMEmulation drops gates that need hardware virtualization
	// (HypervStrictCheck).
	KVMEmulation bool
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
)

// Known returns the HyperConverged gates hcokit acts on, sorted.
func Known() []string {
	out := []string{
		GateWithHostPassthroughCPU, GateDownwardMetrics, GateDeployKubeSecondaryDNS, GateDisableMDevConfiguration,
		GatePersistentReservation, GateAlignCPUs, GateDecentralizedLiveMigration, GateDeclarativeHotplugVolumes,
	}
	slices.Sort(out)
	return out
}

// ForKubeVirt returns KubeVirt's feature gates for the HyperConverged gates.
func ForKubeVirt(g hcov1.FeatureGates, opts Options) []string {
	out := make([]string, 0, len(alwaysOn)+8)
	out = append(out, alwaysOn...)
	if g.IsEnabled(GateDeclarativeHotplugVolumes) {
		out = append(out, DeclarativeHotplugVolumes)
	} else {
		out = append(out, HotplugVolumes)
	}
	if !opts.KVMEmulation {
		out = append(out, HypervStrictCheck)
	}
	for _, m := range userGates {
		if g.IsEnabled(m.gate) {
			out = append(out, m.kubevirt)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// userGates maps each HyperConverged gate that has a KubeVirt counterpart.
var userGates = []struct{ gate, kubevirt string }{
	{GateWithHostPassthroughCPU, WithHostPassthroughCPU},
	{GateDownwardMetrics, DownwardMetrics},
	{GatePersistentReservation, PersistentReservation},
	{GateAlignCPUs, AlignCPUs},
	{GateDecentralizedLiveMigration, DecentralizedLiveMigration},
}

// Deprecated returns the JSON names of the gates that are accepted for
// compatibility and ignored.
func Deprecated() []string {
	return []string{
		"enableCommonBootImageImport", "deployTektonTaskResources", "deployVmConsoleProxy",
		"deployKubevirtIpamController", "nonRoot", "enableManagedTenantQuota", "autoResourceLimits",
		"enableApplicationAwareQuota", "primaryUserDefinedNetworkBinding",
	}
}
