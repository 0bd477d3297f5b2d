package hcostatus

import (
	conditionsv1 "github.com/openshift/custom-resource-status/conditions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Component is what one operand's component reports, normalised to the
// four conditions the HyperConverged aggregates.
type Component struct {
	// Kind of the operand's main object, e.g. "KubeVirt". Aggregated
	// condition reasons are built from it ("KubeVirtNotAvailable").
	Kind string

	Available   ComponentCondition
	Progressing ComponentCondition
	Degraded    ComponentCondition
	Upgradeable ComponentCondition

	// NoConditions: the component's object reports no condition at all
	// (upstream's "<Kind>Conditions" reasons: a CR its operator has not
	// reconciled yet).
	NoConditions bool

	// ObservedVersion is the version the component reports as deployed;
	// empty while it reports none.
	ObservedVersion string

	// Conditions are conditions of the HyperConverged that the component
	// reports besides the aggregated ones (upstream's
	// VirtNetworkResourcesInjectorReady, say): set while the operand reports
	// them, removed when it no longer does. Their ObservedGeneration is set
	// for them.
	Conditions []metav1.Condition
}

// ComponentCondition is one condition of a component.
type ComponentCondition struct {
	Status  metav1.ConditionStatus
	Reason  string
	Message string
}

// OperandCondition is a condition as an operand reports it, whatever its
// Go type upstream (KubeVirtCondition, conditionsv1.Condition, ...).
type OperandCondition struct {
	Type    string
	Status  string
	Reason  string
	Message string
}

// Reasons used for a component that has not reported a condition.
const (
	ReasonNotFound   = "NotFound"
	ReasonNoStatus   = "NoStatusReported"
	messageNotFound  = "the object does not exist yet"
	messageNoStatus  = "the component has not reported this condition yet"
	conditionUnknown = metav1.ConditionUnknown
)

// FromConditions builds a Component from an operand's reported
// conditions. A condition it does not report is Unknown with reason
// NoStatusReported, except Upgradeable, which defaults to True: operands that
// do not report it do not block upgrades.
func FromConditions(kind string, conds []OperandCondition, observedVersion string) Component {
	s := Component{
		Kind:            kind,
		Available:       ComponentCondition{Status: conditionUnknown, Reason: ReasonNoStatus, Message: messageNoStatus},
		Progressing:     ComponentCondition{Status: conditionUnknown, Reason: ReasonNoStatus, Message: messageNoStatus},
		Degraded:        ComponentCondition{Status: conditionUnknown, Reason: ReasonNoStatus, Message: messageNoStatus},
		Upgradeable:     ComponentCondition{Status: metav1.ConditionTrue},
		ObservedVersion: observedVersion,
		NoConditions:    len(conds) == 0,
	}
	for _, c := range conds {
		cc := ComponentCondition{Status: normaliseStatus(c.Status), Reason: c.Reason, Message: c.Message}
		switch c.Type {
		case "Available":
			s.Available = cc
		case "Progressing":
			s.Progressing = cc
		case "Degraded":
			s.Degraded = cc
		case "Upgradeable":
			s.Upgradeable = cc
		}
	}
	return s
}

// NotFound is the status of a component whose object does not exist.
func NotFound(kind string) Component {
	nf := ComponentCondition{Status: conditionUnknown, Reason: ReasonNotFound, Message: messageNotFound}
	return Component{Kind: kind, Available: nf, Progressing: nf, Degraded: nf, Upgradeable: nf}
}

// Found is the status of a component that reports none: available
// once its object exists, as upstream counts such objects (a
// PriorityClass, a workload upstream deploys with its generic handlers).
func Found(kind string) Component {
	return FromConditions(kind, []OperandCondition{
		{Type: "Available", Status: string(metav1.ConditionTrue)},
		{Type: "Progressing", Status: string(metav1.ConditionFalse)},
		{Type: "Degraded", Status: string(metav1.ConditionFalse)},
	}, "")
}

func normaliseStatus(s string) metav1.ConditionStatus {
	switch metav1.ConditionStatus(s) {
	case metav1.ConditionTrue, metav1.ConditionFalse:
		return metav1.ConditionStatus(s)
	}
	return metav1.ConditionUnknown
}

// FromConditionsV1 builds a Component from the
// conditionsv1.Condition list that CDI, SSP, CNAO and the HostPathProvisioner
// report.
func FromConditionsV1(kind string, conds []conditionsv1.Condition, observedVersion string) Component {
	out := make([]OperandCondition, 0, len(conds))
	for _, c := range conds {
		out = append(out, OperandCondition{Type: string(c.Type), Status: string(c.Status), Reason: c.Reason, Message: c.Message})
	}
	return FromConditions(kind, out, observedVersion)
}
