package hco

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/hcokit/hcokit/api/v1beta1"
)

// uninstallPoll is how often a deletion in progress is checked besides the
// watch events of the objects going away.
const uninstallPoll = 2 * time.Second

// uninstall deletes the operand objects group by group (see DeletionOrderer),
// waits until each group is gone, then drops the finalizer. Cluster-scoped
// operands cannot carry an owner reference to the namespaced HyperConverged,
// so this does not rely on garbage collection.
//
// Without our finalizer (the HyperConverged was deleted before it was
// stored, and another controller's finalizer holds it), what this process
// created meanwhile is deleted; nothing else is ours to remove.
func (r *Reconciler) uninstall(ctx context.Context, hc *v1beta1.HyperConverged) (reconcile.Result, error) {
	if !controllerutil.ContainsFinalizer(hc, FinalizerName) {
		return reconcile.Result{}, r.deleteUnfinalized(ctx, hc, "the HyperConverged was deleted before its finalizer was stored")
	}
	// The finalizer is there after all (its patch's answer was lost): what
	// goes is decided here, by the labels, not by that memory.
	r.unfinalized.take()
	remaining, err := r.deleteOperands(ctx, hc, "the HyperConverged is being deleted")
	if err != nil {
		return reconcile.Result{}, err
	}
	if len(remaining) > 0 {
		if err := r.reportUninstall(ctx, hc, remaining); err != nil {
			return reconcile.Result{}, err
		}
		return reconcile.Result{RequeueAfter: uninstallPoll}, nil
	}
	if err := r.removeFinalizer(ctx, hc); err != nil {
		return reconcile.Result{}, fmt.Errorf("remove finalizer from HyperConverged %s: %w", client.ObjectKeyFromObject(hc), err)
	}
	return reconcile.Result{}, nil
}

// deleteOperands deletes the managed operand objects of hc group by group
// (see DeletionOrderer), listing past the cache, and returns the objects of
// the first group that is not gone yet (nil once all are). Each deletion is
// an Event on hc.
func (r *Reconciler) deleteOperands(ctx context.Context, hc *v1beta1.HyperConverged, why string) ([]client.Object, error) {
	for _, group := range r.deletionGroups() {
		var remaining []client.Object
		for _, op := range group {
			for _, k := range r.kinds {
				if !slices.Contains(k.operands, op) {
					continue
				}
				// Past the cache: an object the cache has not caught up
				// with (a create moments ago, or while a watch was down)
				// must not be missed, or it would outlive the finalizer.
				items, err := r.listManagedFrom(ctx, r.reader, k, hc)
				if err != nil {
					return nil, err
				}
				for _, obj := range items {
					remaining = append(remaining, obj)
					if !obj.GetDeletionTimestamp().IsZero() {
						continue
					}
					if err := r.client.Delete(ctx, obj); client.IgnoreNotFound(err) != nil {
						return nil, fmt.Errorf("delete %s %s: %w", k.gvk.Kind, client.ObjectKeyFromObject(obj), err)
					}
					r.applier.forget(k.gvk, client.ObjectKeyFromObject(obj))
					r.events.Eventf(hc, obj, corev1.EventTypeNormal, EventDeleted, "Delete", "Deleted %s %s: %s", k.gvk.Kind, obj.GetName(), why)
				}
			}
		}
		if len(remaining) > 0 {
			return remaining, nil
		}
	}
	return nil, nil
}

// deleteUnfinalized deletes the operand objects this process created for a
// HyperConverged that did not carry the finalizer yet (it is stored after
// the operand writes, not before them), now that the HyperConverged is gone
// or going. Each delete is conditional on the object's UID, so an object
// re-created since is left alone. It makes no request when there is nothing
// to delete, and none for objects it did not create.
func (r *Reconciler) deleteUnfinalized(ctx context.Context, hc *v1beta1.HyperConverged, why string) error {
	entries := r.unfinalized.take()
	for i, e := range entries {
		obj, err := r.resolveUnfinalized(ctx, e)
		if err == nil && obj != nil {
			err = r.client.Delete(ctx, obj, client.Preconditions{UID: ptr.To(obj.GetUID())})
			if err == nil {
				gvk := obj.GetObjectKind().GroupVersionKind()
				r.applier.forget(gvk, client.ObjectKeyFromObject(obj))
				r.events.Eventf(hc, obj, corev1.EventTypeNormal, EventDeleted, "Delete", "Deleted %s %s: %s", gvk.Kind, obj.GetName(), why)
			}
		}
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			r.unfinalized.put(entries[i:]...)
			return fmt.Errorf("delete %s %s: %w", e.obj.GetObjectKind().GroupVersionKind().Kind, client.ObjectKeyFromObject(e.obj), err)
		}
		// NotFound: gone already; Conflict: another object by now.
	}
	return nil
}

