package hco

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"k8s.io/apimachinery/pkg/api/equality"
	"slices"
	"strings"
	"sync"
	"time"

	ocpconfigv1 "github.com/openshift/api/config/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/metadata"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	hcov1 "github.com/hcokit/hcokit/api/v1"
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
	Adopt(hc *hcov1.HyperConverged, observed []client.Object) bool
}

// StatusContributor is an optional capability: an operand that reports
// status fields of its own on the HyperConverged (the SSP operand: the
// golden images it applied). ContributeStatus sets only the fields it owns
// on st, from hc and facts (as the operand's Desired saw them); now stamps new
// condition transitions. An error is logged and the fields are left as
// they were; the operand's Desired is expected to refuse the same input and
// so be reported as a failed operand.
type StatusContributor interface {
	ContributeStatus(hc *hcov1.HyperConverged, facts Facts, now metav1.Time, st *hcov1.HyperConvergedStatus) error
}

// DeletionOrderer is an optional capability: operands are deleted on
// uninstall in ascending DeletionOrder (default 0), each group gone before
// the next starts.
type DeletionOrderer interface {
	DeletionOrder() int
}

// Reconciler reconciles the HyperConverged singleton: it stores its
// finalizer, applies every enabled operand's desired objects, deletes what
// is no longer desired, and writes one aggregated status, on every path. It
// is re-entrant and keeps no per-request state; its one memory between
// reconciles is the applier's (what each object looked like when last in
// sync, see applier).
type Reconciler struct {
	// client writes as FieldOwner and reads the HyperConverged from the cache.
	client client.Client
	// cache reads the operand objects, unstructured.
	cache client.Reader
	// reader reads past the cache.
	reader   client.Reader
	scheme   *runtime.Scheme
	registry *Registry
	env      Environment
	events   EventRecorder
	metrics  *Metrics
	applier  *applier
	kinds    []*operandKind
	// nodes is what the operator keeps of the Nodes, filled by the node
	// source SetupWithManager adds.
	nodes *nodeIndex
	// clusterTLS: the cluster serves OpenShift's APIServer configuration,
	// whose TLS profile the operands get when the HyperConverged has none.
	clusterTLS bool
	now        func() time.Time

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
	c := client.WithFieldOwner(mgr.GetClient(), FieldOwner)
	return &Reconciler{
		client:          c,
		cache:           mgr.GetCache(),
		reader:          mgr.GetAPIReader(),
		scheme:          mgr.GetScheme(),
		registry:        reg,
		env:             env,
		events:          mgr.GetEventRecorder("hco-operator"),
		metrics:         metrics,
		applier:         newApplier(c, mgr.GetCache(), mgr.GetAPIReader(), mgr.GetScheme()),
		kinds:           kinds,
		nodes:           newNodeIndex(),
		now:             time.Now,
		DeletionTimeout: 5 * time.Minute,
	}, nil
}

// SetupWithManager watches the HyperConverged and the kinds of the enabled
// operands (only those the cache selects: the managed ones).
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	b := ctrl.NewControllerManagedBy(mgr).
		Named("hyperconverged").
		For(&hcov1.HyperConverged{}, builder.WithPredicates(predicate.Or(
			predicate.GenerationChangedPredicate{}, predicate.AnnotationChangedPredicate{}, predicate.LabelChangedPredicate{})))
	toSingleton := handler.EnqueueRequestsFromMapFunc(func(context.Context, client.Object) []reconcile.Request {
		return []reconcile.Request{{NamespacedName: r.singleton()}}
	})
	// Nodes, metadata only, into the node index: a node added or removed,
	// or its labels changed, can change the node facts in the status.
	mc, err := metadata.NewForConfigAndClient(mgr.GetConfig(), mgr.GetHTTPClient())
	if err != nil {
		return fmt.Errorf("metadata client for the nodes: %w", err)
	}
	b = b.WatchesRawSource(newNodeSource(r.nodes, mc, reconcile.Request{NamespacedName: r.singleton()}))
	// On OpenShift, the cluster's APIServer configuration: its TLS profile
	// is the operands' when the HyperConverged has none.
	if r.clusterTLS, err = ClusterTLSProfileServed(mgr.GetRESTMapper()); err != nil {
		return err
	}
	if r.clusterTLS {
		b = b.Watches(&ocpconfigv1.APIServer{}, toSingleton)
	}
	for _, k := range r.kinds {
		b = b.Watches(k.newObject(), toSingleton)
	}
	return b.Complete(r)
}

