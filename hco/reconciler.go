package hco

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	ocpconfigv1 "github.com/openshift/api/config/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/clustertls"
	"github.com/hcokit/hcokit/hco/internal/apply"
	"github.com/hcokit/hcokit/hco/internal/memo"
	"github.com/hcokit/hcokit/hco/internal/served"
	"github.com/hcokit/hcokit/hco/internal/turns"
	"github.com/hcokit/hcokit/hcometrics"
	"github.com/hcokit/hcokit/hcostatus"
	"github.com/hcokit/hcokit/nodefacts"
	"github.com/hcokit/hcokit/wireform"
)

// Reconciler reconciles the HyperConverged singleton: its finalizer, every
// enabled operand's objects, the pruning, and one aggregated status, on
// every path. It is re-entrant; its memories are counted in hco/doc.go.
type Reconciler struct {
	// client writes as FieldOwner and reads the HyperConverged from the
	// cache; cache reads the operand objects (its informers start and stop
	// with their APIs: apis.go); reader reads past the cache.
	client   client.Client
	cache    cache.Cache
	reader   client.Reader
	scheme   *runtime.Scheme
	registry *Registry
	env      Environment
	events   EventRecorder
	metrics  *hcometrics.Metrics
	applier  *applier
	built    *memo.Builds
	kinds    *served.Kinds
	// controller watches a kind whose API appears while it runs.
	controller controller.Controller
	// nodes is filled by the node source SetupWithManager adds.
	nodes *nodefacts.Index
	// clusterTLS: the cluster serves OpenShift's APIServer configuration;
	// openShift: it serves ClusterVersion; platformKnown: both were learnt
	// by the manager (ReconcilerOptions.Platform), else SetupWithManager
	// asks.
	clusterTLS, openShift, platformKnown bool
	// extensions and watches: ReconcilerOptions'.
	extensions []Extension
	watches    []Watch
	now        func() time.Time

	// DeletionTimeout is how long an uninstall may wait for operand objects
	// to go before it is reported as blocked.
	DeletionTimeout time.Duration
}

// ReconcilerOptions are what NewReconciler is told besides the manager.
type ReconcilerOptions struct {
	// Metrics records the reconciles; nil: none.
	Metrics *hcometrics.Metrics
	// Platform is what the manager learnt of the cluster making its cache
	// (Install.ClusterTLS and OpenShift); nil: SetupWithManager asks.
	Platform *Install
	// Extensions run in each reconcile; a change of one of Watches
	// reconciles the HyperConverged.
	Extensions []Extension
	Watches    []Watch
}

// NewReconciler builds a reconciler for the manager's client and cache. The
// manager's cache must be made with package manager's CacheOptions, and
// the scheme must hold the HyperConverged and every operand kind.
func NewReconciler(mgr ctrl.Manager, reg *Registry, env Environment, opts ReconcilerOptions) (*Reconciler, error) {
	if env.Namespace == "" {
		return nil, errors.New("hco: Environment.Namespace is required")
	}
	kinds, err := operandKinds(reg, mgr.GetScheme())
	if err != nil {
		return nil, err
	}
	c := client.WithFieldOwner(mgr.GetClient(), FieldOwner)
	dc, err := discovery.NewDiscoveryClientForConfigAndClient(mgr.GetConfig(), mgr.GetHTTPClient())
	if err != nil {
		return nil, fmt.Errorf("hco: discovery client: %w", err)
	}
	r := &Reconciler{
		client:          c,
		cache:           mgr.GetCache(),
		reader:          mgr.GetAPIReader(),
		scheme:          mgr.GetScheme(),
		registry:        reg,
		env:             env,
		events:          mgr.GetEventRecorder("hco-operator"),
		metrics:         opts.Metrics,
		extensions:      opts.Extensions,
		watches:         opts.Watches,
		applier:         newApplier(c, mgr.GetAPIReader()),
		built:           &memo.Builds{},
		kinds:           &served.Kinds{All: kinds, Discovery: dc, Now: time.Now},
		nodes:           nodefacts.NewIndex(),
		now:             time.Now,
		DeletionTimeout: 5 * time.Minute,
	}
	if p := opts.Platform; p != nil {
		r.clusterTLS, r.openShift, r.platformKnown = p.ClusterTLS, p.OpenShift, true
	}
	return r, nil
}

