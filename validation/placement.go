package validation

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	hcov1 "github.com/hcokit/hcokit/api/v1"
)

func nodeSelectorOperators() []string {
	return []string{
		string(corev1.NodeSelectorOpIn), string(corev1.NodeSelectorOpNotIn), string(corev1.NodeSelectorOpExists),
		string(corev1.NodeSelectorOpDoesNotExist), string(corev1.NodeSelectorOpGt), string(corev1.NodeSelectorOpLt),
	}
}

// Placement checks that the node selector, affinity and tolerations of p
// would be accepted in a pod: label keys and values are valid, every
// node-affinity requirement parses (In and NotIn need values, Exists and
// DoesNotExist take none, Gt and Lt take exactly one integer), and label
// selectors parse. A nil p is valid.
func Placement(p *hcov1.NodePlacement, path *field.Path) field.ErrorList {
	if p == nil {
		return nil
	}
	var errs field.ErrorList
	for _, k := range slices.Sorted(maps.Keys(p.NodeSelector)) {
		v := p.NodeSelector[k]
		sel := path.Child("nodeSelector").Key(k)
		for _, msg := range validation.IsQualifiedName(k) {
			errs = append(errs, field.Invalid(sel, k, "label key: "+msg))
		}
		for _, msg := range validation.IsValidLabelValue(v) {
			errs = append(errs, field.Invalid(sel, v, "label value: "+msg))
		}
	}
	if a := p.Affinity; a != nil {
		aff := path.Child("affinity")
		if na := a.NodeAffinity; na != nil {
			naPath := aff.Child("nodeAffinity")
			if r := na.RequiredDuringSchedulingIgnoredDuringExecution; r != nil {
				rPath := naPath.Child("requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
				if len(r.NodeSelectorTerms) == 0 {
					errs = append(errs, field.Required(rPath, "list at least one node selector term, or remove requiredDuringSchedulingIgnoredDuringExecution"))
				}
				for i, term := range r.NodeSelectorTerms {
					errs = append(errs, nodeSelectorTerm(term, rPath.Index(i))...)
				}
			}
			for i, pref := range na.PreferredDuringSchedulingIgnoredDuringExecution {
				pPath := naPath.Child("preferredDuringSchedulingIgnoredDuringExecution").Index(i)
				if pref.Weight < 1 || pref.Weight > 100 {
					errs = append(errs, field.Invalid(pPath.Child("weight"), pref.Weight, "must be between 1 and 100"))
				}
				errs = append(errs, nodeSelectorTerm(pref.Preference, pPath.Child("preference"))...)
			}
		}
		if pa := a.PodAffinity; pa != nil {
			errs = append(errs, podAffinityTerms(pa.RequiredDuringSchedulingIgnoredDuringExecution, pa.PreferredDuringSchedulingIgnoredDuringExecution, aff.Child("podAffinity"))...)
		}
		if pa := a.PodAntiAffinity; pa != nil {
			errs = append(errs, podAffinityTerms(pa.RequiredDuringSchedulingIgnoredDuringExecution, pa.PreferredDuringSchedulingIgnoredDuringExecution, aff.Child("podAntiAffinity"))...)
		}
	}
	for i, t := range p.Tolerations {
		errs = append(errs, toleration(t, path.Child("tolerations").Index(i))...)
	}
	return errs
}

func nodeSelectorTerm(term corev1.NodeSelectorTerm, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for j, req := range term.MatchExpressions {
		errs = append(errs, nodeSelectorRequirement(req, path.Child("matchExpressions").Index(j))...)
	}
	for j, req := range term.MatchFields {
		rPath := path.Child("matchFields").Index(j)
		if req.Key != "metadata.name" {
			errs = append(errs, field.NotSupported(rPath.Child("key"), req.Key, []string{"metadata.name"}))
		}
		if req.Operator != corev1.NodeSelectorOpIn && req.Operator != corev1.NodeSelectorOpNotIn {
			errs = append(errs, field.NotSupported(rPath.Child("operator"), req.Operator,
				[]string{string(corev1.NodeSelectorOpIn), string(corev1.NodeSelectorOpNotIn)}))
		} else if len(req.Values) != 1 {
			errs = append(errs, field.Invalid(rPath.Child("values"), req.Values, "a node field selector takes exactly one node name"))
		}
	}
	return errs
}

func nodeSelectorRequirement(req corev1.NodeSelectorRequirement, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsQualifiedName(req.Key) {
		errs = append(errs, field.Invalid(path.Child("key"), req.Key, "label key: "+msg))
	}
	values := path.Child("values")
	switch req.Operator {
	case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
		if len(req.Values) == 0 {
			errs = append(errs, field.Required(values,
				fmt.Sprintf("operator %s needs at least one value; list the values, or use Exists or DoesNotExist", req.Operator)))
		}
	case corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist:
		if len(req.Values) > 0 {
			errs = append(errs, field.Forbidden(values,
				fmt.Sprintf("operator %s takes no values; remove them, or use In or NotIn", req.Operator)))
		}
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
		if len(req.Values) != 1 {
			errs = append(errs, field.Invalid(values, req.Values,
				fmt.Sprintf("operator %s takes exactly one integer value", req.Operator)))
		} else if _, err := strconv.ParseInt(req.Values[0], 10, 64); err != nil {
			errs = append(errs, field.Invalid(values.Index(0), req.Values[0],
				fmt.Sprintf("operator %s takes an integer value, e.g. \"8\"", req.Operator)))
		}
	default:
		errs = append(errs, field.NotSupported(path.Child("operator"), req.Operator, nodeSelectorOperators()))
	}
	return errs
}

func podAffinityTerms(required []corev1.PodAffinityTerm, preferred []corev1.WeightedPodAffinityTerm, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, term := range required {
		errs = append(errs, podAffinityTerm(term, path.Child("requiredDuringSchedulingIgnoredDuringExecution").Index(i))...)
	}
	for i, w := range preferred {
		wPath := path.Child("preferredDuringSchedulingIgnoredDuringExecution").Index(i)
		if w.Weight < 1 || w.Weight > 100 {
			errs = append(errs, field.Invalid(wPath.Child("weight"), w.Weight, "must be between 1 and 100"))
		}
		errs = append(errs, podAffinityTerm(w.PodAffinityTerm, wPath.Child("podAffinityTerm"))...)
	}
	return errs
}

func podAffinityTerm(term corev1.PodAffinityTerm, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if term.TopologyKey == "" {
		errs = append(errs, field.Required(path.Child("topologyKey"), `set a node label key, e.g. "kubernetes.io/hostname"`))
	} else {
		for _, msg := range validation.IsQualifiedName(term.TopologyKey) {
			errs = append(errs, field.Invalid(path.Child("topologyKey"), term.TopologyKey, "label key: "+msg))
		}
	}
	for _, s := range []struct {
		name string
		sel  *metav1.LabelSelector
	}{{"labelSelector", term.LabelSelector}, {"namespaceSelector", term.NamespaceSelector}} {
		if s.sel == nil {
			continue
		}
		if _, err := metav1.LabelSelectorAsSelector(s.sel); err != nil {
			errs = append(errs, field.Invalid(path.Child(s.name), field.OmitValueType{}, fmt.Sprintf("not a valid label selector: %v", err)))
		}
	}
	return errs
}

func toleration(t corev1.Toleration, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch t.Operator {
	case corev1.TolerationOpEqual, "":
		if t.Key == "" {
			errs = append(errs, field.Required(path.Child("key"), "operator Equal needs a key; set one, or use operator Exists to tolerate every taint"))
		}
		for _, msg := range validation.IsValidLabelValue(t.Value) {
			errs = append(errs, field.Invalid(path.Child("value"), t.Value, "taint value: "+msg))
		}
	case corev1.TolerationOpExists:
		if t.Value != "" {
			errs = append(errs, field.Invalid(path.Child("value"), t.Value, "operator Exists takes no value; remove it, or use operator Equal"))
		}
	default:
		errs = append(errs, field.NotSupported(path.Child("operator"), t.Operator,
			[]string{string(corev1.TolerationOpEqual), string(corev1.TolerationOpExists)}))
	}
	if t.Key != "" {
		for _, msg := range validation.IsQualifiedName(t.Key) {
			errs = append(errs, field.Invalid(path.Child("key"), t.Key, "label key: "+msg))
		}
	}
	switch t.Effect {
	case "", corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
	default:
		errs = append(errs, field.NotSupported(path.Child("effect"), t.Effect,
			[]string{string(corev1.TaintEffectNoSchedule), string(corev1.TaintEffectPreferNoSchedule), string(corev1.TaintEffectNoExecute)}))
	}
	if t.TolerationSeconds != nil && t.Effect != corev1.TaintEffectNoExecute {
		errs = append(errs, field.Invalid(path.Child("tolerationSeconds"), *t.TolerationSeconds,
			"applies only to the NoExecute effect; set effect: NoExecute or remove tolerationSeconds"))
	}
	return errs
}