func (r *Reconciler) singleton() types.NamespacedName {
	return types.NamespacedName{Namespace: r.env.Namespace, Name: hcov1.HyperConvergedName}
}

// Reconcile implements reconcile.Reconciler. Every step records what it
// found into one assessment, and the status is patched once, at the end, on
// every path (when it changed): a step that fails is reported in the
// conditions, naming its object, and its error requeues.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (result reconcile.Result, err error) {
	hc := &hcov1.HyperConverged{}
	if err := r.client.Get(ctx, req.NamespacedName, hc); err != nil {
		if apierrors.IsNotFound(err) && req.NamespacedName == r.singleton() {
			return r.sweepOrphans(ctx, req.NamespacedName)
		}
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	a := &assessment{Assessment: Assessment{Generation: hc.Generation, Upgrading: r.upgrading(hc), ObservedVersions: map[string]string{}}}
	defer func() { result, err = r.patchStatus(ctx, hc, a) }()
	switch {
	case req.NamespacedName != r.singleton():
		want := r.singleton()
		a.ProblemReason, a.ProblemMessage = ReasonInvalidRequest,
			fmt.Sprintf("only the HyperConverged named %q in namespace %q is reconciled; this one is ignored, delete it", want.Name, want.Namespace)
		return
	case !hc.DeletionTimestamp.IsZero():
		r.uninstall(ctx, hc, a)
		return
	}
	// The finalizer before any operand object, so that uninstall always
	// runs and finds them all by label. The mutating webhook usually set it
	// at create already.
	storedFinalizer := !controllerutil.ContainsFinalizer(hc, FinalizerName)
	if !a.record(r.addFinalizer(ctx, hc)) {
		return
	}
	if a.Upgrading {
		// An update of the HyperConverged brings the next reconcile.
		if adopted, adoptErr := r.adopt(ctx, hc); !a.record(adoptErr) || adopted {
			return
		}
	}
	facts, factsErr := r.facts(ctx, hc)
	if !a.record(factsErr) {
		return
	}
	ops := r.registry.Operands()
	outcomes := r.reconcileOperands(ctx, hc, facts, ops)
	if storedFinalizer && r.deletedMeanwhile(ctx, hc, outcomes, a) {
		return
	}
	r.announce(hc, outcomes)
	desiredKeys := r.assess(ctx, hc, ops, outcomes, a)
	a.record(r.prune(ctx, hc, desiredKeys))
	a.full, a.facts, a.contributors = true, facts, contributors(ops)
	r.recordUnsafe(hc)
	return
}

// conflictRequeue is how soon a reconcile that met a conflict (a cache
// behind a write) runs again, should no event bring it back first.
const conflictRequeue = 100 * time.Millisecond

// assess records the operands' outcomes into a (the status findings and
// the related objects) and returns the keys of what is desired (a key with
// an empty name protects a whole kind from pruning).
func (r *Reconciler) assess(ctx context.Context, hc *hcov1.HyperConverged, ops []Operand, outcomes []operandOutcome, a *assessment) map[objectKey]bool {
	logger := log.FromContext(ctx)
	var problems []string
	desiredKeys := map[objectKey]bool{}
	for i, op := range ops {
		o := outcomes[i]
		var invalid *invalidConfig
		switch {
		case errors.As(o.err, &invalid):
			logger.Info("invalid HyperConverged configuration", "operand", op.Name(), "error", invalid.err.Error())
			problems = append(problems, invalid.err.Error())
		case apierrors.IsConflict(o.err):
			a.conflicted = true
		case o.err != nil:
			logger.Error(o.err, "operand reconcile failed", "operand", op.Name())
			a.record(fmt.Errorf("operand %s: %w", op.Name(), o.err))
		}
		if o.err != nil {
			// Keep what exists: nothing of this operand is pruned.
			for _, k := range r.kinds {
				if slices.Contains(k.operands, op.Name()) {
					desiredKeys[objectKey{gvk: k.gvk}] = true
				}
			}
		}
		if o.status.Kind != "" {
			a.Components = append(a.Components, o.status)
			a.ObservedVersions[op.Name()] = o.status.ObservedVersion
		}
		a.related = append(a.related, o.refs...)
		for _, k := range o.keys {
			desiredKeys[k] = true
		}
		if p, ok := op.(JSONPatcher); ok && o.err == nil && HasJSONPatch(hc, p.JSONPatchAnnotation()) {
			// In effect only when the patch applied: a broken one is reported
			// as InvalidConfiguration instead.
			a.Tainted = true
		}
	}
	if len(problems) > 0 {
		a.ProblemReason, a.ProblemMessage = ReasonInvalidConfiguration, strings.Join(problems, "; ")
		// Announce a problem once, when it appears, not on every reconcile
		// while it lasts.
		prev := meta.FindStatusCondition(hc.Status.Conditions, hcov1.ConditionReconcileComplete)
		if prev == nil || prev.Reason != a.ProblemReason || prev.Message != a.ProblemMessage {
			r.events.Eventf(hc, nil, corev1.EventTypeWarning, EventInvalidConfig, "Reconcile", "%s", a.ProblemMessage)
		}
	}
	return desiredKeys
}