// SetupWithManager watches the HyperConverged, the kinds of the enabled
// operands that the API server serves (only those the cache selects: the
// managed ones), the Nodes, and the CustomResourceDefinitions of the other
// operand kinds' groups, so that their watch starts when their API appears.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	inNamespace := predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetNamespace() == r.env.Namespace })
	b := ctrl.NewControllerManagedBy(mgr).
		Named("hyperconverged").
		For(&hcov1.HyperConverged{}, builder.WithPredicates(inNamespace, predicate.Or(
			predicate.GenerationChangedPredicate{}, predicate.AnnotationChangedPredicate{}, predicate.LabelChangedPredicate{}))).
		// Another namespace's HyperConverged is another install's, never
		// reconciled; its coming or going decides who adopts (see Owner).
		Watches(&hcov1.HyperConverged{}, r.toSingleton(), builder.WithPredicates(predicate.Not(inNamespace), predicate.Funcs{
			UpdateFunc: func(event.UpdateEvent) bool { return false }, GenericFunc: func(event.GenericEvent) bool { return false },
		}))
	// Nodes, metadata only, into the node index (the node facts).
	mc, err := metadata.NewForConfigAndClient(mgr.GetConfig(), mgr.GetHTTPClient())
	if err != nil {
		return fmt.Errorf("metadata client for the nodes: %w", err)
	}
	b = b.WatchesRawSource(nodefacts.NewSource(r.nodes, mc, reconcile.Request{NamespacedName: r.singleton()}))
	// On OpenShift, the APIServer configuration: its TLS profile is the
	// operands' when the HyperConverged has none. (The manager asked both
	// questions already: each "no" costs a discovery request.)
	if !r.platformKnown {
		if r.clusterTLS, err = clustertls.Served(mgr.GetRESTMapper()); err != nil {
			return err
		}
		if r.openShift, err = OpenShift(mgr.GetRESTMapper()); err != nil {
			return err
		}
	}
	if r.clusterTLS {
		b = b.Watches(&ocpconfigv1.APIServer{}, r.toSingleton())
	}
	for _, w := range r.watches {
		if w.MetadataOnly {
			b = b.Watches(w.Object, r.toSingleton(), builder.OnlyMetadata)
		} else {
			b = b.Watches(w.Object, r.toSingleton())
		}
	}
	others := r.registry.OtherNamespaces(r.env.Namespace, r.openShift)
	for _, k := range r.kinds.All {
		k.Others = others[k.GVK]
		served, namespaced, err := KindServed(mgr.GetRESTMapper(), k.GVK)
		if err != nil {
			return err
		}
		k.Served.Store(served)
		k.Namespaced = namespaced
		if !served {
			mgr.GetLogger().Info("operand API not served: its operands wait for it", "kind", k.GVK.String(), "operands", k.Operands)
			continue
		}
		b = b.Watches(k.NewObject(), r.operandEvents(k.GVK))
	}
	b = b.Watches(CRDMetadata(), r.crdHandler())
	r.controller, err = b.Build(r)
	return err
}

// operandEvents maps an event of an operand object of kind gvk to a
// reconcile of the singleton, but for the echo of the operator's own write
// (the memo holds the object in sync at that resourceVersion).
func (r *Reconciler) operandEvents(gvk schema.GroupVersionKind) handler.EventHandler {
	echo := func(obj client.Object) bool {
		return r.applier.InSyncAt(objectKey{GVK: gvk, Name: client.ObjectKeyFromObject(obj)}, obj.GetResourceVersion())
	}
	k := r.kinds.Find(gvk)
	enqueue := func(q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
		if k != nil {
			k.Touched.Store(true)
		}
		q.Add(reconcile.Request{NamespacedName: r.singleton()})
	}
	return handler.Funcs{
		CreateFunc: func(_ context.Context, e event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			if !echo(e.Object) {
				enqueue(q)
			}
		},
		UpdateFunc: func(_ context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			if !echo(e.ObjectNew) {
				enqueue(q)
			}
		},
		DeleteFunc: func(_ context.Context, _ event.DeleteEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(q)
		},
		GenericFunc: func(_ context.Context, _ event.GenericEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(q)
		},
	}
}

