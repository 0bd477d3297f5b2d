package hco

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hcometrics"
)

// Extension is a platform or install feature outside the core (see the
// package doc): embed NoExtension and override what the feature needs.
type Extension interface {
	// Cached is what the manager's cache also holds for the extension (by
	// name, say); it is called before the manager exists.
	Cached(in Install) map[client.Object]cache.ByObject
	// Setup adds the extension's runnables to mgr, and returns the objects
	// (of kinds Cached holds) whose changes reconcile the HyperConverged.
	Setup(mgr ctrl.Manager, in Install, metrics *hcometrics.Metrics) ([]Watch, error)
	// Before runs in each reconcile before the operands, finalizer stored;
	// stop ends it (the HyperConverged changed: its update brings the next).
	// An error is reported in the status and retried.
	Before(ctx context.Context, s ExtensionState) (stop bool, err error)
	// Reconciled runs at the end of each reconcile with the status about to
	// be written; an error fails the reconcile before the write, to be retried.
	Reconciled(ctx context.Context, s ExtensionState) error
}

// Install is what an extension is told of the operator and the cluster, as
// the manager makes its cache (Cached, Setup) or a preview asks (ListChanger).
type Install struct {
	Env Environment
	// OpenShift: the cluster serves OpenShift's ClusterVersion (see OpenShift).
	OpenShift bool
	// ClusterTLS: it serves OpenShift's APIServer configuration (default TLS profile).
	ClusterTLS bool
	// Registry holds the operands, Scheme their kinds; Mapper knows what is served.
	Registry *Registry
	Scheme   *runtime.Scheme
	Mapper   meta.RESTMapper
}

// AfterOperands is an Extension acting in each reconcile after the operands
// (the shared lists); an error is reported in the status and retried.
type AfterOperands interface {
	AfterOperands(ctx context.Context, s ExtensionState) error
}

// Uninstaller is an Extension undoing something (the shared lists' items) on
// uninstall, before the operand objects go; an error stops it, reported, retried.
type Uninstaller interface {
	Uninstall(ctx context.Context, s ExtensionState) error
}

// ListChanger is an Extension whose writes `hco-operator diff` shows: the
// shared lists it would change for hc on facts, read past any cache.
type ListChanger interface {
	ListChanges(ctx context.Context, hc *hcov1.HyperConverged, facts Facts, in Install, reader client.Reader) ([]ListChange, error)
}

// FactGatherer is an Extension adding facts in GatherFacts (OpenShift's).
type FactGatherer interface {
	// GatherFacts adds to f what it reads through s for hc.
	GatherFacts(ctx context.Context, hc *hcov1.HyperConverged, s FactSources, f *Facts) error
}

// Watch: Object's changes (its metadata's if MetadataOnly) reconcile the HyperConverged.
type Watch struct {
	Object       client.Object
	MetadataOnly bool
}

// ExtensionState is what an Extension is given at the end of a reconcile.
type ExtensionState struct {
	// HyperConverged as read (read only); Conditions, those about to be written.
	HyperConverged *hcov1.HyperConverged
	Conditions     []metav1.Condition
	// Upgrading: the operator is upgrading to Env.Version.
	Upgrading bool
	Env       Environment
	// Facts are the operands' (on uninstall, Environment and Platform only).
	Facts Facts
	// Reader reads the manager's cache, Direct past it; Client writes as
	// the operator's field owner.
	Reader, Direct client.Reader
	Client         client.Client

	r     *Reconciler
	owner Owner
}

// Now is the reconciler's clock.
func (s ExtensionState) Now() time.Time { return s.r.now() }

// Eventf emits an Event regarding the HyperConverged.
func (s ExtensionState) Eventf(eventtype, reason, action, note string, args ...any) {
	s.r.events.Eventf(s.HyperConverged, nil, eventtype, reason, action, "%s", eventNote(fmt.Sprintf(note, args...)))
}

// Operands are the enabled operands, in registry order.
func (s ExtensionState) Operands() []Operand { return s.r.registry.Operands() }

// Observe returns op's objects of this HyperConverged as the cache holds
// them, typed where the scheme knows the kind.
func (s ExtensionState) Observe(ctx context.Context, op Operand) []client.Object {
	objs, _ := s.r.observeExisting(ctx, op, s.owner)
	return objs
}

// RemoveLeftover deletes the object of gvk at key that an earlier operator
// (upstream's) made and this one does not, saying why in an Event: only if
// it carries upstream's managed-by label and this HyperConverged claims it
// (see Owner), read past the cache, and only if still the object read. Not
// found, or its kind not served: nothing to do.
func (s ExtensionState) RemoveLeftover(ctx context.Context, gvk schema.GroupVersionKind, key types.NamespacedName, why string) error {
	return s.r.removeLeftover(ctx, s.HyperConverged, s.owner, gvk, key, why)
}

// NoExtension does nothing: embed it to implement only what a feature needs.
type NoExtension struct{}

// Cached implements Extension: nothing.
func (NoExtension) Cached(Install) map[client.Object]cache.ByObject { return nil }

// Setup implements Extension: nothing.
func (NoExtension) Setup(ctrl.Manager, Install, *hcometrics.Metrics) ([]Watch, error) {
	return nil, nil
}

// Before implements Extension: nothing.
func (NoExtension) Before(context.Context, ExtensionState) (bool, error) { return false, nil }

// Reconciled implements Extension: nothing.
func (NoExtension) Reconciled(context.Context, ExtensionState) error { return nil }

// beforeOperands runs the extensions' Before hooks (the upgrade's, say);
// true when the reconcile stops there (an error, or a hook's stop).
func (r *Reconciler) beforeOperands(ctx context.Context, hc *hcov1.HyperConverged, owner Owner, a *assessment) bool {
	s := r.extensionState(hc, owner, a)
	for _, ext := range r.extensions {
		stop, err := ext.Before(ctx, s)
		if !a.record(err) || stop {
			return true
		}
	}
	return false
}

// afterOperands runs the AfterOperands extensions' hooks (the shared
// lists), each on the facts the operands were given; their errors joined.
func (r *Reconciler) afterOperands(ctx context.Context, hc *hcov1.HyperConverged, owner Owner, facts Facts, a *assessment) error {
	s := r.extensionState(hc, owner, a)
	s.Facts = facts
	var errs []error
	for _, ext := range r.extensions {
		if after, ok := ext.(AfterOperands); ok {
			errs = append(errs, after.AfterOperands(ctx, s))
		}
	}
	return errors.Join(errs...)
}

// extensionState is what the extensions are given for hc.
func (r *Reconciler) extensionState(hc *hcov1.HyperConverged, owner Owner, a *assessment) ExtensionState {
	return ExtensionState{HyperConverged: hc, Upgrading: a.Upgrading, Env: r.env, Reader: r.cache, Direct: r.reader, Client: r.client, r: r, owner: owner}
}