// assessment is one reconcile's record: an Assessment plus what only the
// reconcile needs. Every step records into it; patchStatus turns it into
// the status and the result.
type assessment struct {
	Assessment
	// full is true once the operands were reconciled: every condition is
	// computed. Otherwise (an earlier step failed, uninstall, a refused
	// HyperConverged) only ReconcileComplete is, from the failures or the
	// problem, and nothing is written when there is neither.
	full bool
	// errs are returned, so that the reconcile is retried with backoff.
	errs []error
	// conflicted is true when a write met a conflict and the reconcile
	// should run again soon.
	conflicted bool
	// gone is true when the HyperConverged no longer exists (or is about
	// to): there is no status to write.
	gone bool
	// requeueAfter asks for another reconcile (a deletion in progress).
	requeueAfter time.Duration
	related      []corev1.ObjectReference
	// facts are those the operands were given; the status reports the
	// node facts among them.
	facts Facts
	// contributors are the operands that report status fields of their own.
	contributors []StatusContributor
}

// record notes the error of a step, which names its object, and reports
// whether there was none. A conflict (a cache behind a write) is not a
// failure: the next reconcile, soon, sees the object as it is. A
// HyperConverged gone meanwhile has no status to report.
func (a *assessment) record(err error) bool {
	switch {
	case err == nil:
		return true
	case apierrors.IsConflict(err):
		a.conflicted = true
	case apierrors.IsNotFound(err):
		a.gone = true
	default:
		a.errs = append(a.errs, err)
		a.Failures = append(a.Failures, err.Error())
	}
	return false
}

func contributors(ops []Operand) []StatusContributor {
	var out []StatusContributor
	for _, op := range ops {
		if c, ok := op.(StatusContributor); ok {
			out = append(out, c)
		}
	}
	return out
}

// addFinalizer stores the finalizer on hc if it lacks it, and updates hc to
// the object stored.
func (r *Reconciler) addFinalizer(ctx context.Context, hc *hcov1.HyperConverged) error {
	if controllerutil.ContainsFinalizer(hc, FinalizerName) {
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
			err := r.client.Delete(ctx, w.obj, client.Preconditions{UID: ptr.To(w.obj.GetUID())})
			if client.IgnoreNotFound(err) != nil && !apierrors.IsConflict(err) {
				errs = append(errs, fmt.Errorf("delete %s %s created for a HyperConverged deleted meanwhile: %w", w.kind, w.obj.GetName(), err))
				continue
			}
			gvk := w.obj.GetObjectKind().GroupVersionKind()
			r.applier.forget(gvk, client.ObjectKeyFromObject(w.obj))
			r.events.Eventf(hc, w.obj, corev1.EventTypeNormal, EventDeleted, "Delete", "Deleted %s %s: its HyperConverged was deleted as the finalizer was stored", w.kind, w.obj.GetName())
		}
	}
	return errors.Join(errs...)
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
func (r *Reconciler) reconcileOperands(ctx context.Context, hc *hcov1.HyperConverged, facts Facts, ops []Operand) []operandOutcome {
	out := make([]operandOutcome, len(ops))
	var wg sync.WaitGroup
	for i, op := range ops {
		wg.Go(func() {
			start := r.now()
			result := ApplyResult("error")
			defer func() {
				// A panicking operand (a distribution's own, say) fails
				// its reconcile, not the process.
				if p := recover(); p != nil {
					out[i].err = fmt.Errorf("operand %s panicked: %v", op.Name(), p)
				}
				r.observe(op.Name(), result, start)
			}()
			out[i], result = r.reconcileOperand(ctx, hc, facts, op)
		})
	}
	wg.Wait()
	return out
}