// toSingleton maps any event to a reconcile of the singleton.
func (r *Reconciler) toSingleton() handler.EventHandler {
	return handler.EnqueueRequestsFromMapFunc(func(context.Context, client.Object) []reconcile.Request {
		return []reconcile.Request{{NamespacedName: r.singleton()}}
	})
}

// OpenShift reports whether the cluster is OpenShift (it serves
// ClusterVersion), as learnt at setup.
func (r *Reconciler) OpenShift() bool { return r.openShift }

func (r *Reconciler) singleton() types.NamespacedName {
	return types.NamespacedName{Namespace: r.env.Namespace, Name: hcov1.HyperConvergedName}
}

// Reconcile implements reconcile.Reconciler. Every step records what it
// found into one assessment; the status is patched once, at the end, on
// every path (when it changed); a failed step is a condition naming its
// object, and its error requeues.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (result reconcile.Result, err error) {
	apisAgain, apisErr := r.kinds.Refresh(ctx, r.startWatch, r.stopWatch)
	hc := &hcov1.HyperConverged{}
	if err := r.client.Get(ctx, req.NamespacedName, hc); err != nil {
		if apierrors.IsNotFound(err) && req.NamespacedName == r.singleton() {
			result, err := r.sweepOrphans(ctx, Owner{Namespace: req.Namespace, Name: req.Name, Gone: true})
			return soonest(result, apisAgain), errors.Join(apisErr, err)
		}
		return reconcile.Result{RequeueAfter: apisAgain}, errors.Join(apisErr, client.IgnoreNotFound(err))
	}
	a := &assessment{Assessment: hcostatus.Assessment{Generation: hc.Generation, Upgrading: r.upgrading(hc), Version: r.env.Version, ObservedVersions: map[string]string{}}}
	defer func() {
		result, err = r.patchStatus(ctx, hc, a)
		result = soonest(result, apisAgain)
	}()
	a.record(apisErr)
	if req.NamespacedName != r.singleton() {
		a.ignored(r.singleton())
		return
	}
	owner, err := OwnerFor(ctx, r.client, hc)
	if !a.record(err) {
		return
	}
	a.owner = owner
	if !hc.DeletionTimestamp.IsZero() {
		r.uninstall(ctx, hc, owner, a)
		return
	}
	// The finalizer before any operand object (the webhook usually set it).
	storedFinalizer := !controllerutil.ContainsFinalizer(hc, FinalizerName)
	if !a.record(r.addFinalizer(ctx, hc)) {
		return
	}
	if r.beforeOperands(ctx, hc, owner, a) {
		return
	}
	facts, ok := r.gatherFacts(ctx, hc, a)
	if !ok {
		return
	}
	ops := r.registry.Operands()
	outcomes := r.inTurns(ops, r.kinds.TakeTouched(), func(op Operand, yield func()) (operandOutcome, ApplyResult) {
		return r.reconcileOperand(ctx, hc, owner, facts, op, yield)
	})
	if storedFinalizer && r.deletedMeanwhile(ctx, hc, outcomes, a) {
		return
	}
	r.announce(hc, outcomes)
	// After the operands, whose creates it would delay by a round trip: the
	// KubeVirt gets the same value either way.
	a.record(r.storeEvictionStrategy(ctx, hc, facts))
	a.record(r.afterOperands(ctx, hc, owner, facts, a))
	desiredKeys := r.assess(ctx, hc, ops, outcomes, a)
	a.record(r.prune(ctx, hc, owner, desiredKeys))
	a.full, a.facts = true, facts
	return
}

// soonest is result, coming back after d at the latest (d zero: no need).
func soonest(result reconcile.Result, d time.Duration) reconcile.Result {
	if d > 0 && (result.RequeueAfter == 0 || d < result.RequeueAfter) {
		result.RequeueAfter = d
	}
	return result
}

