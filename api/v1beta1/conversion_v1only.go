package v1beta1

import (
	"encoding/json"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/api/equality"

	hcov1 "github.com/hcokit/hcokit/api/v1"
)

// V1OnlyFieldsAnnotation, on a v1beta1 HyperConverged, holds what the v1
// object said that v1beta1 has no field for, or says in a coarser form: the
// feature gate list as written (order, and whether each entry named its
// state), spec.observability and spec.workloadSources.enableMultiArchBootImageImport.
// Writing the v1beta1 object back gives the v1 object unchanged. The key and
// the JSON members are upstream HCO's (commit 03da3cf, api/v1beta1/conversion.go),
// so an object converted by either operator reads the same in the other.
// The conversion writes and reads it; nothing else should.
const V1OnlyFieldsAnnotation = "hco.kubevirt.io/v1-only-fields"

// v1OnlyFields is the content of V1OnlyFieldsAnnotation.
type v1OnlyFields struct {
	FeatureGates  hcov1.FeatureGates         `json:"featureGates,omitempty"`
	Observability *hcov1.ObservabilityConfig `json:"observability,omitempty"`
	// Upstream's members for the v1 fields hcokit's v1beta1 carries as
	// fields (or, multiArchEnabled, as its gate): read, when the v1beta1
	// object does not state them, and never written.
	MultiArchEnabled               *bool `json:"multiArchEnabled,omitempty"`
	MDevConfigEnable               *bool `json:"mdevConfigEnable,omitempty"`
	PersistentReservationEnabled   *bool `json:"persistentReservationEnabled,omitempty"`
	DeployNetworkResourcesInjector *bool `json:"deployNetworkResourcesInjector,omitempty"`
}

func (f v1OnlyFields) empty() bool {
	return len(f.FeatureGates) == 0 && f.Observability == nil
}

// The deprecated v1beta1 gates that v1 made fields, as upstream's
// conversion at 03da3cf moves them (convertMultiArchV1beta1FGToV1,
// convertMDevEnabledV1beta1ToV1, convertPersistentReservationV1beta1ToV1
// and back): each converts to and from its field, never to an entry of
// v1's list; an entry v1 lists anyway is set to the gate's value.
const (
	// gateMultiArch is v1's spec.workloadSources.enableMultiArchBootImageImport.
	gateMultiArch = "enableMultiArchBootImageImport"
	// gateDisableMDev is the negation of v1's
	// spec.virtualization.mediatedDevicesConfiguration.enabled.
	gateDisableMDev = "disableMDevConfiguration"
	// gatePersistentReservation is v1's
	// spec.storage.persistentReservationConfiguration.enabled.
	gatePersistentReservation = "persistentReservation"
)

// fieldGates are those gates.
var fieldGates = []string{gateMultiArch, gateDisableMDev, gatePersistentReservation}

// discontinued reports whether the v1beta1 gate called name is one
// upstream's table no longer has (its v1beta1 fields marked
// +hco:fgphase:discontinued at 03da3cf: videoConfig, nonRoot,
// autoResourceLimits and the others): upstream's conversion leaves them out
// of v1, and so does this one; hcokit keeps a value set on the v1 object
// (FieldsAnnotation) for v1beta1 readers. withHostPassthroughCPU is not
// one: the seed keeps it a gate.
func discontinued(name string) bool {
	_, known := hcov1.PhaseOf(name)
	return !known
}

// DiscontinuedGatesSet returns the names of the gates of g that upstream's
// table discontinued and g sets, in field order: the v1 conversion leaves
// them out of v1's list (see discontinued).
func DiscontinuedGatesSet(g HyperConvergedFeatureGates) []string {
	raw, _ := json.Marshal(namedFeatureGates(g))
	var values map[string]bool
	_ = json.Unmarshal(raw, &values)
	var out []string
	for _, name := range namedGates() {
		if _, set := values[name]; set && discontinued(name) {
			out = append(out, name)
		}
	}
	return out
}

// gateFields are the values of the fieldGates, and of the discontinued
// gates (by name; absent: unset).
type gateFields map[string]bool