// invalidConfig marks an operand error caused by the HyperConverged's content.
type invalidConfig struct{ err error }

func (e *invalidConfig) Error() string { return e.err.Error() }

// reconcileOperand applies one operand's desired objects and reads its
// status. On an error, the status is read from the operand's objects as
// they are.
func (r *Reconciler) reconcileOperand(ctx context.Context, hc *hcov1.HyperConverged, facts Facts, op Operand) (operandOutcome, ApplyResult) {
	var o operandOutcome
	existing := func() {
		objs, refs := r.observeExisting(ctx, op, hc)
		o.status, o.refs = op.Status(objs), refs
	}
	desired, err := DesiredObjects(op, hc, facts)
	if err != nil {
		existing()
		o.err = &invalidConfig{err: err}
		return o, "invalid"
	}
	if len(desired) == 0 {
		// The operand wants nothing for this HyperConverged: it has no status to report.
		return o, ResultUnchanged
	}
	result := ResultUnchanged
	observed := make([]client.Object, 0, len(desired))
	for i, d := range desired {
		obj, res, err := r.applier.apply(ctx, d)
		if err != nil {
			existing()
			if blamed := refusedPatch(hc, op, i, err); blamed != nil {
				// The API server refuses what the HyperConverged's jsonpatch
				// asks for: the admin must fix it, retrying will not.
				o.err = &invalidConfig{err: blamed}
				return o, "invalid"
			}
			// Anything else (an operand CRD older than the operator, an
			// admission webhook of the component refusing during its own
			// upgrade) may pass later: an error, retried with backoff.
			o.err = err
			return o, "error"
		}
		gvk := obj.GroupVersionKind()
		o.keys = append(o.keys, objectKey{gvk: gvk, key: client.ObjectKeyFromObject(obj)})
		o.refs = append(o.refs, referenceTo(obj))
		observed = append(observed, typedForm(obj, r.scheme))
		if res != ResultUnchanged {
			o.writes = append(o.writes, written{kind: gvk.Kind, obj: obj, result: res})
			result = res
		}
	}
	o.status = op.Status(observed)
	return o, result
}

// refusedPatch returns the API server's refusal of an object a jsonpatch
// annotation changed (the first one of a JSONPatcher), naming the
// annotation; nil when the refusal is not the patch's doing.
func refusedPatch(hc *hcov1.HyperConverged, op Operand, index int, err error) error {
	if !apierrors.IsInvalid(err) && !apierrors.IsBadRequest(err) {
		return nil
	}
	if p, ok := op.(JSONPatcher); ok && index == 0 && HasJSONPatch(hc, p.JSONPatchAnnotation()) {
		return fmt.Errorf("annotation %q: the API server refuses the object it patches: %w; fix the patch or remove the annotation", p.JSONPatchAnnotation(), err)
	}
	return nil
}

// observeExisting returns the operand's managed objects as they are, typed
// where the scheme knows the kind, and references to them: its status and
// related objects when its desired state cannot be applied.
func (r *Reconciler) observeExisting(ctx context.Context, op Operand, hc *hcov1.HyperConverged) ([]client.Object, []corev1.ObjectReference) {
	var objs []client.Object
	var refs []corev1.ObjectReference
	for _, k := range r.kinds {
		if !slices.Contains(k.operands, op.Name()) {
			continue
		}
		items, err := r.listManaged(ctx, r.cache, k, hc)
		if err != nil {
			continue
		}
		for i := range items {
			objs = append(objs, typedForm(&items[i], r.scheme))
			refs = append(refs, referenceTo(&items[i]))
		}
	}
	return objs, refs
}

// referenceTo is the status.relatedObjects entry of an object.
func referenceTo(u *unstructured.Unstructured) corev1.ObjectReference {
	return corev1.ObjectReference{APIVersion: u.GetAPIVersion(), Kind: u.GetKind(), Namespace: u.GetNamespace(), Name: u.GetName(), UID: u.GetUID()}
}

// announce emits an Event for every object the operands created or
// updated, after all the writes, so that the Events do not compete with the
// last of them at the API server.
func (r *Reconciler) announce(hc *hcov1.HyperConverged, outcomes []operandOutcome) {
	for _, o := range outcomes {
		for _, w := range o.writes {
			r.announceWrite(hc, w.kind, w.obj, w.result)
		}
	}
}

