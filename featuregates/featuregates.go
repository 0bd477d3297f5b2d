package featuregates

import (
	"slices"

	"github.com/hcokit/hcokit/api/v1beta1"
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

// ForKubeVirt returns KubeVirt's feature gates for the HyperConverged gates.
func ForKubeVirt(g v1beta1.HyperConvergedFeatureGates, opts Options) []string {
	out := make([]string, 0, len(alwaysOn)+8)
	out = append(out, alwaysOn...)
	if on(g.DeclarativeHotplugVolumes) {
		out = append(out, DeclarativeHotplugVolumes)
	} else {
		out = append(out, HotplugVolumes)
	}
	if !opts.KVMEmulation {
		out = append(out, HypervStrictCheck)
	}
	for _, m := range userGates {
		if on(m.field(&g)) {
			out = append(out, m.kubevirt)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// userGates maps each HyperConverged gate that has a KubeVirt counterpart.
var userGates = []struct {
	field    func(*v1beta1.HyperConvergedFeatureGates) *bool
	kubevirt string
}{
	{func(g *v1beta1.HyperConvergedFeatureGates) *bool { return g.WithHostPassthroughCPU }, WithHostPassthroughCPU},
	{func(g *v1beta1.HyperConvergedFeatureGates) *bool { return g.DownwardMetrics }, DownwardMetrics},
	{func(g *v1beta1.HyperConvergedFeatureGates) *bool { return g.PersistentReservation }, PersistentReservation},
	{func(g *v1beta1.HyperConvergedFeatureGates) *bool { return g.AlignCPUs }, AlignCPUs},
	{func(g *v1beta1.HyperConvergedFeatureGates) *bool { return g.DecentralizedLiveMigration }, DecentralizedLiveMigration},
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

// Enabled reports whether a gate pointer is set to true.
func Enabled(b *bool) bool { return on(b) }

func on(b *bool) bool { return b != nil && *b }
