package hco

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
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
	"github.com/hcokit/hcokit/hco/internal/served"

	"github.com/hcokit/hcokit/hcostatus"
)

// An operand kind the API server does not serve is waiting: not watched,
// cached or written, and its operands wait too (Degraded,
// hcostatus.ReasonOperandAPINotServed) while the others converge; package
// served learns when it comes (CRD changes, then discovery).

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

// crdHandler enqueues the singleton when a CustomResourceDefinition change
// may change whether an operand kind is served (served.Kinds.CRDChanged).
func (r *Reconciler) crdHandler() handler.EventHandler {
	enqueue := func(obj client.Object, q workqueue.TypedRateLimitingInterface[reconcile.Request], gone bool) {
		if r.kinds.CRDChanged(obj.GetName(), gone || !obj.GetDeletionTimestamp().IsZero()) {
			q.Add(reconcile.Request{NamespacedName: r.singleton()})
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

// startWatch starts the cache's informer of k, waits (bounded) for its
// first list, and adds it to the controller's watches.
func (r *Reconciler) startWatch(ctx context.Context, k *served.Kind) error {
	namespaced, err := r.client.IsObjectNamespaced(k.NewObject())
	if err != nil {
		return fmt.Errorf("watch operand kind %s: %w", k.GVK, err)
	}
	k.Namespaced = namespaced
	syncCtx, cancel := context.WithTimeout(ctx, apiSyncTimeout)
	defer cancel()
	if _, err := r.cache.GetInformer(syncCtx, k.NewObject()); err != nil {
		_ = r.cache.RemoveInformer(ctx, k.NewObject())
		return fmt.Errorf("watch operand kind %s: %w", k.GVK, err)
	}
	if err := r.controller.Watch(source.Kind(r.cache, client.Object(k.NewObject()), r.operandEvents(k.GVK))); err != nil {
		_ = r.cache.RemoveInformer(ctx, k.NewObject())
		return fmt.Errorf("watch operand kind %s: %w", k.GVK, err)
	}
	return nil
}

// stopWatch stops the cache's informer of k, which would otherwise retry
// its list forever, and forgets what the write path remembers of its objects.
func (r *Reconciler) stopWatch(ctx context.Context, k *served.Kind) {
	_ = r.cache.RemoveInformer(ctx, k.NewObject())
	r.applier.ForgetKind(k.GVK)
}

// announceWaiting makes an Event (msg) and a log line per kind when an
// operand is found waiting for an API, once until it is served: a Warning;
// a Normal Event for a skipped platform default (Registry.OnlyWhereServed),
// the one place it is said (its conditions are upstream's, which say nothing).
func (r *Reconciler) announceWaiting(ctx context.Context, hc *hcov1.HyperConverged, op Operand, msg string, skipped bool) {
	announced := false
	for _, k := range r.kinds.All {
		if k.Served.Load() || k.Announced || !slices.Contains(k.Operands, op.Name()) {
			continue
		}
		k.Announced, announced = true, true
		if skipped {
			log.FromContext(ctx).Info("platform default skipped: its API is not served", "operand", op.Name(), "kind", k.GVK.String())
		} else {
			log.FromContext(ctx).Info("operand waits for its API", "operand", op.Name(), "kind", k.GVK.String())
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

// KindServed asks mapper whether the API server serves gvk, and whether
// its objects are namespaced.
func KindServed(mapper meta.RESTMapper, gvk schema.GroupVersionKind) (isServed, namespaced bool, err error) {
	return served.Mapping(mapper, gvk)
}
