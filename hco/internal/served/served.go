package served

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/log"
)

// Kind is one operand kind and what the reconciler knows of it.
type Kind struct {
	GVK schema.GroupVersionKind
	// Operands that return this kind, by name, in registry order.
	Operands []string
	// Served is whether the API server serves the kind: only then is it
	// watched, cached, read and written.
	Served atomic.Bool
	// Touched is set by an event of one of the kind's objects, and taken by
	// the next reconcile (Kinds.TakeTouched), whose operands of the kind go
	// first.
	Touched atomic.Bool
	// Announced is true once an operand was reported waiting for the kind,
	// until it is served again. Only the reconcile reads and writes it.
	Announced bool
	// Namespaced is the kind's scope, learnt with its API (the REST
	// mapping) once, not looked up on every list.
	Namespaced bool
	// Others are the namespaces besides the operator's where operands put
	// objects of the (namespaced) kind, set at setup.
	Others []string
}

// NewObject returns an empty object of the kind, as the cache holds it.
func (k *Kind) NewObject() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(k.GVK)
	return u
}

// NewList returns an empty list of the kind.
func (k *Kind) NewList() *unstructured.UnstructuredList {
	l := &unstructured.UnstructuredList{}
	l.SetGroupVersionKind(k.GVK.GroupVersion().WithKind(k.GVK.Kind + "List"))
	return l
}

// Kinds are the operand kinds, once each, in registry order, and the groups
// a CustomResourceDefinition change has marked for a fresh discovery.
type Kinds struct {
	All []*Kind
	// Discovery answers which kinds a group version serves.
	Discovery interface {
		ServerResourcesForGroupVersion(groupVersion string) (*metav1.APIResourceList, error)
	}
	Now func() time.Time

	mu      sync.Mutex
	pending map[string]*change
}

// Find returns the kind of gvk, or nil.
func (ks *Kinds) Find(gvk schema.GroupVersionKind) *Kind {
	for _, k := range ks.All {
		if k.GVK == gvk {
			return k
		}
	}
	return nil
}

// Served returns the kinds the API server serves.
func (ks *Kinds) Served() []*Kind {
	out := make([]*Kind, 0, len(ks.All))
	for _, k := range ks.All {
		if k.Served.Load() {
			out = append(out, k)
		}
	}
	return out
}

// TakeTouched returns the operands of the kinds whose objects an event
// touched since it was last called, and forgets them.
func (ks *Kinds) TakeTouched() map[string]bool {
	var out map[string]bool
	for _, k := range ks.All {
		if !k.Touched.Swap(false) {
			continue
		}
		if out == nil {
			out = map[string]bool{}
		}
		for _, name := range k.Operands {
			out[name] = true
		}
	}
	return out
}

// CRDChanged marks the group of the CustomResourceDefinition name
// (plural.group) when its change may have changed whether an operand kind
// is served: a created or changed one (it may become established) in a
// group with a waiting kind, a deleted or terminating one (gone) in a group
// with a served kind. It reports whether it marked it: the reconcile that
// asks discovery is then due. Others (every CRD's create at start, for
// one) cost nothing.
func (ks *Kinds) CRDChanged(name string, gone bool) bool {
	_, group, ok := strings.Cut(name, ".")
	if !ok {
		return false
	}
	for _, k := range ks.All {
		if k.GVK.Group == group && k.Served.Load() == gone {
			ks.mu.Lock()
			if ks.pending == nil {
				ks.pending = map[string]*change{}
			}
			ks.pending[group] = &change{seen: ks.Now()}
			ks.mu.Unlock()
			return true
		}
	}
	return false
}

// A marked group's change. Discovery follows a CRD with a short lag, and a
// group's CRDs do not reach it together (the Perses operator's two kinds,
// installed at once, may show one at a time): a group is asked again, with
// a growing delay, for SettleTime after the change was seen, unless the
// last answer changed a kind and left all of its kinds alike (settledBy).
type change struct {
	seen  time.Time
	delay time.Duration
}

// SettleTime is how long after a CustomResourceDefinition change the
// discovery is asked again while it shows no change.
const SettleTime = 30 * time.Second

