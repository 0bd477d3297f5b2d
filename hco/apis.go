package hco

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	hcov1 "github.com/hcokit/hcokit/api/v1"

	"github.com/hcokit/hcokit/hcostatus"
)

// An operand kind the API server does not serve (its component operator is
// not installed, or not yet) is waiting: it is not watched, not cached and
// never written, and an operand that builds an object of it waits too,
// reported on Degraded (hcostatus.ReasonOperandAPINotServed) while the others
// converge. The reconciler learns that an API came or went from the
// CustomResourceDefinitions (their metadata only, and only those of the
// operand groups count): such a change marks the group, and the next
// reconcile asks discovery about it before anything else, then starts the
// kind's watch or stops it. So the operator starts with any subset of the
// operand APIs, and heals without a restart.

// EventOperandAPINotServed is the Event reason when an operand is found
// waiting for its API.
const EventOperandAPINotServed = hcostatus.ReasonOperandAPINotServed

// apiSyncTimeout bounds the first list of a kind whose API just appeared.
const apiSyncTimeout = 30 * time.Second

// crdKind is the kind whose metadata tells when an operand API comes or goes.
var crdKind = schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}

// CRDMetadata is an empty CustomResourceDefinition, metadata only, as the
// manager's cache holds it (an extension reads the CRDs there).
func CRDMetadata() *metav1.PartialObjectMetadata {
	m := &metav1.PartialObjectMetadata{}
	m.SetGroupVersionKind(crdKind)
	return m
}

// keepCRDName is the cache transform of CustomResourceDefinitions: their
// name (plural.group) is all the reconciler reads.
func keepCRDName(in any) (any, error) {
	m, ok := in.(*metav1.PartialObjectMetadata)
	if !ok {
		return in, nil
	}
	return &metav1.PartialObjectMetadata{TypeMeta: m.TypeMeta, ObjectMeta: metav1.ObjectMeta{
		Name: m.Name, UID: m.UID, ResourceVersion: m.ResourceVersion, DeletionTimestamp: m.DeletionTimestamp,
	}}, nil
}

// apiGroups holds the operand groups a CustomResourceDefinition change has
// marked for a fresh discovery. Discovery follows a CRD with a short lag,
// and a group's CRDs do not reach it together (the Perses operator's two
// kinds, installed at once, may show one at a time): a group is asked
// again, with a growing delay, for apiSettleTime after the change was seen,
// unless the last answer changed a kind and left all of its kinds alike
// (see settledBy).
type apiGroups struct {
	mu      sync.Mutex
	pending map[string]*apiChange
}

type apiChange struct {
	seen  time.Time
	delay time.Duration
}

// apiSettleTime is how long after a CustomResourceDefinition change the
// discovery is asked again while it shows no change.
const apiSettleTime = 30 * time.Second

func (g *apiGroups) mark(group string, now time.Time) {
	g.mu.Lock()
	if g.pending == nil {
		g.pending = map[string]*apiChange{}
	}
	g.pending[group] = &apiChange{seen: now}
	g.mu.Unlock()
}

// due returns the marked groups.
func (g *apiGroups) due() map[string]*apiChange {
	g.mu.Lock()
	defer g.mu.Unlock()
	return maps.Clone(g.pending)
}

// settled unmarks a group, unless it was marked again meanwhile.
func (g *apiGroups) settled(group string, c *apiChange) {
	g.mu.Lock()
	if g.pending[group] == c {
		delete(g.pending, group)
	}
	g.mu.Unlock()
}

