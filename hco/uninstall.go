package hco

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	kvv1 "kubevirt.io/api/core/v1"

	hcov1 "github.com/hcokit/hcokit/api/v1"

	"github.com/hcokit/hcokit/hcostatus"
)

// uninstallPoll is how often a deletion in progress is checked besides the
// watch events of the objects going away; maxUninstallPoll bounds the
// interval once it is reported blocked (see uninstallPollAfter).
const (
	uninstallPoll    = 2 * time.Second
	maxUninstallPoll = 5 * time.Minute
)

// uninstallPollAfter is when a deletion in progress, requested at deleted,
// is checked again (each check lists past the cache): every uninstallPoll
// while it may still be progressing, then, once it is reported blocked
// (DeletionTimeout), after a tenth of the time waited so far, at most
// maxUninstallPoll. The watch events of the objects going away bring a
// check at once either way.
func (r *Reconciler) uninstallPollAfter(deleted time.Time) time.Duration {
	waited := r.now().Sub(deleted)
	if waited <= r.DeletionTimeout {
		return uninstallPoll
	}
	return min(max(waited/10, uninstallPoll), maxUninstallPoll)
}

// uninstall deletes everything this operator manages for hc, found by
// label past the cache, group by group (see DeletionOrderer), waits until
// each group is gone, then drops the finalizer. Cluster-scoped operands
// cannot carry an owner reference to the namespaced HyperConverged, so this
// does not rely on garbage collection. It runs whether or not hc still
// carries our finalizer (another controller's may hold it), and the
// finalizer is stored before any operand object is created, so nothing
// escapes it.
func (r *Reconciler) uninstall(ctx context.Context, hc *hcov1.HyperConverged, owner Owner, a *assessment) {
	// What the extensions undo comes first (the shared lists' items: the
	// console stops loading the plugin before its server goes), on the
	// facts known without gathering: the environment and the platform.
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
	moved, err := r.removeFinalizer(ctx, hc)
	switch {
	case err != nil:
		a.record(fmt.Errorf("remove finalizer from HyperConverged %s: %w", client.ObjectKeyFromObject(hc), err))
	case moved:
		// The cache is behind (another finalizer went, or it is another
		// object), or admission refused the patch: finalizer changes bring
		// no event, so come back, with the rate limiter's backoff.
		a.errs = append(a.errs, fmt.Errorf("remove finalizer from HyperConverged %s: it no longer matches what was read (%w); reading it again",
			client.ObjectKeyFromObject(hc), errFinalizerMoved))
	default:
		a.gone = true
	}
}

// sweepOrphans deletes the operand objects recorded for a HyperConverged
// that no longer exists (owner, Gone), group by group, from the cache:
// objects created for a HyperConverged that a DELETE removed at once, having
// read it before the finalizer was stored (the API server decides on the
// object it read; the check after the creates cannot see a DELETE still in
// flight). With the finalizer rule no such object can legitimately exist.
// Only objects whose owner record names that HyperConverged are deleted:
// one that carries the labels but no record (upstream's, say, of an
// install in another namespace) is not this operator's to delete. The
// cache costs no request when there is nothing; the deletions' events bring
// the next group.
func (r *Reconciler) sweepOrphans(ctx context.Context, owner Owner) (reconcile.Result, error) {
	gone := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: owner.Name, Namespace: owner.Namespace}}
	remaining, err := r.deleteOperands(ctx, gone, owner, r.cache, "its HyperConverged no longer exists")
	if err != nil || len(remaining) == 0 {
		return reconcile.Result{}, err
	}
	return reconcile.Result{RequeueAfter: uninstallPoll}, nil
}

// deleteOperands deletes owner's operand objects group by group (see
// DeletionOrderer), as reader lists them, and returns the objects of the
// first group that is not gone yet (nil once all are). Each deletion is an
// Event on hc, and is made only if the object is still the one listed (its
// UID).
func (r *Reconciler) deleteOperands(ctx context.Context, hc *hcov1.HyperConverged, owner Owner, reader client.Reader, why string) ([]client.Object, error) {
	for _, group := range r.deletionGroups() {
		var remaining []client.Object
		for _, op := range group {
			for _, k := range r.kinds.Served() {
				if !slices.Contains(k.Operands, op.Name()) {
					continue
				}
				// Past the cache: an object the cache has not caught up
				// with (a create moments ago, or while a watch was down)
				// must not be missed, or it would outlive the finalizer.
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
					gone, err := r.applier.deleteSame(ctx, k.GVK, obj)
					if err != nil {
						return nil, fmt.Errorf("delete %s %s: %w", k.GVK.Kind, displayName(client.ObjectKeyFromObject(obj)), err)
					}
					if gone == replaced {
						continue // not the object listed
					}
					r.events.Eventf(hc, obj, corev1.EventTypeNormal, EventDeleted, "Delete", "Deleted %s %s: %s", k.GVK.Kind, obj.GetName(), why)
				}
			}
		}
		if len(remaining) > 0 {
			return remaining, nil
		}
	}
	return nil, nil
}