// The "result" labels of hcokit_operand_reconciles_total besides the
// ApplyResults: an operand waiting for its API, a platform default skipped
// (Registry.OnlyWhereServed), an object of another install (Owner).
const (
	resultWaiting        ApplyResult = "waiting"
	resultSkipped        ApplyResult = "skipped"
	resultOwnedElsewhere ApplyResult = "owned-elsewhere"
)

// conflictRequeue: how soon a reconcile that met a conflict runs again.
const conflictRequeue = 100 * time.Millisecond

// operandOutcome is what reconciling one operand found.
type operandOutcome struct {
	status hcostatus.Component
	refs   []corev1.ObjectReference
	keys   []objectKey
	err    error
	// waiting and skipped say which APIs the operand waits for, or a
	// platform default is skipped for (Registry.OnlyWhereServed).
	waiting, skipped string
	patch            jsonPatch
	// writes are announced by Events once every operand's are done.
	writes []written
}

// written is one object an operand's reconcile created or updated.
type written struct {
	kind   string
	obj    client.Object
	result ApplyResult
}

// inTurns runs reconcile for each operand, their writes concurrently (one
// round trip in all, not one per operand): one operand builds and compares
// at a time and gives the turn to the next as soon as it waits on the API
// server, so the first operands' writes wait behind no other build (builds
// side by side delayed the first write by up to 2 ms on shared cores:
// docs/performance.md). The operands named in first (an event touched
// their kinds: served.Kinds.TakeTouched) go first. Outcomes are in the
// operands' order.
func (r *Reconciler) inTurns(ops []Operand, first map[string]bool, reconcile func(op Operand, yield func()) (operandOutcome, ApplyResult)) []operandOutcome {
	out := make([]operandOutcome, len(ops))
	turns.Run(turns.Order(len(ops), func(i int) bool { return first[ops[i].Name()] }), func(i int, yield func()) {
		start, result := r.now(), ApplyResult("error")
		defer func() {
			// A panicking operand (a distribution's own, say) fails its
			// reconcile, not the process.
			if p := recover(); p != nil {
				out[i].err = fmt.Errorf("operand %s panicked: %v", ops[i].Name(), p)
			}
			r.observe(ops[i].Name(), result, start)
		}()
		out[i], result = reconcile(ops[i], yield)
	})
	return out
}

// invalidConfig marks an operand error caused by the HyperConverged's content.
type invalidConfig struct{ err error }

func (e *invalidConfig) Error() string { return e.err.Error() }

// reconcileOperand applies one operand's desired objects and reads its
// status (on an error, from its objects as they are); yield gives the
// operand's turn back (inTurns).
func (r *Reconciler) reconcileOperand(ctx context.Context, hc *hcov1.HyperConverged, owner Owner, facts Facts, op Operand, yield func()) (operandOutcome, ApplyResult) {
	var o operandOutcome
	existing := func() {
		objs, refs := r.observeExisting(ctx, op, owner)
		o.status, o.refs = op.Status(objs), refs
	}
	o.patch = jsonPatchOf(op, hc)
	v := &cacheView{r: r, owner: owner}
	steps, missing, err := PlanOperand(ctx, op, hc, facts, v, owner)
	var invalid *invalidConfig
	switch {
	case errors.As(err, &invalid):
		existing()
		o.err = err
		return o, "invalid"
	case len(missing) > 0 && r.registry.WhereServed(op.Name()):
		o.skipped = skippedMessage(op, missing)
		return o, resultSkipped
	case len(missing) > 0:
		o.waiting = waitingMessage(op, missing)
		return o, resultWaiting
	case err == nil && len(steps) == 0:
		// The operand wants nothing for this HyperConverged: it has no status to report.
		return o, ResultUnchanged
	case err == nil:
		err = v.err
	}
	result := ResultUnchanged
	observed := make([]client.Object, 0, len(steps))
	for i := 0; err == nil && i < len(steps); i++ {
		obj, res, applyErr := r.applier.execute(ctx, steps[i], yield)
		if err = applyErr; err != nil {
			if blamed := steps[i].RefusedPatch(err); blamed != nil {
				// The API server refuses what the HyperConverged's jsonpatch
				// asks for: the admin must fix it, retrying will not.
				err = &invalidConfig{err: blamed}
			}
			break
		}
		gvk := obj.GroupVersionKind()
		o.keys = append(o.keys, objectKey{GVK: gvk, Name: client.ObjectKeyFromObject(obj)})
		o.refs = append(o.refs, referenceTo(obj))
		observed = append(observed, r.applier.Typed(obj, r.scheme))
		if res != ResultUnchanged {
			o.writes = append(o.writes, written{kind: gvk.Kind, obj: obj, result: res})
			result = res
		}
	}
	var elsewhere *ownedElsewhere
	switch {
	case err == nil:
		o.status = op.Status(observed)
		return o, result
	case errors.As(err, &elsewhere):
		result = resultOwnedElsewhere
	case errors.As(err, &invalid):
		result = "invalid"
	default:
		// Anything else (an older operand CRD, a component's webhook during
		// its upgrade) may pass later: retried with backoff.
		result = "error"
	}
	existing()
	o.err = err
	return o, result
}

