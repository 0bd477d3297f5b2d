package hco

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/hcokit/hcokit/api/v1beta1"
)

// Finalizer is set on the HyperConverged so that its operand objects, some of
// them cluster-scoped and so beyond garbage collection, are removed first.
const FinalizerName = "kubevirt.io/hyperconverged"

// Event reasons emitted on the HyperConverged.
const (
	EventCreated          = "Created"
	EventUpdated          = "Updated"
	EventOverwritten      = "Overwritten"
	EventDeleted          = "Deleted"
	EventInvalidConfig    = "InvalidConfiguration"
	EventUpgradeCompleted = "UpgradeCompleted"
	EventDeletionBlocked  = "DeletionBlocked"
)

// OperatorVersionName is the status.versions entry of the operator itself.
const OperatorVersionName = "operator"

// EventRecorder emits events.k8s.io/v1 Events; the manager's
// GetEventRecorder returns one.
type EventRecorder interface {
	Eventf(regarding, related runtime.Object, eventtype, reason, action, note string, args ...any)
}

// Adopter is an optional capability: an operand that carries a setting
// forward from objects that existed before this operator version managed
// them. It is called only while the operator upgrades (status.versions
// differs from the Environment's version). Adopt may change hc's metadata
// and reports whether it did; the reconciler then updates the HyperConverged.
type Adopter interface {
	Adopt(hc *v1beta1.HyperConverged, observed []client.Object) bool
}

// DeletionOrderer is an optional capability: operands are deleted on
// uninstall in ascending DeletionOrder (default 0), each group gone before
// the next starts.
type DeletionOrderer interface {
	DeletionOrder() int
}

// Reconciler reconciles the HyperConverged singleton: it applies every
// enabled operand's desired objects, deletes what is no longer desired, and
// writes one aggregated status. It is re-entrant and keeps no per-request
// state. What it remembers between reconciles is what it wrote, for the
// moment the cache has not caught up (the applier's memory, the last status,
// the last finalizer patch), and the operand objects it created for a
// HyperConverged without the finalizer.
type Reconciler struct {
	client    client.Client
	reader    client.Reader
	scheme    *runtime.Scheme
	registry  *Registry
	env       Environment
	events    EventRecorder
	metrics   *Metrics
	applier   *applier
	kinds     []*operandKind
	status    statusMemo
	finalized finalizerMemo
	now       func() time.Time
	// unfinalized holds what this process created for a HyperConverged
	// whose finalizer was not stored yet.
	unfinalized createdSet

	// DeletionTimeout is how long an uninstall may wait for operand objects
	// to go before it is reported as blocked.
	DeletionTimeout time.Duration
}

// NewReconciler builds a reconciler for the manager's client and cache. The
// manager must have been created with CacheOptions(reg, scheme), and the
// scheme must hold the HyperConverged and every operand kind. metrics may be nil.
func NewReconciler(mgr ctrl.Manager, reg *Registry, env Environment, metrics *Metrics) (*Reconciler, error) {
	if env.Namespace == "" {
		return nil, errors.New("hco: Environment.Namespace is required")
	}
	kinds, err := operandKinds(reg, mgr.GetScheme())
	if err != nil {
		return nil, err
	}
	// Prune and uninstall list every operand kind: say so at start-up, not
	// on every reconcile, when the scheme cannot.
	for _, k := range kinds {
		if _, err := mgr.GetScheme().New(k.gvk.GroupVersion().WithKind(k.gvk.Kind + "List")); err != nil {
			return nil, fmt.Errorf("hco: operand kind %s has no %sList in the scheme; register its types (with their List) in the manager's scheme: %w", k.gvk, k.gvk.Kind, err)
		}
	}
	return &Reconciler{
		client:          mgr.GetClient(),
		reader:          mgr.GetAPIReader(),
		scheme:          mgr.GetScheme(),
		registry:        reg,
		env:             env,
		events:          mgr.GetEventRecorder("hco-operator"),
		metrics:         metrics,
		applier:         newApplier(mgr.GetClient(), mgr.GetAPIReader(), mgr.GetScheme()),
		kinds:           kinds,
		now:             time.Now,
		DeletionTimeout: 5 * time.Minute,
	}, nil
}

