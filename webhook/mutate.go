package webhook

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kvv1 "kubevirt.io/api/core/v1"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/featuregates"
)

// What upstream HCO's mutating webhook writes into the HyperConverged
// (pkg/webhooks/mutator at 03da3cf), so that hcokit stores the same object
// for the same input: what `kubectl get hco -o yaml`, the console and GitOps
// tools show. The operator computes the same values when it builds the
// operands, with or without this webhook.

const (
	// immediateBindAnnotation asks CDI to bind a golden image's volume at
	// once; upstream adds it to every dataImportCronTemplate.
	immediateBindAnnotation = "cdi.kubevirt.io/storage.bind.immediate.requested"
	tuningPolicyHighBurst   = "highBurst"
)

// gateField is a deprecated feature gate that upstream moved into a field:
// the webhook writes the field from the gate and refuses the two
// disagreeing.
type gateField struct {
	gate  string
	field string // its path, for the messages
	path  []string
	// value reads the field: its value, and whether it is set.
	value func(*hcov1.HyperConverged) (bool, bool)
	// sameAsGate: the field means what the gate means (false: the
	// opposite, disableMDevConfiguration against enabled).
	sameAsGate bool
}

var gateFields = []gateField{
	{
		gate: featuregates.GateDisableMDevConfiguration, field: "spec.virtualization.mediatedDevicesConfiguration.enabled",
		path: []string{"spec", "virtualization", "mediatedDevicesConfiguration", "enabled"},
		value: func(hc *hcov1.HyperConverged) (bool, bool) {
			if m := hc.Spec.Virtualization.MediatedDevicesConfiguration; m != nil && m.Enabled != nil {
				return *m.Enabled, true
			}
			return true, false
		},
	},
	{
		gate: featuregates.GatePersistentReservation, field: "spec.storage.persistentReservationConfiguration.enabled",
		path: []string{"spec", "storage", "persistentReservationConfiguration", "enabled"},
		value: func(hc *hcov1.HyperConverged) (bool, bool) {
			if s := hc.Spec.Storage; s != nil && s.PersistentReservationConfiguration != nil && s.PersistentReservationConfiguration.Enabled != nil {
				return *s.PersistentReservationConfiguration.Enabled, true
			}
			return false, false
		},
		sameAsGate: true,
	},
	{
		gate: featuregates.GateEnableMultiArchBootImageImport, field: "spec.workloadSources.enableMultiArchBootImageImport",
		path: []string{"spec", "workloadSources", "enableMultiArchBootImageImport"},
		value: func(hc *hcov1.HyperConverged) (bool, bool) {
			if p := hc.Spec.WorkloadSources.EnableMultiArchBootImageImport; p != nil {
				return *p, true
			}
			return false, false
		},
		sameAsGate: true,
	},
}

// deprecation is upstream's warning for a gate moved into a field.
func (g gateField) deprecation() string {
	return "feature gate " + g.gate + " is deprecated; please use the " + g.field + " field instead"
}

// contradiction is upstream's refusal of a gate and its field disagreeing.
func (g gateField) contradiction() string {
	end := "equal to the field"
	if !g.sameAsGate {
		end = "equal to the negative value of the field"
	}
	return "the deprecated " + g.gate + " feature gate, and " + g.field + " field contradict each other; the feature gate must not be set, or should be " + end
}

// storeAsUpstream changes obj, the v1 wire form of hc, as upstream's
// mutating webhook changes it; old is the HyperConverged an UPDATE replaces
// (nil for a CREATE). A request made as v1beta1 (converted to v1 for the
// webhook) gets what upstream's v1beta1 mutator does: no move of deprecated
// gates into fields (its gates are a struct of booleans, every one listed).
// It returns upstream's warnings, or its refusal.
func storeAsUpstream(obj map[string]any, hc, old *hcov1.HyperConverged, fromV1beta1 bool) (warnings []string, refusal string) {
	goldenImageDefaults(obj)
	if ha := hc.Status.InfrastructureHighlyAvailable; ha != nil && hc.Spec.Virtualization.EvictionStrategy == nil {
		strategy := kvv1.EvictionStrategyNone
		if *ha {
			strategy = kvv1.EvictionStrategyLiveMigrate
		}
		_ = unstructured.SetNestedField(obj, string(strategy), "spec", "virtualization", "evictionStrategy")
	}
	if hc.Spec.Virtualization.TuningPolicy == tuningPolicyHighBurst && !fromV1beta1 {
		// Not supported in v1: KubeVirt's defaults are what it was.
		unstructured.RemoveNestedField(obj, "spec", "virtualization", "tuningPolicy")
		warnings = append(warnings, "spec.virtualization.tuningPolicy: the highBurst profile is not supported and ignored")
	}
	if old == nil && hc.Spec.Virtualization.KSMConfiguration == nil {
		_ = unstructured.SetNestedMap(obj, map[string]any{}, "spec", "virtualization", "ksmConfiguration")
	}
	if fromV1beta1 {
		return nil, ""
	}
	var drop []string
	for _, g := range gateFields {
		w, set, remove, refused := g.mutate(hc, old)
		if refused {
			return nil, g.contradiction()
		}
		warnings = append(warnings, w...)
		if set != nil {
			_ = unstructured.SetNestedField(obj, *set, g.path...)
		}
		if remove {
			drop = append(drop, g.gate)
		}
	}
	dropGates(obj, drop)
	return warnings, ""
}