// cacheView is the reconciler's View for one operand's plan: the cache's
// objects (shared: read only), the served kinds, and the memos. A read that
// fails but for the object's absence is err.
type cacheView struct {
	r     *Reconciler
	owner Owner
	err   error
}

// builds is the View's buildMemory: the reconciler's build memo.
func (v *cacheView) builds() (*memo.Builds, *runtime.Scheme) { return v.r.built, v.r.scheme }

// Served: a kind of no operand's Kinds is taken as served.
func (v *cacheView) Served(gvk schema.GroupVersionKind) bool {
	k := v.r.kinds.Find(gvk)
	return k == nil || k.Served.Load()
}

func (v *cacheView) Live(ctx context.Context, gvk schema.GroupVersionKind, key client.ObjectKey) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	err := v.r.cache.Get(ctx, key, u)
	switch {
	case err == nil:
		return u
	case !apierrors.IsNotFound(err) && v.err == nil:
		v.err = fmt.Errorf("get %s %s: %w", gvk.Kind, apply.DisplayName(key), err)
	}
	return nil
}

func (v *cacheView) Managed(ctx context.Context, gvk schema.GroupVersionKind) ([]*unstructured.Unstructured, error) {
	k := v.r.kinds.Find(gvk)
	if k == nil {
		return nil, nil
	}
	items, err := v.r.listOwned(ctx, v.r.cache, k, v.owner)
	out := make([]*unstructured.Unstructured, len(items))
	for i := range items {
		out[i] = &items[i]
	}
	return out, err
}

func (v *cacheView) Recall(key objectKey, built, want, live *unstructured.Unstructured) memo.Recalled {
	return v.r.applier.Recall(key, built, want, live)
}

func (v *cacheView) LeftAlone(key objectKey, built *unstructured.Unstructured) *unstructured.Unstructured {
	return v.r.applier.LeftAlone(key, built)
}

// observeExisting returns the operand's objects of owner as they are (typed
// where the scheme knows the kind) and references to them: its status and
// related objects when its desired state cannot be applied.
func (r *Reconciler) observeExisting(ctx context.Context, op Operand, owner Owner) ([]client.Object, []corev1.ObjectReference) {
	var objs []client.Object
	var refs []corev1.ObjectReference
	for _, k := range r.kinds.Served() {
		if !slices.Contains(k.Operands, op.Name()) {
			continue
		}
		items, err := r.listOwned(ctx, r.cache, k, owner)
		if err != nil {
			continue
		}
		for i := range items {
			objs = append(objs, wireform.Typed(&items[i], r.scheme))
			refs = append(refs, referenceTo(&items[i]))
		}
	}
	return objs, refs
}

// referenceTo is the status.relatedObjects entry of an object.
func referenceTo(u *unstructured.Unstructured) corev1.ObjectReference {
	return corev1.ObjectReference{APIVersion: u.GetAPIVersion(), Kind: u.GetKind(), Namespace: u.GetNamespace(), Name: u.GetName(), UID: u.GetUID()}
}