// SetupWithManager watches the HyperConverged and the kinds of the enabled
// operands (only those the cache selects: the managed ones).
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	b := ctrl.NewControllerManagedBy(mgr).
		Named("hyperconverged").
		For(&v1beta1.HyperConverged{}, builder.WithPredicates(predicate.Or(
			predicate.GenerationChangedPredicate{}, predicate.AnnotationChangedPredicate{}, predicate.LabelChangedPredicate{})))
	toSingleton := handler.EnqueueRequestsFromMapFunc(func(context.Context, client.Object) []reconcile.Request {
		return []reconcile.Request{{NamespacedName: r.singleton()}}
	})
	for _, k := range r.kinds {
		b = b.Watches(k.object, toSingleton)
	}
	return b.Complete(r)
}

func (r *Reconciler) singleton() types.NamespacedName {
	return types.NamespacedName{Namespace: r.env.Namespace, Name: v1beta1.HyperConvergedName}
}

// Reconcile implements reconcile.Reconciler.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	logger := log.FromContext(ctx)
	hc := &v1beta1.HyperConverged{}
	if err := r.client.Get(ctx, req.NamespacedName, hc); err != nil {
		if apierrors.IsNotFound(err) && req.NamespacedName == r.singleton() {
			return reconcile.Result{}, r.deleteOrphans(ctx)
		}
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if req.NamespacedName != r.singleton() {
		return reconcile.Result{}, r.refuse(ctx, hc)
	}
	if !hc.DeletionTimestamp.IsZero() {
		return r.uninstall(ctx, hc)
	}

	upgrading := r.upgrading(hc)
	if upgrading {
		adopted, err := r.adopt(ctx, hc)
		if err != nil || adopted {
			return reconcile.Result{}, err
		}
	}

	a := Assessment{Generation: hc.Generation, Upgrading: upgrading, ObservedVersions: map[string]string{}}
	var related []corev1.ObjectReference
	desiredKeys := map[objectKey]bool{}
	var problems []string
	ops := r.registry.Operands()
	outcomes := r.reconcileOperands(ctx, hc, ops)
	// Events after all the writes, so that they do not compete with the
	// last of them at the API server.
	for _, o := range outcomes {
		for _, w := range o.writes {
			r.announce(hc, w.kind, w.obj, w.result)
		}
	}
	// The finalizer is stored after the operand writes, not before them,
	// out of their way: convergence waits for one write less, and the
	// creates share the API server with one request less. What was created
	// until it is stored is remembered (unfinalized), and deleted if the
	// HyperConverged goes first.
	if err := r.addFinalizer(ctx, hc); err != nil {
		if apierrors.IsNotFound(err) {
			// Deleted meanwhile: its deletion event brings deleteOrphans.
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	r.unfinalized.take()
	for i, op := range ops {
		status, refs, keys, err := outcomes[i].status, outcomes[i].refs, outcomes[i].keys, outcomes[i].err
		var invalid *invalidConfig
		switch {
		case errors.As(err, &invalid):
			logger.Info("invalid HyperConverged configuration", "operand", op.Name(), "error", invalid.err.Error())
			problems = append(problems, invalid.err.Error())
			// Keep what exists: nothing of this operand is pruned.
			for _, k := range r.kinds {
				if slices.Contains(k.operands, op) {
					desiredKeys[objectKey{gvk: k.gvk}] = true
				}
			}
		case err != nil:
			return reconcile.Result{}, fmt.Errorf("operand %s: %w", op.Name(), err)
		}
		if status.Kind != "" {
			a.Components = append(a.Components, status)
			a.ObservedVersions[op.Name()] = status.ObservedVersion
		}
		related = append(related, refs...)
		for _, k := range keys {
			desiredKeys[k] = true
		}
		if p, ok := op.(JSONPatcher); ok && invalid == nil && HasJSONPatch(hc, p.JSONPatchAnnotation()) {
			// In effect only when the patch applied: a broken one is reported
			// as InvalidConfiguration instead.
			a.Tainted = true
		}
	}
	if err := r.prune(ctx, hc, desiredKeys); err != nil {
		return reconcile.Result{}, err
	}
	if len(problems) > 0 {
		a.ProblemReason, a.ProblemMessage = ReasonInvalidConfiguration, strings.Join(problems, "; ")
		// Announce a problem once, when it appears, not on every reconcile
		// while it lasts.
		prev := meta.FindStatusCondition(r.status.current(hc).Status.Conditions, v1beta1.ConditionReconcileComplete)
		if prev == nil || prev.Reason != a.ProblemReason || prev.Message != a.ProblemMessage {
			r.events.Eventf(hc, nil, corev1.EventTypeWarning, EventInvalidConfig, "Reconcile", "%s", a.ProblemMessage)
		}
	}
	r.recordUnsafe(hc)
	return reconcile.Result{}, r.writeStatus(ctx, hc, a, related)
}

// addFinalizer stores the finalizer on hc if it lacks it.
func (r *Reconciler) addFinalizer(ctx context.Context, hc *v1beta1.HyperConverged) error {
	if controllerutil.ContainsFinalizer(hc, FinalizerName) {
		return nil
	}
	if r.finalized.stale(hc) {
		// The cache still shows the version our finalizer patch replaced;
		// patching from it would only conflict.
		return nil
	}
	// A patch, not an update: an update would write back the whole object
	// as this Go type knows it, dropping what it does not (an unknown
	// feature gate kept by the CRD). The optimistic lock keeps a finalizer
	// another controller added meanwhile.
	orig := hc.DeepCopy()
	controllerutil.AddFinalizer(hc, FinalizerName)
	if err := r.client.Patch(ctx, hc, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{})); err != nil {
		return fmt.Errorf("add finalizer to HyperConverged %s: %w", client.ObjectKeyFromObject(hc), err)
	}
	r.finalized.wrote(orig)
	return nil
}

// finalizerMemo remembers the version of the HyperConverged that our last
// finalizer patch replaced, for the moment the cache still shows it.
type finalizerMemo struct {
	mu           sync.Mutex
	uid          types.UID
	staleVersion string
}

func (m *finalizerMemo) wrote(before *v1beta1.HyperConverged) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.uid, m.staleVersion = before.UID, before.ResourceVersion
}