// removeFinalizer removes only our finalizer, by position, guarded by JSON
// patch tests: no resourceVersion is needed, so a status write of our own
// that the cache has not seen yet cannot make it conflict, and another
// controller's finalizer added meanwhile cannot be lost. The UID is tested
// too: a cache still showing a HyperConverged that is gone must not take
// the finalizer off its successor of the same name, whose operand objects
// would then outlive it. A failed test means the object is not the one
// read (moved): the caller reads it again.
func (r *Reconciler) removeFinalizer(ctx context.Context, hc *hcov1.HyperConverged) (moved bool, err error) {
	i := slices.Index(hc.Finalizers, FinalizerName)
	if i < 0 {
		return false, nil
	}
	at := fmt.Sprintf("/metadata/finalizers/%d", i)
	patch, err := json.Marshal([]map[string]any{
		{"op": "test", "path": "/metadata/uid", "value": hc.UID},
		{"op": "test", "path": at, "value": FinalizerName},
		{"op": "remove", "path": at},
	})
	if err != nil {
		return false, err
	}
	err = r.client.Patch(ctx, hc, client.RawPatch(types.JSONPatchType, patch))
	switch {
	case apierrors.IsNotFound(err):
		return false, nil // gone
	case apierrors.IsInvalid(err):
		log.FromContext(ctx).V(1).Info("finalizer patch refused", "error", err.Error())
		return true, nil // another object, or another finalizer list, by now
	}
	return false, err
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
		// A stable message, so that a stuck deletion is written once, not
		// on every poll.
		a.ProblemReason = hcostatus.ReasonDeletionBlocked
		a.ProblemMessage = fmt.Sprintf("deletion requested at %s has waited more than %s for %s; check the component operators and the finalizers named",
			hc.DeletionTimestamp.UTC().Format(time.RFC3339), r.DeletionTimeout, strings.Join(names, ", "))
		if c := meta.FindStatusCondition(hc.Status.Conditions, hcov1.ConditionReconcileComplete); c == nil || c.Reason != hcostatus.ReasonDeletionBlocked {
			r.events.Eventf(hc, nil, corev1.EventTypeWarning, EventDeletionBlocked, "Delete", "%s", eventNote(a.ProblemMessage))
		}
	}
}

// Finalizer is set on the HyperConverged so that its operand objects, some of
// them cluster-scoped and so beyond garbage collection, are removed first.
const FinalizerName = "kubevirt.io/hyperconverged"

// addFinalizer stores the finalizer on hc if it lacks it, and upstream's
// app label (its setLabels at 03da3cf: app=<name>, which its operator adds
// to the HyperConverged it reconciles) if it has none, in one patch, and
// updates hc to what was stored. The mutating webhook sets both at create,
// so that this usually sends nothing.
func (r *Reconciler) addFinalizer(ctx context.Context, hc *hcov1.HyperConverged) error {
	if controllerutil.ContainsFinalizer(hc, FinalizerName) && hc.Labels[LabelApp] != "" {
		return nil
	}
	// A patch, not an update: an update would write back the whole object
	// as this Go type knows it, dropping what it does not (an unknown
	// feature gate kept by the CRD). The optimistic lock keeps a finalizer
	// another controller added meanwhile.
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
// HyperConverged that has none, once the node facts are known: LiveMigrate
// on a highly available infrastructure, None otherwise. Upstream's mutating
// webhook writes it (mutateEvictionStrategy at 03da3cf) into the first
// update after the status records infrastructureHighlyAvailable, which is
// upstream's operator's own (its app label); so every upstream HyperConverged
// carries it, and keeps that value when the cluster grows or shrinks. One
// merge patch of that field, with the optimistic lock.
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

// deletedMeanwhile reports whether hc is gone from the API server, or
// replaced by another object of the same name, and then takes back what
// this reconcile created. The API server decides to delete an object at
// once from the object as it read it: a DELETE that read the HyperConverged
// before our finalizer was stored removes it, finalizer and all, without an
// uninstall. Only the reconcile that stored the finalizer can have met
// that, so it checks, once, past the cache. No answer proves nothing: it is
// recorded, and nothing is deleted.
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
			gone, err := r.applier.deleteSame(ctx, w.obj.GetObjectKind().GroupVersionKind(), w.obj)
			if err != nil {
				errs = append(errs, fmt.Errorf("delete %s %s created for a HyperConverged deleted meanwhile: %w", w.kind, w.obj.GetName(), err))
				continue
			}
			if gone == replaced {
				continue // not the object it created
			}
			r.events.Eventf(hc, w.obj, corev1.EventTypeNormal, EventDeleted, "Delete", "Deleted %s %s: its HyperConverged was deleted as the finalizer was stored", w.kind, w.obj.GetName())
		}
	}
	return errors.Join(errs...)
}