// discontinuedOnly returns the discontinued gates of g (nil when none).
func (g gateFields) discontinuedOnly() map[string]bool {
	var out map[string]bool
	for name, v := range g {
		if discontinued(name) {
			if out == nil {
				out = map[string]bool{}
			}
			out[name] = v
		}
	}
	return out
}

// gateFieldsOfV1 states v1's fields as the fieldGates' values.
func gateFieldsOfV1(s *hcov1.HyperConvergedSpec) gateFields {
	out := gateFields{}
	if v := s.WorkloadSources.EnableMultiArchBootImageImport; v != nil {
		out[gateMultiArch] = *v
	}
	if m := s.Virtualization.MediatedDevicesConfiguration; m != nil && m.Enabled != nil {
		out[gateDisableMDev] = !*m.Enabled
	}
	if st := s.Storage; st != nil && st.PersistentReservationConfiguration != nil && st.PersistentReservationConfiguration.Enabled != nil {
		out[gatePersistentReservation] = *st.PersistentReservationConfiguration.Enabled
	}
	return out
}

// applyTo sets v1's fields from the gates v1beta1 states (a gate not set
// leaves its field as it is).
func (g gateFields) applyTo(s *hcov1.HyperConvergedSpec) {
	if v, ok := g[gateMultiArch]; ok {
		s.WorkloadSources.EnableMultiArchBootImageImport = &v
	}
	if v, ok := g[gateDisableMDev]; ok {
		if s.Virtualization.MediatedDevicesConfiguration == nil {
			s.Virtualization.MediatedDevicesConfiguration = &hcov1.MediatedDevicesConfiguration{}
		}
		s.Virtualization.MediatedDevicesConfiguration.Enabled = ptrTo(!v)
	}
	if v, ok := g[gatePersistentReservation]; ok {
		if s.Storage == nil {
			s.Storage = &hcov1.StorageConfig{}
		}
		if s.Storage.PersistentReservationConfiguration == nil {
			s.Storage.PersistentReservationConfiguration = &hcov1.PersistentReservationConfiguration{}
		}
		s.Storage.PersistentReservationConfiguration.Enabled = &v
	}
}

func ptrTo[T any](v T) *T { return &v }

// setExplicitly reports whether v1beta1 states the gate called name even
// when v1 does not list it, as upstream's conversion does: every alpha and
// beta gate of upstream's table that has a v1beta1 field. The others
// (deprecated, ignored, or hcokit's withHostPassthroughCPU) appear only
// when listed.
func setExplicitly(name string) bool {
	phase, known := hcov1.PhaseOf(name)
	return known && name != "withHostPassthroughCPU" &&
		(phase == hcov1.FeatureGatePhaseBeta || phase == hcov1.FeatureGatePhaseAlpha)
}

// featureGatesFromV1 states v1's gates as v1beta1's booleans: a named gate
// in its field, any other listed gate in Others, and the fieldGates and
// the discontinued gates from fields (v1's fields, and what was kept),
// whatever v1 lists for them.
func featureGatesFromV1(gs hcov1.FeatureGates, fields gateFields) HyperConvergedFeatureGates {
	values := map[string]bool{}
	var others map[string]bool
	named := NamedFeatureGates()
	for _, g := range gs {
		if named[g.Name] {
			values[g.Name] = g.IsEnabled()
			continue
		}
		if others == nil {
			others = map[string]bool{}
		}
		others[g.Name] = g.IsEnabled()
	}
	for name := range named {
		if setExplicitly(name) {
			values[name] = gs.Enabled(name)
		}
	}
	for name := range named {
		if !slices.Contains(fieldGates, name) && !discontinued(name) {
			continue
		}
		delete(values, name)
		if v, ok := fields[name]; ok {
			values[name] = v
		}
	}
	raw, _ := json.Marshal(values)
	var out namedFeatureGates
	_ = json.Unmarshal(raw, &out)
	out.Others = others
	return HyperConvergedFeatureGates(out)
}

