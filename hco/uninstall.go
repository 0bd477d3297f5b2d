package hco

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	kvv1 "kubevirt.io/api/core/v1"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco/internal/apply"

	"github.com/hcokit/hcokit/hcostatus"
)

// uninstallPoll is how often a deletion in progress is checked besides the
// watch events; maxUninstallPoll bounds it once blocked (uninstallPollAfter).
const (
	uninstallPoll    = 2 * time.Second
	maxUninstallPoll = 5 * time.Minute
)

// uninstallPollAfter is when a deletion requested at deleted is checked
// again (listing past the cache): every uninstallPoll, then, once blocked
// (DeletionTimeout), after a tenth of the time waited, at most maxUninstallPoll.
func (r *Reconciler) uninstallPollAfter(deleted time.Time) time.Duration {
	waited := r.now().Sub(deleted)
	if waited <= r.DeletionTimeout {
		return uninstallPoll
	}
	return min(max(waited/10, uninstallPoll), maxUninstallPoll)
}

// uninstall deletes, group by group (DeletionOrderer), everything the
// operator manages for hc, found by label past the cache, then drops the
// finalizer, without garbage collection (cluster-scoped objects cannot
// reference the namespaced HyperConverged), whether or not hc still
// carries our finalizer (another's may hold it).
func (r *Reconciler) uninstall(ctx context.Context, hc *hcov1.HyperConverged, owner Owner, a *assessment) {
	// Extensions undo first (the shared lists' items: the console drops the
	// plugin before its server goes), on the facts known without gathering.
	s := r.extensionState(hc, owner, a)
	s.Facts = Facts{Environment: r.env, Platform: Platform{OpenShift: r.openShift}}
	for _, ext := range r.extensions {
		if u, ok := ext.(Uninstaller); ok && !a.record(u.Uninstall(ctx, s)) {
			return
		}
	}
	remaining, err := r.deleteOperands(ctx, hc, owner, r.reader, "the HyperConverged is being deleted")
	if !a.record(err) {
		return
	}
	if len(remaining) > 0 {
		r.reportUninstall(hc, remaining, a)
		a.requeueAfter = r.uninstallPollAfter(hc.DeletionTimestamp.Time)
		return
	}
	moved, err := apply.RemoveFinalizer(ctx, r.client, hc, FinalizerName)
	switch {
	case err != nil:
		a.record(fmt.Errorf("remove finalizer from HyperConverged %s: %w", client.ObjectKeyFromObject(hc), err))
	case moved:
		// Cache behind (another finalizer went, or another object) or patch
		// refused: no event will come, so retry with the rate limiter's backoff.
		a.errs = append(a.errs, fmt.Errorf("remove finalizer from HyperConverged %s: it no longer matches what was read (%w); reading it again",
			client.ObjectKeyFromObject(hc), errFinalizerMoved))
	default:
		a.gone = true
	}
}

// sweepOrphans deletes, group by group from the cache (no request when
// none), the operand objects recorded for owner, a gone HyperConverged that
// a DELETE removed at once, having read it before the finalizer was stored
// (the check after the creates cannot see a DELETE in flight). Labelled
// ones without the record (upstream's, say) stay. The deletions' events
// bring the next group.
func (r *Reconciler) sweepOrphans(ctx context.Context, owner Owner) (reconcile.Result, error) {
	gone := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: owner.Name, Namespace: owner.Namespace}}
	remaining, err := r.deleteOperands(ctx, gone, owner, r.cache, "its HyperConverged no longer exists")
	if err != nil || len(remaining) == 0 {
		return reconcile.Result{}, err
	}
	return reconcile.Result{RequeueAfter: uninstallPoll}, nil
}

