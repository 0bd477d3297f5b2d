package v1beta1

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// namedFeatureGates has the fields of HyperConvergedFeatureGates without its
// JSON methods, for encoding/json to handle the named gates.
type namedFeatureGates HyperConvergedFeatureGates

// MarshalJSON writes the named gates and Others as one JSON object.
func (g HyperConvergedFeatureGates) MarshalJSON() ([]byte, error) {
	named, err := json.Marshal(namedFeatureGates(g))
	if err != nil || len(g.Others) == 0 {
		return named, err
	}
	all := map[string]json.RawMessage{}
	if err := json.Unmarshal(named, &all); err != nil {
		return nil, err
	}
	for name, on := range g.Others {
		if _, taken := all[name]; !taken {
			all[name] = json.RawMessage(fmt.Sprint(on))
		}
	}
	return json.Marshal(all)
}

// UnmarshalJSON reads the named gates into their fields and every other
// boolean into Others. A gate whose value is not a boolean is an error that
// names it.
func (g *HyperConvergedFeatureGates) UnmarshalJSON(data []byte) error {
	var named namedFeatureGates
	if err := json.Unmarshal(data, &named); err != nil {
		return err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return err
	}
	known := NamedFeatureGates()
	for name, raw := range all {
		if known[name] || string(raw) == "null" {
			continue
		}
		var on bool
		if err := json.Unmarshal(raw, &on); err != nil {
			return fmt.Errorf("spec.featureGates.%s: must be true or false, not %s", name, raw)
		}
		if named.Others == nil {
			named.Others = map[string]bool{}
		}
		named.Others[name] = on
	}
	*g = HyperConvergedFeatureGates(named)
	return nil
}

// NamedFeatureGates returns the JSON names of the gates v1beta1 has a field
// for, deprecated ones included.
func NamedFeatureGates() map[string]bool {
	names := map[string]bool{}
	for _, name := range namedGates() {
		names[name] = true
	}
	return names
}

// namedGates returns the JSON names of the named gates in field order.
func namedGates() []string {
	t := reflect.TypeFor[HyperConvergedFeatureGates]()
	names := make([]string, 0, t.NumField())
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			names = append(names, name)
		}
	}
	return names
}
