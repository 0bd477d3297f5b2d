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
	return append(warnings, unusedFieldWarnings(&hc.Spec)...)
}

// FeatureGateWarnings returns one warning for every deprecated or unknown
// name in gates, in list order. Both are accepted and ignored.
func FeatureGateWarnings(gates hcov1.FeatureGates) []string {
	known := featuregates.Known()
	deprecated := featuregates.Deprecated()
	var warnings []string
	for _, g := range gates {
		switch {
		case slices.Contains(deprecated, g.Name):
			warnings = append(warnings, fmt.Sprintf("spec.featureGates %q is deprecated and ignored; remove it", g.Name))
		case !slices.Contains(known, g.Name):
			warnings = append(warnings, fmt.Sprintf("spec.featureGates %q is not a known feature gate and is ignored; remove it (known gates: %s)",
				g.Name, strings.Join(known, ", ")))
		}
	}
	return warnings
}

// unusedFieldWarnings names the fields upstream HCO acts on that hcokit
// accepts and stores but does not act on yet, when they are set to other
// than their defaults: spec.observability and the
// deployObservabilityController gate (hcokit does not deploy the
// observability controller). applicationAwareConfig.enable is acted on (the
// aaq operand), deployNetworkResourcesInjector too (the netresinjector
// operand).
func unusedFieldWarnings(s *hcov1.HyperConvergedSpec) []string {
	var out []string
	warn := func(field string, set bool) {
		if set {
			out = append(out, fmt.Sprintf("spec.%s is accepted and stored, but hcokit does not act on it yet; it has no effect", field))
		}
	}
	warn("observability", s.Observability != nil)
	warn(`featureGates "deployObservabilityController"`, featuregates.Enabled(s.FeatureGates, featuregates.GateDeployObservabilityController))
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