// deleteOperands deletes owner's operand objects as reader lists them, by
// group (DeletionOrderer), each if still the one listed (UID), with an Event
// on hc; it returns what remains of the first group not gone (nil: none).
func (r *Reconciler) deleteOperands(ctx context.Context, hc *hcov1.HyperConverged, owner Owner, reader client.Reader, why string) ([]client.Object, error) {
	for _, group := range r.deletionGroups() {
		var remaining []client.Object
		for _, op := range group {
			for _, k := range r.kinds.Served() {
				if !slices.Contains(k.Operands, op.Name()) {
					continue
				}
				// Past the cache: one it lags on (just created, or a watch
				// down) must not outlive the finalizer.
				items, err := r.listOwned(ctx, reader, k, owner)
				if err != nil {
					return nil, err
				}
				for i := range items {
					obj := &items[i]
					if !owner.deletable(op, obj) {
						continue // not recorded as owner's, and op yields to others'
					}
					remaining = append(remaining, obj)
					if !obj.GetDeletionTimestamp().IsZero() {
						continue
					}
					if err := r.deleteObject(ctx, hc, k.GVK, obj, why); err != nil {
						return nil, err
					}
				}
			}
		}
		if len(remaining) > 0 {
			return remaining, nil
		}
	}
	return nil, nil
}

// errFinalizerMoved: the finalizer removal's tests failed.
var errFinalizerMoved = errors.New("finalizer list or UID changed")

// deletionGroups returns the enabled operands grouped by DeletionOrder, in
// ascending order, registry order within a group.
func (r *Reconciler) deletionGroups() [][]Operand {
	order := func(op Operand) int {
		if d, ok := op.(DeletionOrderer); ok {
			return d.DeletionOrder()
		}
		return 0
	}
	ops := slices.Clone(r.registry.Operands())
	slices.SortStableFunc(ops, func(a, b Operand) int { return cmp.Compare(order(a), order(b)) })
	var groups [][]Operand
	for i, op := range ops {
		if i == 0 || order(op) != order(ops[i-1]) {
			groups = append(groups, nil)
		}
		groups[len(groups)-1] = append(groups[len(groups)-1], op)
	}
	return groups
}

// reportUninstall makes a deletion in progress visible, and a deletion that
// has waited longer than DeletionTimeout visible as blocked.
func (r *Reconciler) reportUninstall(hc *hcov1.HyperConverged, remaining []client.Object, a *assessment) {
	names := make([]string, 0, len(remaining))
	for _, obj := range remaining {
		n := obj.GetObjectKind().GroupVersionKind().Kind + " " + obj.GetName()
		if f := obj.GetFinalizers(); len(f) > 0 {
			n += " (finalizers: " + strings.Join(f, ", ") + ")"
		}
		names = append(names, n)
	}
	a.ProblemReason, a.ProblemMessage = hcostatus.ReasonDeleting, "waiting for "+strings.Join(names, ", ")+" to be deleted"
	if r.now().Sub(hc.DeletionTimestamp.Time) > r.DeletionTimeout {
		// A stable message: a stuck deletion is written once, not every poll.
		a.ProblemReason = hcostatus.ReasonDeletionBlocked
		a.ProblemMessage = fmt.Sprintf("deletion requested at %s has waited more than %s for %s; check the component operators and the finalizers named",
			hc.DeletionTimestamp.UTC().Format(time.RFC3339), r.DeletionTimeout, strings.Join(names, ", "))
		if c := meta.FindStatusCondition(hc.Status.Conditions, hcov1.ConditionReconcileComplete); c == nil || c.Reason != hcostatus.ReasonDeletionBlocked {
			r.events.Eventf(hc, nil, corev1.EventTypeWarning, EventDeletionBlocked, "Delete", "%s", eventNote(a.ProblemMessage))
		}
	}
}

// FinalizerName is set on the HyperConverged so that its operand objects,
// some cluster-scoped and so beyond garbage collection, are removed first.
const FinalizerName = "kubevirt.io/hyperconverged"

// addFinalizer stores, in one patch, the finalizer if hc lacks it and
// upstream's app label if it has none (setLabels at 03da3cf: app=<name> on
// the HyperConverged it reconciles), and updates hc to what was stored. The
// mutating webhook sets both at create, so this usually sends nothing.
func (r *Reconciler) addFinalizer(ctx context.Context, hc *hcov1.HyperConverged) error {
	if controllerutil.ContainsFinalizer(hc, FinalizerName) && hc.Labels[LabelApp] != "" {
		return nil
	}
	// A patch: an update would drop what this Go type lacks (an unknown feature
	// gate the CRD keeps); the optimistic lock keeps a finalizer added meanwhile.
	orig := hc.DeepCopy()
	controllerutil.AddFinalizer(hc, FinalizerName)
	if hc.Labels[LabelApp] == "" {
		if hc.Labels == nil {
			hc.Labels = map[string]string{}
		}
		hc.Labels[LabelApp] = hc.Name
	}
	if err := r.client.Patch(ctx, hc, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{})); err != nil {
		return fmt.Errorf("add finalizer to HyperConverged %s: %w", client.ObjectKeyFromObject(hc), err)
	}
	return nil
}

