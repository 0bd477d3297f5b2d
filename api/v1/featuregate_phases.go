package v1

import "strings"

// FeatureGatePhase is the maturity of a HyperConverged feature gate, which
// decides what an unlisted gate means: a beta gate is on, an alpha or
// deprecated one off.
type FeatureGatePhase string

// The phases of upstream HCO's gate table.
const (
	FeatureGatePhaseBeta       FeatureGatePhase = "beta"
	FeatureGatePhaseAlpha      FeatureGatePhase = "alpha"
	FeatureGatePhaseDeprecated FeatureGatePhase = "deprecated"
)

// featureGatePhases is upstream HCO's gate table at commit 03da3cf
// (pkg/featuregatedetails/feature-gates.json: name and phase), plus
// withHostPassthroughCPU, which the seed documents keep as an alpha gate
// (upstream's v1 no longer lists it). api/testdata holds upstream's table,
// and a test compares the two.
var featureGatePhases = map[string]FeatureGatePhase{
	"decentralizedLiveMigration":     FeatureGatePhaseBeta,
	"declarativeHotplugVolumes":      FeatureGatePhaseBeta,
	"template":                       FeatureGatePhaseBeta,
	"alignCPUs":                      FeatureGatePhaseAlpha,
	"containerPathVolumes":           FeatureGatePhaseAlpha,
	"deployKubeSecondaryDNS":         FeatureGatePhaseAlpha,
	"deployObservabilityController":  FeatureGatePhaseAlpha,
	"downwardMetrics":                FeatureGatePhaseAlpha,
	"incrementalBackup":              FeatureGatePhaseAlpha,
	"objectGraph":                    FeatureGatePhaseAlpha,
	"disableMDevConfiguration":       FeatureGatePhaseDeprecated,
	"enableMultiArchBootImageImport": FeatureGatePhaseDeprecated,
	"persistentReservation":          FeatureGatePhaseDeprecated,
	"withHostPassthroughCPU":         FeatureGatePhaseAlpha,
}

// PhaseOf returns the phase of the gate called name, compared
// case-insensitively as the list's uniqueness rule does, and false for a
// gate hcokit does not know.
func PhaseOf(name string) (FeatureGatePhase, bool) {
	if p, ok := featureGatePhases[name]; ok {
		return p, true
	}
	for n, p := range featureGatePhases {
		if strings.EqualFold(n, name) {
			return p, true
		}
	}
	return "", false
}

// FeatureGateNames returns the name of every gate hcokit knows, unsorted.
func FeatureGateNames() []string {
	out := make([]string, 0, len(featureGatePhases))
	for n := range featureGatePhases {
		out = append(out, n)
	}
	return out
}

// DefaultEnabled reports whether the gate called name is on when
// spec.featureGates does not list it: true for a beta gate, false for every
// other, unknown ones included.
func DefaultEnabled(name string) bool {
	p, _ := PhaseOf(name)
	return p == FeatureGatePhaseBeta
}

// Enabled reports whether the gate called name is on: as its entry says
// when listed (a missing state reads as Enabled), otherwise its phase's
// default. A gate hcokit does not know is off, listed or not, as upstream's.
func (gs FeatureGates) Enabled(name string) bool {
	if _, known := PhaseOf(name); !known {
		return false
	}
	if on, listed := gs.Lookup(name); listed {
		return on
	}
	return DefaultEnabled(name)
}