// resolveUnfinalized returns the object an entry stands for, or nil if it
// is not ours to delete. A create whose answer was lost is looked up past
// the cache: it is ours if it carries our labels and was created no earlier
// than the attempt (give or take the clocks of operator and API server).
func (r *Reconciler) resolveUnfinalized(ctx context.Context, e unfinalizedObject) (client.Object, error) {
	if e.obj.GetUID() != "" {
		return e.obj, nil
	}
	got := newEmpty(e.obj)
	if err := r.reader.Get(ctx, client.ObjectKeyFromObject(e.obj), got); err != nil {
		return nil, err
	}
	labels := got.GetLabels()
	if labels[LabelManagedBy] != ManagedByValue || labels[LabelApp] != r.singleton().Name ||
		got.GetCreationTimestamp().Time.Before(e.attempted.Add(-clockSkew)) {
		return nil, nil
	}
	got.GetObjectKind().SetGroupVersionKind(e.obj.GetObjectKind().GroupVersionKind())
	return got, nil
}

// clockSkew is how far apart the operator's clock and the API server's may
// be when a lost create is matched by its creation time.
const clockSkew = 5 * time.Second

// deleteOrphans runs when the HyperConverged is not in the cache. If this
// process created operand objects for it before its finalizer was stored,
// and the API server confirms it is gone, they are deleted.
func (r *Reconciler) deleteOrphans(ctx context.Context) error {
	if r.unfinalized.len() == 0 {
		return nil
	}
	key := r.singleton()
	err := r.reader.Get(ctx, key, &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: v1beta1.GroupVersion.String(), Kind: "HyperConverged"}})
	switch {
	case err == nil:
		// The cache is behind: the HyperConverged's own event follows.
		return nil
	case !apierrors.IsNotFound(err):
		return err
	}
	hc := &v1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: key.Name, Namespace: key.Namespace}}
	log.FromContext(ctx).Info("deleting the operand objects created for a HyperConverged deleted before its finalizer was stored")
	return r.deleteUnfinalized(ctx, hc, "its HyperConverged was deleted before its finalizer was stored")
}

// unfinalizedObject is an operand object created for a HyperConverged
// without the finalizer: as stored (with its UID), or, when the create's
// answer was lost, as sent, with the time of the attempt.
type unfinalizedObject struct {
	obj       client.Object
	attempted time.Time
}

// createdSet is the operand objects created for a HyperConverged without
// the finalizer, until the finalizer is stored or they are deleted.
type createdSet struct {
	mu      sync.Mutex
	entries []unfinalizedObject
}

// addCreated remembers an object the API server stored.
func (s *createdSet) addCreated(obj client.Object, gvk schema.GroupVersionKind) {
	c := obj.DeepCopyObject().(client.Object)
	c.GetObjectKind().SetGroupVersionKind(gvk)
	s.put(unfinalizedObject{obj: c})
}

// addUnknown remembers an object whose create went unanswered at attempted.
func (s *createdSet) addUnknown(sent client.Object, gvk schema.GroupVersionKind, attempted time.Time) {
	c := sent.DeepCopyObject().(client.Object)
	c.GetObjectKind().SetGroupVersionKind(gvk)
	c.SetUID("")
	s.put(unfinalizedObject{obj: c, attempted: attempted})
}

func (s *createdSet) put(entries ...unfinalizedObject) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.entries = append(s.entries, entries...)
}

func (s *createdSet) take() []unfinalizedObject {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.entries
	s.entries = nil
	return out
}

func (s *createdSet) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.entries)
}

