package hco

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hcometrics"
	"github.com/hcokit/hcokit/hcostatus"
)

// assess records the operands' outcomes (findings, related objects) into a
// and returns the desired keys (an empty name protects a kind from pruning).
func (r *Reconciler) assess(ctx context.Context, hc *hcov1.HyperConverged, ops []Operand, outcomes []operandOutcome, a *assessment) map[objectKey]bool {
	logger := log.FromContext(ctx)
	var problems []string
	desiredKeys := map[objectKey]bool{}
	for i, op := range ops {
		o := outcomes[i]
		var invalid *invalidConfig
		var elsewhere *ownedElsewhere
		switch {
		case errors.As(o.err, &invalid):
			logger.Info("invalid HyperConverged configuration", "operand", op.Name(), "error", invalid.err.Error())
			problems = append(problems, invalid.err.Error())
		case errors.As(o.err, &elsewhere):
			// Not retried: the other install's events bring the reconcile back.
			a.OwnedElsewhere = append(a.OwnedElsewhere, fmt.Sprintf("operand %s: %s", op.Name(), elsewhere.Error()))
		case o.err == nil:
		case !a.record(fmt.Errorf("operand %s: %w", op.Name(), o.err)) && !apierrors.IsConflict(o.err):
			logger.Error(o.err, "operand reconcile failed", "operand", op.Name())
		}
		if o.waiting != "" {
			a.Waiting = append(a.Waiting, o.waiting)
			r.announceWaiting(ctx, hc, op, o.waiting, false)
		}
		if o.skipped != "" {
			r.announceWaiting(ctx, hc, op, o.skipped, true)
		}
		if o.err != nil || o.waiting != "" || o.skipped != "" {
			protect(desiredKeys, op)
		}
		if o.status.Kind != "" {
			a.Components = append(a.Components, o.status)
			a.ObservedVersions[op.Name()] = o.status.ObservedVersion
		}
		a.related = append(a.related, o.refs...)
		for _, k := range o.keys {
			desiredKeys[k] = true
		}
		if o.patch.annotation != "" {
			// In effect only when the patch applied: a broken one is reported
			// as InvalidConfiguration instead, and counts no operation.
			a.Tainted = a.Tainted || (o.err == nil && o.patch.set)
			if r.metrics != nil {
				r.metrics.UnsafeModifications.WithLabelValues(o.patch.annotation).Set(float64(len(o.patch.ops)))
			}
		}
	}
	if len(a.OwnedElsewhere) > 0 {
		// Announced once, when it appears or changes.
		msg := strings.Join(a.OwnedElsewhere, "; ")
		if prev := meta.FindStatusCondition(hc.Status.Conditions, hcov1.ConditionDegraded); prev == nil || prev.Reason != hcostatus.ReasonOwnedElsewhere || !strings.HasPrefix(prev.Message, msg) {
			logger.Info("objects of another install left alone", "conflicts", msg)
			r.events.Eventf(hc, nil, corev1.EventTypeWarning, EventOwnedElsewhere, "Reconcile", "%s", eventNote(msg))
		}
	}
	if len(problems) > 0 {
		a.ProblemReason, a.ProblemMessage = hcostatus.ReasonInvalidConfiguration, strings.Join(problems, "; ")
		// Announced once, when it appears, not on every reconcile.
		prev := meta.FindStatusCondition(hc.Status.Conditions, hcov1.ConditionReconcileComplete)
		if prev == nil || prev.Reason != a.ProblemReason || prev.Message != a.ProblemMessage {
			r.events.Eventf(hc, nil, corev1.EventTypeWarning, EventInvalidConfig, "Reconcile", "%s", eventNote(a.ProblemMessage))
		}
	}
	return desiredKeys
}

// maxEventNote is the longest note the API server takes in an Event.
const maxEventNote = 1024

// eventNote is msg, cut to fit an Event (the condition holds it whole).
func eventNote(msg string) string {
	if len(msg) <= maxEventNote {
		return msg
	}
	const more = "... (cut: the HyperConverged's conditions hold it whole)"
	return msg[:maxEventNote-len(more)] + more
}

// assessment is what a reconcile's steps record, an hcostatus.Assessment
// and more, for patchStatus to turn into the status and the result.
type assessment struct {
	hcostatus.Assessment
	// full: the operands were reconciled, every condition is computed; else
	// (an earlier step failed, uninstall, a refused HyperConverged) only
	// ReconcileComplete, from the failures or problem, written if either.
	full bool
	// errs are returned, so that the reconcile is retried with backoff.
	errs []error
	// conflicted: a write met a conflict; run again soon.
	conflicted bool
	// gone: the HyperConverged no longer exists (or is about to): no status.
	gone bool
	// requeueAfter: reconcile again then (a deletion in progress, a certificate to reread).
	requeueAfter time.Duration
	related      []corev1.ObjectReference
	// facts are the operands'; the status reports their node facts.
	facts Facts
	// owner is the HyperConverged's (see Owner), for the extensions.
	owner Owner
}

// ignored reports a HyperConverged other than want (the singleton) ignored.
func (a *assessment) ignored(want types.NamespacedName) {
	a.ProblemReason, a.ProblemMessage = hcostatus.ReasonInvalidRequest,
		fmt.Sprintf("only the HyperConverged named %q in namespace %q is reconciled; this one is ignored, delete it", want.Name, want.Namespace)
}

// record notes a step's error, which names its object, and reports whether
// there was none. A conflict (a cache behind a write) is no failure: the
// next reconcile, soon, sees the object as it is.
func (a *assessment) record(err error) bool {
	switch {
	case err == nil:
		return true
	case apierrors.IsConflict(err):
		a.conflicted = true
	default:
		a.errs = append(a.errs, err)
		a.Failures = append(a.Failures, err.Error())
	}
	return false
}