func (m *finalizerMemo) stale(hc *v1beta1.HyperConverged) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.staleVersion != "" && hc.UID == m.uid && hc.ResourceVersion == m.staleVersion
}

// operandOutcome is what reconciling one operand found.
type operandOutcome struct {
	status ComponentStatus
	refs   []corev1.ObjectReference
	keys   []objectKey
	err    error
	// writes are the objects created or updated, announced by Events once
	// every operand's writes are done.
	writes []written
}

// written is one object an operand's reconcile created or updated.
type written struct {
	kind   string
	obj    client.Object
	result ApplyResult
}

// reconcileOperands reconciles the operands concurrently: they are
// independent, so a create or update of each costs one round trip in all,
// not one per operand. Outcomes are in the operands' order.
func (r *Reconciler) reconcileOperands(ctx context.Context, hc *v1beta1.HyperConverged, ops []Operand) []operandOutcome {
	out := make([]operandOutcome, len(ops))
	var wg sync.WaitGroup
	for i, op := range ops {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := r.now()
			o := &out[i]
			defer func() {
				// A panicking operand (a distribution's own, say) fails
				// its reconcile, not the process.
				if p := recover(); p != nil {
					o.err = fmt.Errorf("operand %s panicked: %v", op.Name(), p)
				}
			}()
			var result ApplyResult
			o.status, o.refs, o.keys, o.writes, result, o.err = r.reconcileOperand(ctx, hc, op)
			r.observe(op.Name(), result, start)
		}()
	}
	wg.Wait()
	return out
}

// invalidConfig marks an operand error caused by the HyperConverged's content.
type invalidConfig struct{ err error }

func (e *invalidConfig) Error() string { return e.err.Error() }