// prune carries out the plan's deletions (deletions): owner's objects no
// operand builds any more, but those desired protects (a key with an empty
// name protects a whole kind).
func (r *Reconciler) prune(ctx context.Context, hc *hcov1.HyperConverged, owner Owner, desired map[objectKey]bool) error {
	ops := PlatformOperands(r.registry, Platform{OpenShift: r.openShift})
	steps, err := deletions(ctx, ops, &cacheView{r: r, owner: owner}, owner, func(k objectKey) bool { return desired[k] })
	for _, s := range steps {
		_, res, delErr := r.applier.execute(ctx, s, func() {})
		if delErr != nil {
			return errors.Join(err, delErr)
		}
		if res == resultDeleted {
			r.events.Eventf(hc, s.Live, corev1.EventTypeNormal, EventDeleted, "Delete", "Deleted %s %s: no longer desired", s.GVK.Kind, s.Live.GetName())
		}
	}
	return err
}

// ListNamespaces are the namespaces the operator lists its objects of a kind
// in: the HyperConverged's and the others operands name for the kind
// (Registry.OtherNamespaces), as the cache and RBAC are scoped; all ("")
// with AnyNamespace among others, or for a cluster-scoped kind.
func ListNamespaces(namespaced bool, namespace string, others []string) []string {
	if !namespaced || slices.Contains(others, AnyNamespace) {
		return []string{metav1.NamespaceAll}
	}
	return append([]string{namespace}, others...)
}

// listOwned lists from reader (the cache, or past it) the objects of a kind
// labelled for owner's HyperConverged that owner claims (Owner). Those
// from the cache are shared: read only.
func (r *Reconciler) listOwned(ctx context.Context, reader client.Reader, k *served.Kind, owner Owner) ([]unstructured.Unstructured, error) {
	labels := client.MatchingLabels{LabelManagedBy: ManagedByValue, LabelApp: owner.Name}
	var items []unstructured.Unstructured
	for _, ns := range ListNamespaces(k.Namespaced, owner.Namespace, k.Others) {
		list := k.NewList()
		if err := reader.List(ctx, list, labels, client.InNamespace(ns)); err != nil {
			return nil, fmt.Errorf("list %s: %w", k.GVK.Kind, err)
		}
		if items == nil {
			items = list.Items[:0] // filtered in place
		}
		for i := range list.Items {
			if claimed, _ := owner.Claims(&list.Items[i]); !claimed {
				continue
			}
			item := list.Items[i]
			// The cache's objects are shared (CacheOptions): set the kind on a
			// copy, should one lack it.
			if item.GroupVersionKind() != k.GVK {
				item = *item.DeepCopy()
				item.SetGroupVersionKind(k.GVK)
			}
			items = append(items, item)
		}
	}
	return items, nil
}

// observed is Facts.Observed for the operator's cache: only a kind that is
// served (so watched) is read, so no read starts an informer.
func (r *Reconciler) observed(ctx context.Context) func(schema.GroupVersionKind, client.ObjectKey) (*unstructured.Unstructured, bool) {
	return func(gvk schema.GroupVersionKind, key client.ObjectKey) (*unstructured.Unstructured, bool) {
		k := r.kinds.Find(gvk)
		if k == nil || !k.Served.Load() {
			return nil, false
		}
		u := k.NewObject()
		if err := r.cache.Get(ctx, key, u); err != nil {
			return nil, false
		}
		return u, true
	}
}

// gatherFacts gathers hc's facts (GatherFacts; false: a failure, recorded
// in a), and rechecks a route certificate that cannot be used (no event
// comes when its Secret is fixed).
func (r *Reconciler) gatherFacts(ctx context.Context, hc *hcov1.HyperConverged, a *assessment) (Facts, bool) {
	facts, err := GatherFacts(ctx, hc, FactSources{Env: r.env, Reader: r.client, Direct: r.reader, OpenShift: r.openShift, ClusterTLS: r.clusterTLS,
		Observed: r.observed(ctx), Extensions: r.extensions,
		Nodes: func(workload *hcov1.NodePlacement) (nodefacts.Facts, error) { return r.nodes.Facts(workload), nil }})
	if !a.record(err) {
		return facts, false
	}
	if facts.Platform.certificateUnusable() {
		a.requeueAfter = certificateRecheck
	}
	return facts, true
}