// storeEvictionStrategy stores spec.virtualization.evictionStrategy in a
// HyperConverged without one, once the node facts are known: LiveMigrate on
// a highly available infrastructure, else None (one merge patch, optimistic
// lock), as every upstream one has it: upstream's webhook (mutateEvictionStrategy
// at 03da3cf) writes it into its operator's first update (the app label) after
// status.infrastructureHighlyAvailable, kept as the cluster grows or shrinks.
func (r *Reconciler) storeEvictionStrategy(ctx context.Context, hc *hcov1.HyperConverged, facts Facts) error {
	if hc.Spec.Virtualization.EvictionStrategy != nil || facts.Nodes == nil {
		return nil
	}
	strategy := kvv1.EvictionStrategyNone
	if facts.Nodes.InfrastructureHighlyAvailable() {
		strategy = kvv1.EvictionStrategyLiveMigrate
	}
	orig := hc.DeepCopy()
	hc.Spec.Virtualization.EvictionStrategy = &strategy
	if err := r.client.Patch(ctx, hc, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{})); err != nil {
		return fmt.Errorf("store spec.virtualization.evictionStrategy %s in HyperConverged %s: %w", strategy, client.ObjectKeyFromObject(hc), err)
	}
	return nil
}

// deletedMeanwhile reports whether hc is gone, or replaced by another of its
// name, and then takes back what this reconcile created: a DELETE that read
// hc before our finalizer was stored removes it at once, without uninstall.
// Only the reconcile storing the finalizer can meet that: it checks, once,
// past the cache. No answer proves nothing: recorded, nothing deleted.
func (r *Reconciler) deletedMeanwhile(ctx context.Context, hc *hcov1.HyperConverged, outcomes []operandOutcome, a *assessment) bool {
	current := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: hcov1.GroupVersion.String(), Kind: "HyperConverged"}}
	err := r.reader.Get(ctx, client.ObjectKeyFromObject(hc), current)
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		a.record(fmt.Errorf("check that HyperConverged %s still exists: %w", client.ObjectKeyFromObject(hc), err))
		return false
	case current.UID == hc.UID:
		return false
	}
	a.gone = true
	a.record(r.deleteCreated(ctx, hc, outcomes))
	return true
}

// deleteCreated deletes the objects this reconcile created, each only if it
// is still the same object.
func (r *Reconciler) deleteCreated(ctx context.Context, hc *hcov1.HyperConverged, outcomes []operandOutcome) error {
	var errs []error
	for _, o := range outcomes {
		for _, w := range o.writes {
			if w.result != ResultCreated {
				continue
			}
			errs = append(errs, r.deleteObject(ctx, hc, w.obj.GetObjectKind().GroupVersionKind(), w.obj, "its HyperConverged was deleted as the finalizer was stored"))
		}
	}
	return errors.Join(errs...)
}

// deleteObject deletes obj, of kind gvk, if it is still the object read
// (DeleteSame), with an Event on hc saying why; one replaced meanwhile is
// left, with none.
func (r *Reconciler) deleteObject(ctx context.Context, hc *hcov1.HyperConverged, gvk schema.GroupVersionKind, obj client.Object, why string) error {
	gone, err := r.applier.DeleteSame(ctx, gvk, obj)
	if err != nil {
		return fmt.Errorf("delete %s %s (%s): %w", gvk.Kind, apply.DisplayName(client.ObjectKeyFromObject(obj)), why, err)
	}
	if gone != apply.Replaced {
		r.events.Eventf(hc, obj, corev1.EventTypeNormal, EventDeleted, "Delete", "Deleted %s %s: %s", gvk.Kind, obj.GetName(), why)
	}
	return nil
}
