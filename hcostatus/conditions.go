package hcostatus

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcov1 "github.com/hcokit/hcokit/api/v1"
)

// Reasons of the HyperConverged's conditions.
const (
	ReasonReconcileCompleted   = "ReconcileCompleted"
	ReasonInvalidRequest       = "InvalidRequest"
	ReasonInvalidConfiguration = "InvalidConfiguration"
	ReasonReconcileFailed      = "ReconcileFailed"
	ReasonUpgrading            = "HCOUpgrading"
	// ReasonDegraded and ReasonProgressing: not Upgradeable while a
	// component is degraded or progressing (upstream's commonDegradedReason
	// and commonProgressingReason at 03da3cf).
	ReasonDegraded        = "HCODegraded"
	ReasonProgressing     = "HCOProgressing"
	ReasonTainted         = "UnsupportedFeatureAnnotation"
	ReasonDeleting        = "Deleting"
	ReasonDeletionBlocked = "DeletionBlocked"
	// ReasonOperandAPINotServed: Degraded while an enabled operand waits
	// for the API of one of its kinds.
	ReasonOperandAPINotServed = "OperandAPINotServed"
	// ReasonOwnedElsewhere: ReconcileComplete False and Degraded True while
	// an operand's object belongs to another install (another
	// HyperConverged's, or upstream HCO's beside this one).
	ReasonOwnedElsewhere      = "OwnedByAnotherInstall"
	MessageTainted            = "Unsupported feature was activated via an HCO annotation"
	messageReconcileCompleted = "Reconcile completed successfully"
	// Upstream's messages.
	messageNotUpgradeableDegraded    = "HCO is not Upgradeable due to degraded components"
	messageNotUpgradeableProgressing = "HCO is not Upgradeable due to progressing components"
	messageNotAvailableDegraded      = "HCO is not available due to degraded components"
	reasonNotAvailableSuffix         = "NotAvailable"
	reasonProgressingSuffix          = "Progressing"
	reasonDegradedSuffix             = "Degraded"
	reasonNotUpgradeableSuffix       = "NotUpgradeable"
)

// Assessment is everything the conditions are computed from: one reconcile's
// findings. It is plain data so that the computation is a pure function.
type Assessment struct {
	// Generation of the HyperConverged the findings are about.
	Generation int64
	// Components in registry order.
	Components []Component
	// Problem, when set, makes ReconcileComplete False with this reason and message.
	ProblemReason, ProblemMessage string
	// Failures are errors of this reconcile that the admin did not cause
	// (an operand write the API server did not take, say), one message
	// each, naming the operand. They make ReconcileComplete False and
	// Degraded True, reason ReconcileFailed, ahead of a Problem.
	Failures []string
	// Waiting are the operands waiting for an API the API server does not
	// serve, one message each, naming the operand, the APIs and the fix.
	// They make Degraded True, reason OperandAPINotServed, after Failures.
	Waiting []string
	// OwnedElsewhere are the objects the operands want that belong to
	// another install, one message each, naming the object and its owner.
	// They make ReconcileComplete False and Degraded True, reason
	// OwnedByAnotherInstall, after Failures.
	OwnedElsewhere []string
	// ObservedVersions are the versions the components report, by operand name.
	ObservedVersions map[string]string
	// Upgrading is true while the operator moves from one version to
	// another, Version (the operator's own).
	Upgrading bool
	Version   string
	// Tainted is true while a jsonpatch annotation is in effect.
	Tainted bool
}