// reconcileOperand applies one operand's desired objects and reads its status.
func (r *Reconciler) reconcileOperand(ctx context.Context, hc *v1beta1.HyperConverged, op Operand) (ComponentStatus, []corev1.ObjectReference, []objectKey, []written, ApplyResult, error) {
	desired, err := op.Desired(hc.DeepCopy(), r.env)
	if err != nil {
		observed := r.observeExisting(ctx, op, hc)
		return op.Status(observed), nil, nil, nil, "invalid", &invalidConfig{err: err}
	}
	if len(desired) == 0 {
		// The operand wants nothing for this HyperConverged: it has no status to report.
		return ComponentStatus{}, nil, nil, nil, ResultUnchanged, nil
	}
	var writes []written
	result := ResultUnchanged
	observed := make([]client.Object, 0, len(desired))
	refs := make([]corev1.ObjectReference, 0, len(desired))
	keys := make([]objectKey, 0, len(desired))
	for _, d := range desired {
		obj, gvk, res, err := r.applier.apply(ctx, d)
		if apierrors.IsInvalid(err) || apierrors.IsBadRequest(err) {
			// The API server refuses what the HyperConverged asks for (a
			// jsonpatch result its schema rejects): the admin must fix it,
			// retrying will not.
			return op.Status(r.observeExisting(ctx, op, hc)), nil, nil, writes, "invalid", &invalidConfig{err: err}
		}
		if err != nil {
			var unknown *createUnknownError
			if errors.As(err, &unknown) && !controllerutil.ContainsFinalizer(hc, FinalizerName) {
				r.unfinalized.addUnknown(unknown.obj, gvk, r.now())
			}
			return ComponentStatus{}, nil, nil, writes, "error", err
		}
		keys = append(keys, objectKey{gvk: gvk, key: client.ObjectKeyFromObject(obj)})
		refs = append(refs, corev1.ObjectReference{APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind, Namespace: obj.GetNamespace(), Name: obj.GetName(), UID: obj.GetUID()})
		observed = append(observed, obj)
		if res != ResultUnchanged {
			writes = append(writes, written{kind: gvk.Kind, obj: obj, result: res})
			result = res
		}
		if res == ResultCreated && !controllerutil.ContainsFinalizer(hc, FinalizerName) {
			r.unfinalized.addCreated(obj, gvk)
		}
	}
	return op.Status(observed), refs, keys, writes, result, nil
}

// observeExisting returns the operand's objects as they are, for status,
// when its desired state cannot be computed.
func (r *Reconciler) observeExisting(ctx context.Context, op Operand, hc *v1beta1.HyperConverged) []client.Object {
	var out []client.Object
	for _, k := range r.kinds {
		if !slices.Contains(k.operands, op) {
			continue
		}
		items, err := r.listManaged(ctx, k, hc)
		if err == nil {
			out = append(out, items...)
		}
	}
	return out
}

func (r *Reconciler) announce(hc *v1beta1.HyperConverged, kind string, obj client.Object, res ApplyResult) {
	name := obj.GetName()
	switch res {
	case ResultCreated:
		r.events.Eventf(hc, obj, corev1.EventTypeNormal, EventCreated, "Create", "Created %s %s", kind, name)
	case ResultUpdated:
		r.events.Eventf(hc, obj, corev1.EventTypeNormal, EventUpdated, "Update", "Updated %s %s", kind, name)
	case ResultOverwritten:
		r.events.Eventf(hc, obj, corev1.EventTypeWarning, EventOverwritten, "Update", "Overwrote an out-of-band change to %s %s", kind, name)
		if r.metrics != nil {
			r.metrics.OutOfBandModifications.WithLabelValues(strings.ToLower(kind) + "/" + name).Inc()
		}
	}
}

func (r *Reconciler) observe(operand string, result ApplyResult, start time.Time) {
	if r.metrics == nil {
		return
	}
	r.metrics.OperandReconciles.WithLabelValues(operand, string(result)).Inc()
	r.metrics.OperandReconcileSeconds.WithLabelValues(operand).Observe(r.now().Sub(start).Seconds())
}

func (r *Reconciler) recordUnsafe(hc *v1beta1.HyperConverged) {
	if r.metrics == nil {
		return
	}
	for _, op := range r.registry.Operands() {
		p, ok := op.(JSONPatcher)
		if !ok {
			continue
		}
		n := 0
		if patch, err := ParseJSONPatch(p.JSONPatchAnnotation(), hc.GetAnnotations()[p.JSONPatchAnnotation()]); err == nil {
			n = len(patch)
		}
		r.metrics.UnsafeModifications.WithLabelValues(p.JSONPatchAnnotation()).Set(float64(n))
	}
}