func (r *Reconciler) announceWrite(hc *hcov1.HyperConverged, kind string, obj client.Object, res ApplyResult) {
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

func (r *Reconciler) recordUnsafe(hc *hcov1.HyperConverged) {
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
// spec.storage.hostpathProvisioner is removed). A key with an empty name protects a
// whole kind.
func (r *Reconciler) prune(ctx context.Context, hc *hcov1.HyperConverged, desired map[objectKey]bool) error {
	for _, k := range r.kinds {
		if desired[objectKey{gvk: k.gvk}] {
			continue
		}
		items, err := r.listManaged(ctx, r.cache, k, hc)
		if err != nil {
			return err
		}
		for i := range items {
			obj := &items[i]
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

// listManaged lists, from reader (the cache, or past it), the objects of one
// kind that hc manages.
func (r *Reconciler) listManaged(ctx context.Context, reader client.Reader, k *operandKind, hc *hcov1.HyperConverged) ([]unstructured.Unstructured, error) {
	list := k.newList()
	opts := []client.ListOption{client.MatchingLabels{LabelManagedBy: ManagedByValue, LabelApp: hc.Name}}
	// Namespaced objects are managed in hc's namespace (the operator
	// namespace) only: the cache and the RBAC of namespaced kinds are
	// scoped to it.
	namespaced, err := r.client.IsObjectNamespaced(k.newObject())
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", k.gvk.Kind, err)
	}
	if namespaced {
		opts = append(opts, client.InNamespace(hc.Namespace))
	}
	if err := reader.List(ctx, list, opts...); err != nil {
		return nil, fmt.Errorf("list %s: %w", k.gvk.Kind, err)
	}
	for i := range list.Items {
		list.Items[i].SetGroupVersionKind(k.gvk)
	}
	return list.Items, nil
}

// upgrading reports whether the operator version differs from the one the
// HyperConverged's status records.
func (r *Reconciler) upgrading(hc *hcov1.HyperConverged) bool {
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
func (r *Reconciler) adopt(ctx context.Context, hc *hcov1.HyperConverged) (bool, error) {
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
		if observed, _ := r.observeExisting(ctx, op, hc); ad.Adopt(changed, observed) {
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

// patchStatus is the one status writer: it turns the assessment into the
// status, patches it only if it differs from the status hc (as the cache
// has it) carries, and returns the reconcile's result. When the cache is
// behind this operator's last status write, the cached status is not what
// is stored: a status equal to what was written is skipped, any other is
// not written over the stale copy, and the reconcile comes back soon (the
// status watch filters out the event that would bring the cache up to
// date).
func (r *Reconciler) patchStatus(ctx context.Context, hc *hcov1.HyperConverged, a *assessment) (reconcile.Result, error) {
	behind, err := r.writeStatus(ctx, hc, a)
	if err != nil {
		a.errs = append(a.errs, err)
	}
	if len(a.errs) > 0 {
		return reconcile.Result{}, errors.Join(a.errs...)
	}
	if a.conflicted || behind {
		return reconcile.Result{RequeueAfter: conflictRequeue}, nil
	}
	return reconcile.Result{RequeueAfter: a.requeueAfter}, nil
}

func (r *Reconciler) writeStatus(ctx context.Context, hc *hcov1.HyperConverged, a *assessment) (behind bool, err error) {
	if a.gone || (!a.full && len(a.Failures) == 0 && a.ProblemReason == "") {
		return false, nil
	}
	next := hc.DeepCopy()
	now := metav1.NewTime(r.now())
	upgraded := false
	if a.full {
		r.fullStatus(ctx, hc, a, &next.Status, now)
		upgraded = a.Upgrading && !equality.Semantic.DeepEqual(hc.Status.Versions, next.Status.Versions)
	} else {
		// Only ReconcileComplete is known: the others stay as they were.
		rc := Conditions(a.Assessment)[0]
		MergeConditions(&next.Status.Conditions, append(withoutType(hc.Status.Conditions, rc.Type), rc), now)
		next.Status.ObservedGeneration = hc.Generation
		next.Status.SystemHealthStatus = SystemHealth(next.Status.Conditions)
	}
	key := objectKey{gvk: hcov1.GroupVersion.WithKind("HyperConverged"), key: client.ObjectKeyFromObject(hc)}
	h := statusHash(next.Status)
	if written, behind := r.applier.statusBehind(key, hc.ResourceVersion); behind {
		return written != h, nil
	}
	if equality.Semantic.DeepEqual(hc.Status, next.Status) {
		return false, nil
	}
	if upgraded {
		r.events.Eventf(hc, nil, corev1.EventTypeNormal, EventUpgradeCompleted, "Upgrade", "Upgraded to version %s", r.env.Version)
	}
	if err := r.client.Status().Patch(ctx, next, client.MergeFrom(hc)); err != nil {
		return false, client.IgnoreNotFound(fmt.Errorf("write status of HyperConverged %s: %w", client.ObjectKeyFromObject(hc), err))
	}
	r.applier.statusWritten(key, h, hc.ResourceVersion)
	return false, nil
}

// fullStatus computes, into st, the status of a reconcile that reached the
// operands: every condition, the related objects, the node facts, the
// operands' own fields and, once every operand reports the expected
// version, the versions.
func (r *Reconciler) fullStatus(ctx context.Context, hc *hcov1.HyperConverged, a *assessment, st *hcov1.HyperConvergedStatus, now metav1.Time) {
	MergeConditions(&st.Conditions, Conditions(a.Assessment), now)
	st.ObservedGeneration = hc.Generation
	st.RelatedObjects = a.related
	st.SystemHealthStatus = SystemHealth(st.Conditions)
	setNodeStatus(st, a.facts.Nodes)
	for _, c := range a.contributors {
		next := *st.DeepCopy()
		if err := c.ContributeStatus(hc, a.facts, now, &next); err != nil {
			log.FromContext(ctx).Error(err, "status contribution failed")
			continue
		}
		*st = next
	}
	if versions, done := r.versions(a.Assessment); done {
		st.Versions = versions
	}
	if r.metrics != nil {
		r.metrics.SystemHealthStatus.Set(healthValue(st.SystemHealthStatus))
	}
}

// statusHash hashes a status without its conditions' transition times, which
// a status computed again from an older one moves.
func statusHash(s hcov1.HyperConvergedStatus) [sha256.Size]byte {
	s = *s.DeepCopy()
	for i := range s.Conditions {
		s.Conditions[i].LastTransitionTime = metav1.Time{}
	}
	data, _ := json.Marshal(s)
	return sha256.Sum256(data)
}

// versions returns the status.versions to record and whether every operand
// reports the version the environment expects (so they can be recorded).
func (r *Reconciler) versions(a Assessment) ([]hcov1.Version, bool) {
	if r.env.Version == "" || a.ProblemReason != "" || len(a.Failures) > 0 {
		return nil, false
	}
	out := []hcov1.Version{{Name: OperatorVersionName, Version: r.env.Version}}
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
		out = append(out, hcov1.Version{Name: op.Name(), Version: want})
	}
	return out, true
}

func versionOf(vs []hcov1.Version, name string) string {
	for _, v := range vs {
		if v.Name == name {
			return v.Version
		}
	}
	return ""
}

// facts gathers what the operands are given besides hc: the environment,
// the node facts from the node index, and, on OpenShift, the cluster's TLS
// profile (from the cache).
func (r *Reconciler) facts(ctx context.Context, hc *hcov1.HyperConverged) (Facts, error) {
	nodes := r.nodes.facts(hc.Spec.WorkloadPlacement())
	f := Facts{Environment: r.env, Nodes: &nodes}
	if r.clusterTLS {
		p, err := ClusterTLSProfile(ctx, r.client)
		if err != nil {
			return f, err
		}
		f.ClusterTLSProfile = p
	}
	return f, nil
}

// setNodeStatus writes the node facts into a status; unknown facts leave
// it as it is.
func setNodeStatus(s *hcov1.HyperConvergedStatus, nodes *NodeFacts) {
	if nodes == nil {
		return
	}
	f := *nodes
	ha, cpHA := f.InfrastructureHighlyAvailable(), f.ControlPlaneHighlyAvailable()
	s.InfrastructureHighlyAvailable, s.ControlPlaneHighlyAvailable = &ha, &cpHA
	s.NodeInfo = hcov1.NodeInfoStatus{WorkloadsArchitectures: f.WorkloadArchitectures, ControlPlaneArchitectures: f.ControlPlaneArchitectures}
}