// mutate is upstream's mutateFieldAndFGOnCreate (old nil) and
// mutateFieldAndFGOnUpdate for one gate: the warnings, the field's value
// to write (nil: none), whether the gate goes, and whether the request is
// refused.
func (g gateField) mutate(hc, old *hcov1.HyperConverged) (warnings []string, set *bool, dropGate, refused bool) {
	gateOn, listed := hc.Spec.FeatureGates.Lookup(g.gate)
	if !listed {
		return nil, nil, false, false
	}
	fieldOn, fieldSet := g.value(hc)
	disagree := (fieldOn == gateOn) != g.sameAsGate
	fromGate := gateOn == g.sameAsGate
	if old == nil {
		if fieldSet {
			if disagree {
				return nil, nil, false, true
			}
			return []string{g.deprecation()}, nil, false, false
		}
		return []string{g.deprecation()}, &fromGate, false, false
	}
	oldGateOn, oldListed := old.Spec.FeatureGates.Lookup(g.gate)
	gateChanged := !oldListed || oldGateOn != gateOn
	oldFieldOn, oldFieldSet := g.value(old)
	fieldChanged := oldFieldOn != fieldOn || oldFieldSet != fieldSet
	if gateChanged {
		switch {
		case fieldChanged && disagree:
			return nil, nil, false, true
		case fieldChanged:
		case !fieldSet:
			set = &fromGate
		case disagree:
			v := !fieldOn
			set = &v
		}
		return []string{g.deprecation()}, set, false, false
	}
	switch {
	case fieldChanged:
		return nil, nil, true, false
	case !fieldSet:
		return nil, &fromGate, false, false
	case disagree:
		return nil, nil, true, false
	}
	return nil, nil, false, false
}

// dropGates removes the named gates from obj's spec.featureGates, and the
// list itself when none is left, as upstream does.
func dropGates(obj map[string]any, names []string) {
	if len(names) == 0 {
		return
	}
	list, _, _ := unstructured.NestedSlice(obj, "spec", "featureGates")
	kept := list[:0]
	for _, item := range list {
		m, _ := item.(map[string]any)
		name, _ := m["name"].(string)
		if isAny(name, names) {
			continue
		}
		kept = append(kept, item)
	}
	if len(kept) == 0 {
		unstructured.RemoveNestedField(obj, "spec", "featureGates")
		return
	}
	_ = unstructured.SetNestedSlice(obj, kept, "spec", "featureGates")
}

func isAny(name string, names []string) bool {
	return slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(n, name) })
}

// operatorDefaults writes what upstream's operator writes into every
// HyperConverged with its first update (its Go type's defaults, not its
// CRD's): workloadSources.enableCommonBootImageImport true, and each
// feature gate's state Enabled, where they are unset. Both read the same
// unset, so nothing is decided here: the stored object just reads as
// upstream's does.
func operatorDefaults(obj map[string]any) {
	if _, set, _ := unstructured.NestedFieldNoCopy(obj, "spec", "workloadSources", "enableCommonBootImageImport"); !set {
		_ = unstructured.SetNestedField(obj, true, "spec", "workloadSources", "enableCommonBootImageImport")
	}
	gates, _, _ := unstructured.NestedFieldNoCopy(obj, "spec", "featureGates")
	list, _ := gates.([]any)
	for _, item := range list {
		if g, ok := item.(map[string]any); ok {
			if _, set := g["state"]; !set {
				g["state"] = string(hcov1.FeatureGateEnabled)
			}
		}
	}
}

// goldenImageDefaults gives every golden image upstream's immediate-bind
// annotation, and every one with a spec upstream's retentionPolicy (None)
// and importsToKeep (1), where they are unset.
func goldenImageDefaults(obj map[string]any) {
	dicts, found, _ := unstructured.NestedSlice(obj, "spec", "workloadSources", "dataImportCronTemplates")
	if !found {
		return
	}
	changed := false
	for _, item := range dicts {
		d, ok := item.(map[string]any)
		if !ok {
			continue
		}
		annotations, _, _ := unstructured.NestedStringMap(d, "metadata", "annotations")
		if _, set := annotations[immediateBindAnnotation]; !set {
			if annotations == nil {
				annotations = map[string]string{}
			}
			annotations[immediateBindAnnotation] = "true"
			_ = unstructured.SetNestedStringMap(d, annotations, "metadata", "annotations")
			changed = true
		}
		spec, ok := d["spec"].(map[string]any)
		if !ok {
			continue
		}
		if _, set := spec["retentionPolicy"]; !set {
			spec["retentionPolicy"] = "None"
			changed = true
		}
		if _, set := spec["importsToKeep"]; !set {
			spec["importsToKeep"] = int64(1)
			changed = true
		}
	}
	if changed {
		_ = unstructured.SetNestedSlice(obj, dicts, "spec", "workloadSources", "dataImportCronTemplates")
	}
}