// Conditions computes the HyperConverged's conditions from an assessment.
// TaintedConfiguration is present only when Tainted.
func Conditions(a Assessment) []metav1.Condition {
	cond := func(t string, s metav1.ConditionStatus, reason, msg string) metav1.Condition {
		return metav1.Condition{Type: t, Status: s, Reason: reason, Message: msg, ObservedGeneration: a.Generation}
	}
	out := make([]metav1.Condition, 0, 6)

	switch {
	case len(a.Failures) > 0:
		msg := strings.Join(a.Failures, "; ")
		if a.ProblemMessage != "" {
			msg += "; " + a.ProblemMessage
		}
		out = append(out, cond(hcov1.ConditionReconcileComplete, metav1.ConditionFalse, ReasonReconcileFailed, msg))
	case len(a.OwnedElsewhere) > 0:
		msg := strings.Join(a.OwnedElsewhere, "; ")
		if a.ProblemMessage != "" {
			msg += "; " + a.ProblemMessage
		}
		out = append(out, cond(hcov1.ConditionReconcileComplete, metav1.ConditionFalse, ReasonOwnedElsewhere, msg))
	case a.ProblemReason != "":
		out = append(out, cond(hcov1.ConditionReconcileComplete, metav1.ConditionFalse, a.ProblemReason, a.ProblemMessage))
	default:
		out = append(out, cond(hcov1.ConditionReconcileComplete, metav1.ConditionTrue, ReasonReconcileCompleted, messageReconcileCompleted))
	}

	// As upstream's operand handlers at 03da3cf (handleComponentConditions
	// and the handleOperand*Cond functions): each component, in registry
	// order (upstream's handler order), sets the conditions it reports
	// against; the last one to set a condition stands, so the same cluster
	// state gives upstream's reasons and messages.
	set := map[string]metav1.Condition{}
	put := func(t string, st metav1.ConditionStatus, reason, msg string) { set[t] = cond(t, st, reason, msg) }
	putIfUnset := func(t string, st metav1.ConditionStatus, reason, msg string) {
		if _, ok := set[t]; !ok {
			put(t, st, reason, msg)
		}
	}
	for _, cs := range a.Components {
		k := cs.Kind
		if cs.NoConditions {
			msg := k + " resource has no conditions"
			put(hcov1.ConditionAvailable, metav1.ConditionFalse, k+"Conditions", msg)
			put(hcov1.ConditionProgressing, metav1.ConditionTrue, k+"Conditions", msg)
			put(hcov1.ConditionUpgradeable, metav1.ConditionFalse, k+"Conditions", msg)
			continue
		}
		switch {
		case cs.Available.Status == metav1.ConditionFalse:
			put(hcov1.ConditionAvailable, metav1.ConditionFalse, k+reasonNotAvailableSuffix, fmt.Sprintf("%s is not available: %v", k, cs.Available.Message))
		case cs.Available.Reason == ReasonNoStatus:
			put(hcov1.ConditionAvailable, metav1.ConditionFalse, k+reasonNotAvailableSuffix, `missing "Available" condition`)
		}
		if cs.Progressing.Status == metav1.ConditionTrue {
			msg := fmt.Sprintf("%s is progressing: %v", k, cs.Progressing.Message)
			put(hcov1.ConditionProgressing, metav1.ConditionTrue, k+reasonProgressingSuffix, msg)
			putIfUnset(hcov1.ConditionUpgradeable, metav1.ConditionFalse, k+reasonProgressingSuffix, msg)
		}
		if cs.Degraded.Status == metav1.ConditionTrue {
			put(hcov1.ConditionDegraded, metav1.ConditionTrue, k+reasonDegradedSuffix, fmt.Sprintf("%s is degraded: %v", k, cs.Degraded.Message))
		}
		if cs.Upgradeable.Status == metav1.ConditionFalse {
			put(hcov1.ConditionUpgradeable, metav1.ConditionFalse, k+reasonNotUpgradeableSuffix, fmt.Sprintf("%s is not upgradeable: %v", k, cs.Upgradeable.Message))
		}
	}
	// hcokit's own findings degrade too, ahead of the components' (whose
	// message stays): a failed write, an object of another install, an
	// operand waiting for its API.
	for _, f := range []struct {
		msgs   []string
		reason string
	}{{a.Waiting, ReasonOperandAPINotServed}, {a.OwnedElsewhere, ReasonOwnedElsewhere}, {a.Failures, ReasonReconcileFailed}} {
		if len(f.msgs) == 0 {
			continue
		}
		msg := strings.Join(f.msgs, "; ")
		if d, ok := set[hcov1.ConditionDegraded]; ok {
			msg += "; " + d.Message
		}
		put(hcov1.ConditionDegraded, metav1.ConditionTrue, f.reason, msg)
	}
	// Upstream's aggregation (aggregateComponentConditions, its chart at
	// design/aggregateComponentConditions.svg).
	if _, degraded := set[hcov1.ConditionDegraded]; degraded {
		putIfUnset(hcov1.ConditionProgressing, metav1.ConditionFalse, ReasonReconcileCompleted, messageReconcileCompleted)
		putIfUnset(hcov1.ConditionUpgradeable, metav1.ConditionFalse, ReasonDegraded, messageNotUpgradeableDegraded)
		putIfUnset(hcov1.ConditionAvailable, metav1.ConditionFalse, ReasonDegraded, messageNotAvailableDegraded)
	} else {
		put(hcov1.ConditionDegraded, metav1.ConditionFalse, ReasonReconcileCompleted, messageReconcileCompleted)
		if _, progressing := set[hcov1.ConditionProgressing]; progressing {
			putIfUnset(hcov1.ConditionUpgradeable, metav1.ConditionFalse, ReasonProgressing, messageNotUpgradeableProgressing)
		} else {
			put(hcov1.ConditionProgressing, metav1.ConditionFalse, ReasonReconcileCompleted, messageReconcileCompleted)
			putIfUnset(hcov1.ConditionUpgradeable, metav1.ConditionTrue, ReasonReconcileCompleted, messageReconcileCompleted)
		}
		putIfUnset(hcov1.ConditionAvailable, metav1.ConditionTrue, ReasonReconcileCompleted, messageReconcileCompleted)
	}
	if a.Upgrading {
		// As upstream's completeReconciliation: Progressing while upgrading.
		put(hcov1.ConditionProgressing, metav1.ConditionTrue, ReasonUpgrading, "HCO is now upgrading to version "+a.Version)
	}
	available, progressing := set[hcov1.ConditionAvailable], set[hcov1.ConditionProgressing]
	degraded, upgradeable := set[hcov1.ConditionDegraded], set[hcov1.ConditionUpgradeable]
	out = append(out, available, progressing, degraded, upgradeable)
	for _, cs := range a.Components {
		for _, c := range cs.Conditions {
			c.ObservedGeneration = a.Generation
			out = append(out, c)
		}
	}

	if a.Tainted {
		out = append(out, cond(hcov1.ConditionTaintedConfiguration, metav1.ConditionTrue, ReasonTainted, MessageTainted))
	}
	return out
}