// retry returns when to ask about a group whose kinds did not change again,
// or false when its change is older than apiSettleTime (it was not about
// an operand kind, say) and the group is unmarked.
func (g *apiGroups) retry(group string, c *apiChange, now time.Time) (time.Duration, bool) {
	if now.Sub(c.seen) > apiSettleTime {
		g.settled(group, c)
		return 0, false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	c.delay = min(max(2*c.delay, 500*time.Millisecond), 8*time.Second)
	return c.delay, true
}

// KindServed asks mapper whether the API server serves gvk, and whether
// its objects are namespaced.
func KindServed(mapper meta.RESTMapper, gvk schema.GroupVersionKind) (served, namespaced bool, err error) {
	m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	switch {
	case err == nil:
		return true, m.Scope.Name() == meta.RESTScopeNameNamespace, nil
	case meta.IsNoMatchError(err):
		return false, false, nil
	}
	return false, false, fmt.Errorf("look up the API of operand kind %s: %w", gvk, err)
}

// crdHandler marks the group of a CustomResourceDefinition that may have
// changed whether an operand kind is served, and enqueues the singleton: a
// created or changed one (it may become established) in a group with a
// waiting kind, a deleted or terminating one in a group with a served kind.
// Others (every CRD's create at start, for one) cost nothing.
func (r *Reconciler) crdHandler() handler.EventHandler {
	enqueue := func(obj client.Object, q workqueue.TypedRateLimitingInterface[reconcile.Request], gone bool) {
		_, group, ok := strings.Cut(obj.GetName(), ".")
		if !ok {
			return
		}
		gone = gone || !obj.GetDeletionTimestamp().IsZero()
		for _, k := range r.kinds {
			if k.gvk.Group == group && k.served.Load() == gone {
				r.apiGroups.mark(group, r.now())
				q.Add(reconcile.Request{NamespacedName: r.singleton()})
				return
			}
		}
	}
	return handler.Funcs{
		CreateFunc: func(_ context.Context, e event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(e.Object, q, false)
		},
		UpdateFunc: func(_ context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(e.ObjectNew, q, false)
		},
		DeleteFunc: func(_ context.Context, e event.DeleteEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(e.Object, q, true)
		},
	}
}

// refreshAPIs asks discovery about the groups marked by a
// CustomResourceDefinition change, and starts the watch of each kind that
// is now served and stops that of each kind that no longer is. It returns
// when to ask again about a group whose kinds did not change yet (zero:
// no need).
func (r *Reconciler) refreshAPIs(ctx context.Context) (time.Duration, error) {
	var again time.Duration
	var errs []error
	for group, change := range r.apiGroups.due() {
		changed, err := r.refreshGroup(ctx, group)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if settledBy(r.kinds, group, changed) {
			r.apiGroups.settled(group, change)
		} else if d, ok := r.apiGroups.retry(group, change, r.now()); ok && (again == 0 || d < again) {
			again = d
		}
	}
	return again, errors.Join(errs...)
}

// settledBy reports whether a discovery answer about group settles the
// change that marked it: the answer changed a kind's watch, and the group's
// kinds are now all served or all not. A group left half served may have
// its other kinds still on the way into discovery, with no CRD event to
// come for them (their CRDs are established already), so it is asked again
// until apiSettleTime; one never half served costs nothing more.
func settledBy(kinds []*operandKind, group string, changed bool) bool {
	if !changed {
		return false
	}
	served, unserved := false, false
	for _, k := range kinds {
		if k.gvk.Group != group {
			continue
		}
		if k.served.Load() {
			served = true
		} else {
			unserved = true
		}
	}
	return !(served && unserved)
}

// refreshGroup asks discovery whether each operand kind of group is
// served, starts or stops its watch accordingly, and reports whether any did.
func (r *Reconciler) refreshGroup(ctx context.Context, group string) (changed bool, err error) {
	logger := log.FromContext(ctx)
	resources := map[schema.GroupVersion]*metav1.APIResourceList{}
	for _, k := range r.kinds {
		if k.gvk.Group != group {
			continue
		}
		gv := k.gvk.GroupVersion()
		list, asked := resources[gv]
		if !asked {
			list, err = r.discovery.ServerResourcesForGroupVersion(gv.String())
			if err != nil && !apierrors.IsNotFound(err) {
				return changed, fmt.Errorf("discover API %s: %w", gv, err)
			}
			resources[gv] = list
		}
		served := list != nil && servesKind(list, k.gvk.Kind)
		switch {
		case served && !k.served.Load():
			if err := r.startWatch(ctx, k); err != nil {
				return changed, err
			}
			logger.Info("operand API served: watching it", "kind", k.gvk.String(), "operands", k.operands)
			changed = true
		case !served && k.served.Load():
			r.stopWatch(ctx, k)
			logger.Info("operand API no longer served: its operands wait for it", "kind", k.gvk.String(), "operands", k.operands)
			changed = true
		}
	}
	return changed, nil
}

func servesKind(list *metav1.APIResourceList, kind string) bool {
	for _, res := range list.APIResources {
		if res.Kind == kind && !strings.Contains(res.Name, "/") {
			return true
		}
	}
	return false
}

// startWatch starts the cache's informer of k, waits (bounded) for its
// first list, and adds it to the controller's watches.
func (r *Reconciler) startWatch(ctx context.Context, k *operandKind) error {
	namespaced, err := r.client.IsObjectNamespaced(k.newObject())
	if err != nil {
		return fmt.Errorf("watch operand kind %s: %w", k.gvk, err)
	}
	k.namespaced = namespaced
	syncCtx, cancel := context.WithTimeout(ctx, apiSyncTimeout)
	defer cancel()
	if _, err := r.cache.GetInformer(syncCtx, k.newObject()); err != nil {
		_ = r.cache.RemoveInformer(ctx, k.newObject())
		return fmt.Errorf("watch operand kind %s: %w", k.gvk, err)
	}
	if err := r.controller.Watch(source.Kind(r.cache, client.Object(k.newObject()), r.operandEvents(k.gvk))); err != nil {
		_ = r.cache.RemoveInformer(ctx, k.newObject())
		return fmt.Errorf("watch operand kind %s: %w", k.gvk, err)
	}
	k.served.Store(true)
	k.announced = false
	return nil
}

// stopWatch stops the cache's informer of k, which would otherwise retry
// its list forever, and forgets what the write path remembers of its objects.
func (r *Reconciler) stopWatch(ctx context.Context, k *operandKind) {
	k.served.Store(false)
	_ = r.cache.RemoveInformer(ctx, k.newObject())
	r.applier.forgetKind(k.gvk)
}

// announceWaiting makes an Event (msg) and a log line per kind when an
// operand is found waiting for an API, once until the kind is served
// again: a Warning; for a platform default skipped
// (Registry.OnlyWhereServed), a Normal Event, the one place it is said
// besides the log (its conditions are upstream's, which deploys nothing
// there and says nothing).
func (r *Reconciler) announceWaiting(ctx context.Context, hc *hcov1.HyperConverged, op Operand, msg string, skipped bool) {
	announced := false
	for _, k := range r.kinds {
		if k.served.Load() || k.announced || !slices.Contains(k.operands, op.Name()) {
			continue
		}
		k.announced, announced = true, true
		if skipped {
			log.FromContext(ctx).Info("platform default skipped: its API is not served", "operand", op.Name(), "kind", k.gvk.String())
		} else {
			log.FromContext(ctx).Info("operand waits for its API", "operand", op.Name(), "kind", k.gvk.String())
		}
	}
	switch {
	case announced && skipped:
		r.events.Eventf(hc, nil, corev1.EventTypeNormal, EventOperandSkipped, "Reconcile", "%s", msg)
	case announced:
		r.events.Eventf(hc, nil, corev1.EventTypeWarning, EventOperandAPINotServed, "Reconcile", "%s", msg)
	}
}

// skippedMessage says which platform default is skipped, for which APIs.
func skippedMessage(op Operand, apis []string) string {
	return fmt.Sprintf("operand %s skipped: %s not served by the API server, and the operand is on by default only where it is (its component operator is not installed on every cluster of this platform); install its CustomResourceDefinition to have it, or name it in --operands to require it",
		op.Name(), strings.Join(apis, ", "))
}

// waitingMessage says which operand waits for which APIs and how to fix it.
func waitingMessage(op Operand, apis []string) string {
	return fmt.Sprintf("operand %s waits for its API: %s not served by the API server; install its component operator (its CustomResourceDefinition), or leave the operand out (--operands, or Registry.Disable)",
		op.Name(), strings.Join(apis, ", "))
}