// removeFinalizer removes only our finalizer, by position, guarded by a JSON
// patch test: no resourceVersion is needed, so a status write of our own
// that the cache has not seen yet cannot make it conflict, and another
// controller's finalizer added meanwhile cannot be lost.
func (r *Reconciler) removeFinalizer(ctx context.Context, hc *v1beta1.HyperConverged) error {
	i := slices.Index(hc.Finalizers, FinalizerName)
	if i < 0 {
		return nil
	}
	patch := fmt.Sprintf(`[{"op":"test","path":"/metadata/finalizers/%d","value":%q},{"op":"remove","path":"/metadata/finalizers/%d"}]`, i, FinalizerName, i)
	return client.IgnoreNotFound(r.client.Patch(ctx, hc, client.RawPatch(types.JSONPatchType, []byte(patch))))
}

// deletionGroups returns the enabled operands grouped by DeletionOrder, in
// ascending order, registry order within a group.
func (r *Reconciler) deletionGroups() [][]Operand {
	order := func(op Operand) int {
		if d, ok := op.(DeletionOrderer); ok {
			return d.DeletionOrder()
		}
		return 0
	}
	ops := r.registry.Operands()
	var orders []int
	for _, op := range ops {
		if o := order(op); !slices.Contains(orders, o) {
			orders = append(orders, o)
		}
	}
	slices.Sort(orders)
	groups := make([][]Operand, 0, len(orders))
	for _, o := range orders {
		var g []Operand
		for _, op := range ops {
			if order(op) == o {
				g = append(g, op)
			}
		}
		groups = append(groups, g)
	}
	return groups
}

// reportUninstall makes a deletion in progress visible, and a deletion that
// has waited longer than DeletionTimeout visible as blocked.
func (r *Reconciler) reportUninstall(ctx context.Context, hc *v1beta1.HyperConverged, remaining []client.Object) error {
	names := make([]string, 0, len(remaining))
	for _, obj := range remaining {
		n := obj.GetObjectKind().GroupVersionKind().Kind + " " + obj.GetName()
		if f := obj.GetFinalizers(); len(f) > 0 {
			n += " (finalizers: " + strings.Join(f, ", ") + ")"
		}
		names = append(names, n)
	}
	reason, msg := ReasonDeleting, "waiting for "+strings.Join(names, ", ")+" to be deleted"
	if r.now().Sub(hc.DeletionTimestamp.Time) > r.DeletionTimeout {
		// A stable message, so that a stuck deletion is written once, not
		// on every poll.
		reason = ReasonDeletionBlocked
		msg = fmt.Sprintf("deletion requested at %s has waited more than %s for %s; check the component operators and the finalizers named",
			hc.DeletionTimestamp.UTC().Format(time.RFC3339), r.DeletionTimeout, strings.Join(names, ", "))
		if c := meta.FindStatusCondition(hc.Status.Conditions, v1beta1.ConditionReconcileComplete); c == nil || c.Reason != ReasonDeletionBlocked {
			r.events.Eventf(hc, nil, corev1.EventTypeWarning, EventDeletionBlocked, "Delete", "%s", msg)
		}
	}
	next := hc.DeepCopy()
	MergeConditions(&next.Status.Conditions, append(withoutType(hc.Status.Conditions, v1beta1.ConditionReconcileComplete),
		metav1.Condition{Type: v1beta1.ConditionReconcileComplete, Status: metav1.ConditionFalse, Reason: reason, Message: msg, ObservedGeneration: hc.Generation}),
		metav1.NewTime(r.now()))
	if equalConditions(hc.Status.Conditions, next.Status.Conditions) {
		return nil
	}
	return client.IgnoreNotFound(r.client.Status().Patch(ctx, next, client.MergeFrom(hc)))
}

func withoutType(conds []metav1.Condition, t string) []metav1.Condition {
	out := make([]metav1.Condition, 0, len(conds))
	for _, c := range conds {
		if c.Type != t {
			out = append(out, c)
		}
	}
	return out
}

func equalConditions(a, b []metav1.Condition) bool {
	return slices.EqualFunc(a, b, func(x, y metav1.Condition) bool {
		return x.Type == y.Type && x.Status == y.Status && x.Reason == y.Reason && x.Message == y.Message && x.ObservedGeneration == y.ObservedGeneration
	})
}
