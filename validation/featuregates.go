package validation

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/featuregates"
)

// FeatureGateWarnings returns one warning for every deprecated or unknown
// name under spec.featureGates of the raw HyperConverged JSON, in name order.
// Both are accepted and ignored; the CRD keeps unknown names (it preserves
// unknown fields there) so the warning can name them. Raw input that is not
// a JSON object with that shape gives no warnings: it is not this function's
// job to reject it.
func FeatureGateWarnings(raw []byte) []string {
	var obj struct {
		Spec struct {
			FeatureGates map[string]json.RawMessage `json:"featureGates"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil
	}
	known := KnownFeatureGates()
	deprecated := featuregates.Deprecated()
	var warnings []string
	for _, name := range sortedKeys(obj.Spec.FeatureGates) {
		switch {
		case slices.Contains(deprecated, name):
			warnings = append(warnings, fmt.Sprintf("spec.featureGates.%s is deprecated and ignored; remove it", name))
		case !slices.Contains(known, name):
			warnings = append(warnings, fmt.Sprintf("spec.featureGates.%s is not a known feature gate and is ignored; remove it (known gates: %s)",
				name, strings.Join(current(known, deprecated), ", ")))
		}
	}
	return warnings
}

// KnownFeatureGates returns the JSON names of every field of
// v1beta1.HyperConvergedFeatureGates, deprecated ones included, sorted.
func KnownFeatureGates() []string {
	t := reflect.TypeFor[v1beta1.HyperConvergedFeatureGates]()
	names := make([]string, 0, t.NumField())
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

func current(known, deprecated []string) []string {
	return slices.DeleteFunc(slices.Clone(known), func(n string) bool { return slices.Contains(deprecated, n) })
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