// SystemHealth derives status.systemHealthStatus from the conditions one
// reconcile computed (conds; a condition it did not compute is not True) as
// upstream HCO does (getSystemHealthStatus at 03da3cf, on the conditions of
// its request): error when the HyperConverged is not Available or is
// Degraded, warning while its reconcile is not complete or it is
// Progressing, healthy otherwise; while upgrading only Degraded is an error
// (a component briefly unavailable is expected) and only an incomplete
// reconcile a warning. A reconcile that failed (ReconcileComplete False)
// never reached upstream's Available: an error.
func SystemHealth(conds []metav1.Condition, upgrading bool) string {
	is := func(t string) bool { return meta.IsStatusConditionTrue(conds, t) }
	available := is(hcov1.ConditionAvailable) && !meta.IsStatusConditionFalse(conds, hcov1.ConditionReconcileComplete)
	switch {
	case upgrading && is(hcov1.ConditionDegraded), !upgrading && (!available || is(hcov1.ConditionDegraded)):
		return hcov1.SystemHealthError
	case !is(hcov1.ConditionReconcileComplete), !upgrading && is(hcov1.ConditionProgressing):
		return hcov1.SystemHealthWarning
	}
	return hcov1.SystemHealthHealthy
}

// MergeConditions writes want into existing: a condition whose status is
// unchanged keeps its LastTransitionTime; a condition type absent from want is
// removed. It reports whether anything changed.
func MergeConditions(existing *[]metav1.Condition, want []metav1.Condition, now metav1.Time) bool {
	changed := false
	keep := make(map[string]bool, len(want))
	for _, c := range want {
		keep[c.Type] = true
		c.LastTransitionTime = now
		if meta.SetStatusCondition(existing, c) {
			changed = true
		}
	}
	for _, c := range append([]metav1.Condition(nil), *existing...) {
		if !keep[c.Type] {
			meta.RemoveStatusCondition(existing, c.Type)
			changed = true
		}
	}
	return changed
}