// prune deletes managed objects of the enabled operands' kinds that no
// operand wants any more (e.g. the HostPathProvisioner once
// spec.hostpathProvisioner is removed). A key with an empty name protects a
// whole kind.
func (r *Reconciler) prune(ctx context.Context, hc *v1beta1.HyperConverged, desired map[objectKey]bool) error {
	for _, k := range r.kinds {
		if desired[objectKey{gvk: k.gvk}] {
			continue
		}
		items, err := r.listManaged(ctx, k, hc)
		if err != nil {
			return err
		}
		for _, obj := range items {
			key := objectKey{gvk: k.gvk, key: client.ObjectKeyFromObject(obj)}
			if desired[key] || !obj.GetDeletionTimestamp().IsZero() {
				continue
			}
			if err := r.client.Delete(ctx, obj); client.IgnoreNotFound(err) != nil {
				return fmt.Errorf("delete %s %s: %w", k.gvk.Kind, key.key, err)
			}
			r.applier.forget(k.gvk, key.key)
			r.events.Eventf(hc, obj, corev1.EventTypeNormal, EventDeleted, "Delete", "Deleted %s %s: no longer desired", k.gvk.Kind, obj.GetName())
		}
	}
	return nil
}

// listManaged lists, from the cache, the objects of one kind that hc manages.
func (r *Reconciler) listManaged(ctx context.Context, k *operandKind, hc *v1beta1.HyperConverged) ([]client.Object, error) {
	return r.listManagedFrom(ctx, r.client, k, hc)
}

// listManagedFrom lists, from reader, the objects of one kind that hc
// manages. Items carry their kind, whatever the reader's decoding.
func (r *Reconciler) listManagedFrom(ctx context.Context, reader client.Reader, k *operandKind, hc *v1beta1.HyperConverged) ([]client.Object, error) {
	listObj, err := r.scheme.New(k.gvk.GroupVersion().WithKind(k.gvk.Kind + "List"))
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", k.gvk.Kind, err)
	}
	list, ok := listObj.(client.ObjectList)
	if !ok {
		return nil, fmt.Errorf("list %s: %T is not a list", k.gvk.Kind, listObj)
	}
	if err := reader.List(ctx, list, client.MatchingLabels{LabelManagedBy: ManagedByValue, LabelApp: hc.Name}); err != nil {
		return nil, fmt.Errorf("list %s: %w", k.gvk.Kind, err)
	}
	var out []client.Object
	err = meta.EachListItem(list, func(o runtime.Object) error {
		if obj, ok := o.(client.Object); ok {
			obj.GetObjectKind().SetGroupVersionKind(k.gvk)
			out = append(out, obj)
		}
		return nil
	})
	return out, err
}

// upgrading reports whether the operator version differs from the one the
// HyperConverged's status records.
func (r *Reconciler) upgrading(hc *v1beta1.HyperConverged) bool {
	if r.env.Version == "" {
		return false
	}
	prev := versionOf(hc.Status.Versions, OperatorVersionName)
	return prev != "" && prev != r.env.Version
}

// AdoptedAnnotation records on the HyperConverged the operator version that
// carried settings forward, so that adoption happens once per upgrade: an
// admin who then changes an adopted setting is not overruled.
const AdoptedAnnotation = "hco.kubevirt.io/adopted-for-version"

// adopt lets Adopter operands carry settings forward, once per operator
// version, and updates the HyperConverged if one did.
func (r *Reconciler) adopt(ctx context.Context, hc *v1beta1.HyperConverged) (bool, error) {
	if hc.GetAnnotations()[AdoptedAnnotation] == r.env.Version {
		return false, nil
	}
	changed := hc.DeepCopy()
	adopted := false
	for _, op := range r.registry.Operands() {
		ad, ok := op.(Adopter)
		if !ok {
			continue
		}
		if ad.Adopt(changed, r.observeExisting(ctx, op, hc)) {
			adopted = true
		}
	}
	if !adopted {
		return false, nil
	}
	if changed.Annotations == nil {
		changed.Annotations = map[string]string{}
	}
	changed.Annotations[AdoptedAnnotation] = r.env.Version
	if err := r.client.Patch(ctx, changed, client.MergeFrom(hc)); err != nil {
		return false, fmt.Errorf("patch HyperConverged %s while adopting settings: %w", client.ObjectKeyFromObject(hc), err)
	}
	return true, nil
}