// featureGatesToV1 turns v1beta1's booleans back into v1's list, starting
// from the list as v1 wrote it (kept, from V1OnlyFieldsAnnotation) so that
// an unchanged gate keeps its entry as written. As upstream's conversion: a
// named gate that v1beta1 leaves unset is removed, one whose value differs
// from its entry is set, and one that is not listed is added when its value
// differs from the gate's default, or, for a gate v1beta1 states only when
// listed (see setExplicitly), whenever it is set. The fieldGates set are
// returned, for their v1 fields, and not listed; an entry the kept list
// has for one follows its value. The discontinued gates set are returned
// too, and neither listed nor changed in the list.
func featureGatesToV1(g HyperConvergedFeatureGates, kept hcov1.FeatureGates) (hcov1.FeatureGates, gateFields) {
	out := slices.Clone(kept)
	raw, _ := json.Marshal(namedFeatureGates(g)) // a struct of *bool always encodes
	var values map[string]bool
	_ = json.Unmarshal(raw, &values)

	apply := func(name string, value bool) {
		if on, listed := out.Lookup(name); listed {
			if on != value {
				out.Set(name, value)
			}
		} else if value != hcov1.DefaultEnabled(name) || !setExplicitly(name) {
			// A gate v1beta1 states only when listed is listed whenever
			// set, so that it comes back as written.
			out.Set(name, value)
		}
	}
	fields := gateFields{}
	for _, name := range namedGates() {
		if slices.Contains(fieldGates, name) {
			continue
		}
		if discontinued(name) {
			if value, set := values[name]; set {
				fields[name] = value
			}
			continue
		}
		value, set := values[name]
		if !set {
			out.Remove(name)
			continue
		}
		apply(name, value)
	}
	// A listed gate that is neither a named field nor in Others was
	// removed from the v1beta1 object.
	named := NamedFeatureGates()
	out = slices.DeleteFunc(out, func(e hcov1.FeatureGate) bool {
		_, other := g.Others[e.Name]
		return !named[e.Name] && !other
	})
	for _, name := range slices.Sorted(maps.Keys(g.Others)) {
		apply(name, g.Others[name])
	}

	for _, name := range fieldGates {
		value, set := values[name]
		if !set {
			continue
		}
		fields[name] = value
		if on, listed := out.Lookup(name); listed && on != value {
			out.Set(name, value)
		}
	}
	if len(out) == 0 {
		out = nil
	}
	return out, fields
}

// keepV1Only stores in the v1beta1 object's annotations what v1 said that
// v1beta1 cannot say as written: spec.observability, and the gate list when
// converting gates back from v1beta1's booleans would not give it as written
// (a v1 list written with states in another order, an entry without a
// state, a default stated). A list that v1beta1 reproduces needs no
// annotation, so an object written as v1beta1 reads back without one.
// enableMultiArchBootImageImport travels in v1beta1's gate of that name.
func keepV1Only(annotations *map[string]string, s *hcov1.HyperConvergedSpec, gates HyperConvergedFeatureGates) error {
	f := v1OnlyFields{Observability: s.Observability.DeepCopy()}
	if rebuilt, _ := featureGatesToV1(gates, nil); !equality.Semantic.DeepEqual(rebuilt, s.FeatureGates) {
		f.FeatureGates = slices.Clone(s.FeatureGates)
	}
	return setAnnotation(annotations, V1OnlyFieldsAnnotation, f, f.empty())
}

// v1OnlyKept reads V1OnlyFieldsAnnotation. An annotation edited into
// something unreadable loses only what it kept.
func v1OnlyKept(annotations map[string]string) v1OnlyFields {
	var f v1OnlyFields
	if raw, ok := annotations[V1OnlyFieldsAnnotation]; ok {
		_ = json.Unmarshal([]byte(raw), &f)
	}
	return f
}

// setAnnotation writes v as JSON under key, or removes key when empty.
func setAnnotation(annotations *map[string]string, key string, v any, empty bool) error {
	if empty {
		delete(*annotations, key)
		if len(*annotations) == 0 {
			*annotations = nil
		}
		return nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if *annotations == nil {
		*annotations = map[string]string{}
	}
	(*annotations)[key] = string(raw)
	return nil
}
