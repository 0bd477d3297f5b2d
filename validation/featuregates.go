package validation

import (
	"fmt"
	"slices"
	"strings"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/featuregates"
)

// Warnings returns the admission warnings for hc: one for every deprecated
// or unknown name in spec.featureGates (in list order), then one for every
// field that is accepted and stored but that nothing in hcokit acts on yet,
// when it is set to other than its default. None of them is an error.
func Warnings(hc *hcov1.HyperConverged) []string {
	warnings := FeatureGateWarnings(hc.Spec.FeatureGates)
	return warnings
}

// FeatureGateWarnings returns one warning for every deprecated or unknown
// name in gates, in list order. Both are accepted and ignored. Names
// compare case-insensitively, as featuregates.Enabled reads them: a gate
// written "DownwardMetrics" is acted on, so it is not called unknown.
func FeatureGateWarnings(gates hcov1.FeatureGates) []string {
	known := featuregates.Known()
	deprecated := featuregates.Deprecated()
	among := func(names []string, name string) bool {
		return slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(n, name) })
	}
	var warnings []string
	for _, g := range gates {
		switch {
		case among(deprecated, g.Name):
			warnings = append(warnings, fmt.Sprintf("spec.featureGates %q is deprecated and ignored; remove it", g.Name))
		case !among(known, g.Name):
			warnings = append(warnings, fmt.Sprintf("spec.featureGates %q is not a known feature gate and is ignored; remove it (known gates: %s)",
				g.Name, strings.Join(known, ", ")))
		}
	}
	return warnings
}

// V1beta1GateWarnings returns, for a v1beta1 HyperConverged, one warning
// for each gate it sets that upstream's table discontinued (videoConfig,
// nonRoot, ...), in field order, worded as FeatureGateWarnings words a
// deprecated v1 gate: the v1 conversion leaves them out of v1's list, as
// upstream's does, so the v1 object's warnings cannot name them. A nil
// object gives none.
func V1beta1GateWarnings(old *v1beta1.HyperConverged) []string {
	if old == nil {
		return nil
	}
	var out []string
	for _, name := range v1beta1.DiscontinuedGatesSet(old.Spec.FeatureGates) {
		out = append(out, fmt.Sprintf("spec.featureGates %q is deprecated and ignored; remove it", name))
	}
	return out
}

// V1beta1Warnings returns the warnings for what a v1beta1 HyperConverged
// sets that v1 has no field for and nothing acts on (upstream HCO ignores
// them too); the v1 conversion keeps them, in the annotation
// hcokit.io/v1beta1-fields. A nil object gives none.
func V1beta1Warnings(old *v1beta1.HyperConverged) []string {
	if old == nil {
		return nil
	}
	s := &old.Spec
	var out []string
	ignored := func(field string, set bool) {
		if set {
			out = append(out, fmt.Sprintf("spec.%s is deprecated and ignored (as upstream HCO ignores it); remove it", field))
		}
	}
	ignored("localStorageClassName", s.LocalStorageClassName != "")
	ignored("vddkInitImage", s.VddkInitImage != nil)
	ignored("tektonPipelinesNamespace", s.TektonPipelinesNamespace != nil)
	ignored("tektonTasksNamespace", s.TektonTasksNamespace != nil)
	ignored("obsoleteCPUs.minCPUModel", s.ObsoleteCPUs != nil && s.ObsoleteCPUs.MinCPUModel != "")
	return out
}