// writeStatus computes the status and writes it only if it changed.
func (r *Reconciler) writeStatus(ctx context.Context, hc *v1beta1.HyperConverged, a Assessment, related []corev1.ObjectReference) error {
	hc = r.status.current(hc)
	next := hc.DeepCopy()
	MergeConditions(&next.Status.Conditions, Conditions(a), metav1.NewTime(r.now()))
	next.Status.ObservedGeneration = hc.Generation
	next.Status.RelatedObjects = related
	next.Status.SystemHealthStatus = SystemHealth(next.Status.Conditions)
	if versions, done := r.versions(hc, a); done {
		if a.Upgrading && !reflect.DeepEqual(hc.Status.Versions, versions) {
			r.events.Eventf(hc, nil, corev1.EventTypeNormal, EventUpgradeCompleted, "Upgrade", "Upgraded to version %s", r.env.Version)
		}
		next.Status.Versions = versions
	}
	if r.metrics != nil {
		r.metrics.SystemHealthStatus.Set(healthValue(next.Status.SystemHealthStatus))
	}
	if reflect.DeepEqual(hc.Status, next.Status) {
		return nil
	}
	if err := r.client.Status().Patch(ctx, next, client.MergeFrom(hc)); err != nil {
		return fmt.Errorf("write status of HyperConverged %s: %w", client.ObjectKeyFromObject(hc), err)
	}
	r.status.wrote(hc.ResourceVersion, next.Status)
	return nil
}

// statusMemo remembers the last status written, for the moment the cache
// still shows the HyperConverged as it was before that write: without it,
// a reconcile in that moment would write the same status again.
type statusMemo struct {
	mu           sync.Mutex
	staleVersion string
	written      v1beta1.HyperConvergedStatus
}

func (m *statusMemo) wrote(staleVersion string, s v1beta1.HyperConvergedStatus) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.staleVersion, m.written = staleVersion, *s.DeepCopy()
}

// current returns hc with the status last written if the cache has not
// caught up with that write yet.
func (m *statusMemo) current(hc *v1beta1.HyperConverged) *v1beta1.HyperConverged {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.staleVersion == "" || hc.ResourceVersion != m.staleVersion {
		return hc
	}
	out := hc.DeepCopy()
	out.Status = *m.written.DeepCopy()
	return out
}

// versions returns the status.versions to record and whether every operand
// reports the version the environment expects (so they can be recorded).
func (r *Reconciler) versions(hc *v1beta1.HyperConverged, a Assessment) ([]v1beta1.Version, bool) {
	if r.env.Version == "" {
		return nil, false
	}
	out := []v1beta1.Version{{Name: OperatorVersionName, Version: r.env.Version}}
	for _, op := range r.registry.Operands() {
		want, ok := r.env.OperandVersions[op.Name()]
		if !ok {
			continue
		}
		got, reports := a.ObservedVersions[op.Name()]
		if !reports {
			// The operand wants nothing for this HyperConverged, so no
			// component will report a version.
			continue
		}
		if got != want {
			return nil, false
		}
		out = append(out, v1beta1.Version{Name: op.Name(), Version: want})
	}
	if a.ProblemReason != "" {
		return nil, false
	}
	return out, true
}

func versionOf(vs []v1beta1.Version, name string) string {
	for _, v := range vs {
		if v.Name == name {
			return v.Version
		}
	}
	return ""
}

// refuse marks a HyperConverged that is not the singleton.
func (r *Reconciler) refuse(ctx context.Context, hc *v1beta1.HyperConverged) error {
	want := r.singleton()
	next := hc.DeepCopy()
	MergeConditions(&next.Status.Conditions, []metav1.Condition{{
		Type: v1beta1.ConditionReconcileComplete, Status: metav1.ConditionFalse, Reason: ReasonInvalidRequest, ObservedGeneration: hc.Generation,
		Message: fmt.Sprintf("only the HyperConverged named %q in namespace %q is reconciled; this one is ignored, delete it", want.Name, want.Namespace),
	}}, metav1.NewTime(r.now()))
	next.Status.ObservedGeneration = hc.Generation
	next.Status.SystemHealthStatus = v1beta1.SystemHealthError
	if reflect.DeepEqual(hc.Status, next.Status) {
		return nil
	}
	return r.client.Status().Patch(ctx, next, client.MergeFrom(hc))
}