// patchStatus is the one status writer: it turns the assessment into the
// status, patched only if it differs from hc's (as cached), and returns the
// reconcile's result. A write needs no reconcile after it (the status watch
// drops its event). Over a stale copy (the memo holds the version the last
// write replaced) nothing is written, as the API server would refuse it (the
// patch carries hc's resourceVersion), and the reconcile comes back soon.
func (r *Reconciler) patchStatus(ctx context.Context, hc *hcov1.HyperConverged, a *assessment) (reconcile.Result, error) {
	stale, err := r.writeStatus(ctx, hc, a)
	switch {
	case err != nil || len(a.errs) > 0:
		return reconcile.Result{}, errors.Join(append(a.errs, err)...)
	case a.conflicted || stale:
		return reconcile.Result{RequeueAfter: conflictRequeue}, nil
	}
	return reconcile.Result{RequeueAfter: a.requeueAfter}, nil
}

// writeStatus writes the status, and says whether hc is a stale copy (the
// memo says so, or the API server did) and the reconcile should come back.
func (r *Reconciler) writeStatus(ctx context.Context, hc *hcov1.HyperConverged, a *assessment) (stale bool, err error) {
	if a.gone || (!a.full && len(a.Failures) == 0 && a.ProblemReason == "") {
		return false, nil
	}
	// The patch is of the status alone, not the spec (it holds the golden images).
	base := &hcov1.HyperConverged{TypeMeta: hc.TypeMeta, ObjectMeta: hc.ObjectMeta, Status: hc.Status}
	next := &hcov1.HyperConverged{TypeMeta: hc.TypeMeta, ObjectMeta: *hc.ObjectMeta.DeepCopy(), Status: *hc.Status.DeepCopy()}
	now := metav1.NewTime(r.now())
	upgraded := false
	if len(hc.Status.Conditions) == 0 && VersionOf(hc.Status.Versions, OperatorVersionName) == "" && r.env.Version != "" {
		// The first status has the operator's version, as upstream's
		// setInitialConditions at 03da3cf: that HCO installs, not upgrades.
		next.Status.Versions = []hcov1.Version{{Name: OperatorVersionName, Version: r.env.Version}}
	}
	if a.full {
		upgrading := a.Upgrading
		r.fullStatus(ctx, hc, a, &next.Status, now)
		upgraded = upgrading && !equality.Semantic.DeepEqual(hc.Status.Versions, next.Status.Versions)
	} else {
		// Only ReconcileComplete is known: the others stay as they were.
		rc := hcostatus.Conditions(a.Assessment)[0]
		rc.LastTransitionTime = now
		meta.SetStatusCondition(&next.Status.Conditions, rc)
		next.Status.ObservedGeneration = hc.Generation
		next.Status.SystemHealthStatus = hcostatus.SystemHealth([]metav1.Condition{rc}, a.Upgrading)
	}
	// The extensions hear only of the reconciled HyperConverged, not an ignored one.
	for _, ext := range r.extensions {
		if client.ObjectKeyFromObject(hc) != r.singleton() {
			break
		}
		s := r.extensionState(hc, a.owner, a)
		s.Conditions = next.Status.Conditions
		if err := ext.Reconciled(ctx, s); err != nil {
			return false, err
		}
	}
	key := objectKey{GVK: hcov1.GroupVersion.WithKind("HyperConverged"), Name: client.ObjectKeyFromObject(hc)}
	if r.applier.StatusBehind(key, hc.ResourceVersion) {
		return true, nil
	}
	if equality.Semantic.DeepEqual(hc.Status, next.Status) {
		return false, nil
	}
	err = r.client.Status().Patch(ctx, next, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{}))
	switch {
	case apierrors.IsConflict(err):
		return true, nil
	case err != nil:
		return false, client.IgnoreNotFound(fmt.Errorf("write status of HyperConverged %s: %w", client.ObjectKeyFromObject(hc), err))
	}
	r.applier.StatusWritten(key, hc.ResourceVersion)
	if upgraded {
		r.events.Eventf(hc, nil, corev1.EventTypeNormal, EventUpgradeCompleted, "Upgrade", "Upgraded to version %s", r.env.Version)
	}
	return false, nil
}

// fullStatus computes into st the status of a reconcile that reached the
// operands: conditions, related objects, node facts, the operands' own
// fields and, once every operand reports its expected version, the versions:
// that write completes an upgrade, its conditions no longer upgrading.
func (r *Reconciler) fullStatus(ctx context.Context, hc *hcov1.HyperConverged, a *assessment, st *hcov1.HyperConvergedStatus, now metav1.Time) {
	versions, done := r.versions(a.Assessment)
	if done {
		st.Versions = versions
		a.Upgrading = false
	}
	hcostatus.MergeConditions(&st.Conditions, hcostatus.Conditions(a.Assessment), now)
	st.ObservedGeneration = hc.Generation
	st.RelatedObjects = a.related
	st.SystemHealthStatus = hcostatus.SystemHealth(st.Conditions, a.Upgrading)
	hcostatus.SetNodeFacts(st, a.facts.Nodes)
	for _, op := range r.registry.Operands() {
		c, ok := op.(StatusContributor)
		if !ok {
			continue
		}
		next := *st.DeepCopy()
		if err := c.ContributeStatus(hc, a.facts, now, &next); err != nil {
			log.FromContext(ctx).Error(err, "status contribution failed")
			continue
		}
		*st = next
	}
	if r.metrics != nil {
		r.metrics.SystemHealthStatus.Set(hcometrics.HealthValue(st.SystemHealthStatus))
	}
}