// Refresh asks discovery about the marked groups, and calls watch for each
// kind that is now served and unwatch for each that no longer is. It
// returns when to ask again about a group whose kinds did not change yet
// (zero: no need).
func (ks *Kinds) Refresh(ctx context.Context, watch func(context.Context, *Kind) error, unwatch func(context.Context, *Kind)) (time.Duration, error) {
	ks.mu.Lock()
	due := maps.Clone(ks.pending)
	ks.mu.Unlock()
	var again time.Duration
	var errs []error
	for group, c := range due {
		changed, err := ks.refreshGroup(ctx, group, watch, unwatch)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if settledBy(ks.All, group, changed) {
			ks.settled(group, c)
		} else if d, ok := ks.retry(group, c, ks.Now()); ok && (again == 0 || d < again) {
			again = d
		}
	}
	return again, errors.Join(errs...)
}

// settled unmarks a group, unless it was marked again meanwhile.
func (ks *Kinds) settled(group string, c *change) {
	ks.mu.Lock()
	if ks.pending[group] == c {
		delete(ks.pending, group)
	}
	ks.mu.Unlock()
}

// retry returns when to ask about a group whose kinds did not change again,
// or false when its change is older than SettleTime (it was not about an
// operand kind, say) and the group is unmarked.
func (ks *Kinds) retry(group string, c *change, now time.Time) (time.Duration, bool) {
	if now.Sub(c.seen) > SettleTime {
		ks.settled(group, c)
		return 0, false
	}
	ks.mu.Lock()
	defer ks.mu.Unlock()
	c.delay = min(max(2*c.delay, 500*time.Millisecond), 8*time.Second)
	return c.delay, true
}

// settledBy reports whether a discovery answer about group settles the
// change that marked it: the answer changed a kind's watch, and the group's
// kinds are now all served or all not. A group left half served may have
// its other kinds still on the way into discovery, with no CRD event to
// come for them (their CRDs are established already), so it is asked again
// until SettleTime; one never half served costs nothing more.
func settledBy(kinds []*Kind, group string, changed bool) bool {
	if !changed {
		return false
	}
	served, unserved := false, false
	for _, k := range kinds {
		if k.GVK.Group != group {
			continue
		}
		if k.Served.Load() {
			served = true
		} else {
			unserved = true
		}
	}
	return !(served && unserved)
}

// refreshGroup asks discovery whether each operand kind of group is
// served, calls watch or unwatch accordingly, and reports whether any did.
func (ks *Kinds) refreshGroup(ctx context.Context, group string, watch func(context.Context, *Kind) error, unwatch func(context.Context, *Kind)) (changed bool, err error) {
	logger := log.FromContext(ctx)
	resources := map[schema.GroupVersion]*metav1.APIResourceList{}
	for _, k := range ks.All {
		if k.GVK.Group != group {
			continue
		}
		gv := k.GVK.GroupVersion()
		list, asked := resources[gv]
		if !asked {
			list, err = ks.Discovery.ServerResourcesForGroupVersion(gv.String())
			if err != nil && !apierrors.IsNotFound(err) {
				return changed, fmt.Errorf("discover API %s: %w", gv, err)
			}
			resources[gv] = list
		}
		served := list != nil && servesKind(list, k.GVK.Kind)
		switch {
		case served && !k.Served.Load():
			if err := watch(ctx, k); err != nil {
				return changed, err
			}
			k.Served.Store(true)
			k.Announced = false
			logger.Info("operand API served: watching it", "kind", k.GVK.String(), "operands", k.Operands)
			changed = true
		case !served && k.Served.Load():
			k.Served.Store(false)
			unwatch(ctx, k)
			logger.Info("operand API no longer served: its operands wait for it", "kind", k.GVK.String(), "operands", k.Operands)
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

// Mapping asks mapper whether the API server serves gvk, and whether its
// objects are namespaced.
func Mapping(mapper meta.RESTMapper, gvk schema.GroupVersionKind) (served, namespaced bool, err error) {
	m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	switch {
	case err == nil:
		return true, m.Scope.Name() == meta.RESTScopeNameNamespace, nil
	case meta.IsNoMatchError(err):
		return false, false, nil
	}
	return false, false, fmt.Errorf("look up the API of operand kind %s: %w", gvk, err)
}

// KeepCRDName is the cache transform of CustomResourceDefinitions: their
// name (plural.group) is all the reconciler reads.
func KeepCRDName(in any) (any, error) {
	m, ok := in.(*metav1.PartialObjectMetadata)
	if !ok {
		return in, nil
	}
	return &metav1.PartialObjectMetadata{TypeMeta: m.TypeMeta, ObjectMeta: metav1.ObjectMeta{
		Name: m.Name, UID: m.UID, ResourceVersion: m.ResourceVersion, DeletionTimestamp: m.DeletionTimestamp,
	}}, nil
}
