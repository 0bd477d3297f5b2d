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
	messageAllAvailable       = "All components are available"
	messageNothingProgressing = "No component is progressing"
	messageNothingDegraded    = "No component is degraded"
	messageAllUpgradeable     = "All components are upgradeable"
	messageUpgrading          = "The operator is upgrading its components"
	// Upstream's messages.
	messageNotUpgradeableDegraded    = "HCO is not Upgradeable due to degraded components"
	messageNotUpgradeableProgressing = "HCO is not Upgradeable due to progressing components"
	reasonNotAvailableSuffix         = "NotAvailable"
	reasonProgressingSuffix          = "Progressing"
	reasonDegradedSuffix             = "Degraded"
	reasonNotUpgradeableSuffix       = "NotUpgradeable"
	messageComponentHasNotReported   = "%s has not reported %s yet"
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
	// Skipped are the platform defaults left out because the API server
	// does not serve their API (hco.Registry.OnlyWhereServed), one message
	// each, naming the operand and its API. They degrade nothing; a
	// completed reconcile's message names them.
	Skipped []string
	// OwnedElsewhere are the objects the operands want that belong to
	// another install, one message each, naming the object and its owner.
	// They make ReconcileComplete False and Degraded True, reason
	// OwnedByAnotherInstall, after Failures.
	OwnedElsewhere []string
	// ObservedVersions are the versions the components report, by operand name.
	ObservedVersions map[string]string
	// Upgrading is true while the operator moves from one version to another.
	Upgrading bool
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
		msg := messageReconcileCompleted
		if len(a.Skipped) > 0 {
			msg += "; " + strings.Join(a.Skipped, "; ")
		}
		out = append(out, cond(hcov1.ConditionReconcileComplete, metav1.ConditionTrue, ReasonReconcileCompleted, msg))
	}

	available := cond(hcov1.ConditionAvailable, metav1.ConditionTrue, ReasonReconcileCompleted, messageAllAvailable)
	progressing := cond(hcov1.ConditionProgressing, metav1.ConditionFalse, ReasonReconcileCompleted, messageNothingProgressing)
	degraded := cond(hcov1.ConditionDegraded, metav1.ConditionFalse, ReasonReconcileCompleted, messageNothingDegraded)
	upgradeable := cond(hcov1.ConditionUpgradeable, metav1.ConditionTrue, ReasonReconcileCompleted, messageAllUpgradeable)

	// The first component to report a problem names it; later ones are
	// appended to the message so that nothing is hidden.
	note := func(c *metav1.Condition, s metav1.ConditionStatus, reason, msg string) {
		if c.Status != s {
			c.Status, c.Reason, c.Message = s, reason, msg
			return
		}
		c.Message += "; " + msg
	}
	for _, cs := range a.Components {
		if cs.Available.Status != metav1.ConditionTrue {
			note(&available, metav1.ConditionFalse, cs.Kind+reasonNotAvailableSuffix, componentMessage(cs.Kind, "Available", cs.Available))
		}
		if cs.Progressing.Status != metav1.ConditionFalse {
			note(&progressing, metav1.ConditionTrue, cs.Kind+reasonProgressingSuffix, componentMessage(cs.Kind, "Progressing", cs.Progressing))
		}
		if cs.Degraded.Status == metav1.ConditionTrue {
			note(&degraded, metav1.ConditionTrue, cs.Kind+reasonDegradedSuffix, componentMessage(cs.Kind, "Degraded", cs.Degraded))
		}
		if cs.Upgradeable.Status == metav1.ConditionFalse {
			note(&upgradeable, metav1.ConditionFalse, cs.Kind+reasonNotUpgradeableSuffix, componentMessage(cs.Kind, "Upgradeable", cs.Upgradeable))
		}
	}
	if len(a.Waiting) > 0 {
		// Before the components' own degradation, which stays in the message.
		msg := strings.Join(a.Waiting, "; ")
		if degraded.Status == metav1.ConditionTrue {
			msg += "; " + degraded.Message
		}
		degraded.Status, degraded.Reason, degraded.Message = metav1.ConditionTrue, ReasonOperandAPINotServed, msg
	}
	if len(a.OwnedElsewhere) > 0 {
		msg := strings.Join(a.OwnedElsewhere, "; ")
		if degraded.Status == metav1.ConditionTrue {
			msg += "; " + degraded.Message
		}
		degraded.Status, degraded.Reason, degraded.Message = metav1.ConditionTrue, ReasonOwnedElsewhere, msg
	}
	if len(a.Failures) > 0 {
		// The failure first; a component's own degradation stays in the message.
		msg := strings.Join(a.Failures, "; ")
		if degraded.Status == metav1.ConditionTrue {
			msg += "; " + degraded.Message
		}
		degraded.Status, degraded.Reason, degraded.Message = metav1.ConditionTrue, ReasonReconcileFailed, msg
	}
	if a.Upgrading {
		progressing.Status, progressing.Reason, progressing.Message = metav1.ConditionTrue, ReasonUpgrading, messageUpgrading
		upgradeable.Status, upgradeable.Reason, upgradeable.Message = metav1.ConditionFalse, ReasonUpgrading, messageUpgrading
	}
	// As upstream: not upgradeable while anything is degraded or
	// progressing, unless a component has said why already (its reason
	// stays).
	if upgradeable.Status == metav1.ConditionTrue {
		switch {
		case degraded.Status == metav1.ConditionTrue:
			upgradeable.Status, upgradeable.Reason, upgradeable.Message = metav1.ConditionFalse, ReasonDegraded, messageNotUpgradeableDegraded
		case progressing.Status == metav1.ConditionTrue:
			upgradeable.Status, upgradeable.Reason, upgradeable.Message = metav1.ConditionFalse, ReasonProgressing, messageNotUpgradeableProgressing
		}
	}
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

func componentMessage(kind, condType string, c ComponentCondition) string {
	switch {
	case c.Reason == ReasonNotFound:
		return kind + " does not exist yet"
	case c.Reason == ReasonNoStatus:
		return fmt.Sprintf(messageComponentHasNotReported, kind, condType)
	case c.Message != "":
		return kind + ": " + c.Message
	case c.Reason != "":
		return kind + ": " + c.Reason
	}
	return fmt.Sprintf("%s %s is %s", kind, condType, c.Status)
}

// SystemHealth derives status.systemHealthStatus from the conditions: error
// when the reconcile fails or a component is degraded, warning while anything
// is unavailable, progressing or not upgradeable, healthy otherwise.
func SystemHealth(conds []metav1.Condition) string {
	is := func(t string, s metav1.ConditionStatus) bool {
		c := meta.FindStatusCondition(conds, t)
		return c != nil && c.Status == s
	}
	switch {
	case is(hcov1.ConditionReconcileComplete, metav1.ConditionFalse), is(hcov1.ConditionDegraded, metav1.ConditionTrue):
		return hcov1.SystemHealthError
	case is(hcov1.ConditionAvailable, metav1.ConditionFalse), is(hcov1.ConditionProgressing, metav1.ConditionTrue),
		is(hcov1.ConditionUpgradeable, metav1.ConditionFalse):
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
