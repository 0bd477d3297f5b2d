package memo

import (
	"sync"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
)

// Observe reads an operand object as the cache holds it (hco.Facts.Observed).
type Observe func(gvk schema.GroupVersionKind, key client.ObjectKey) (*unstructured.Unstructured, bool)

// Builds is the build memo: each operand's last build, by operand name
// (its identity: the registry does not change while the reconciler runs),
// and its input: the HyperConverged's UID, generation and metadata, the
// facts, and the resourceVersions of the objects the build read through
// Observe. A nil *Builds remembers nothing. The objects are shared: read
// only.
type Builds struct {
	mu     sync.Mutex
	byName map[string]Build
}

// Build is one build and its input.
type Build struct {
	uid        types.UID
	generation int64
	// meta is the HyperConverged's metadata but its resourceVersion and
	// managedFields, which a status write changes.
	meta metav1.ObjectMeta
	// facts are compared with equality.Semantic (without their Observe).
	facts    any
	observes bool
	// observed are the objects the build read: their resourceVersion, ""
	// for one that was not there.
	observed map[Key]string
	Objects  []*unstructured.Unstructured
	Err      error
}

// Last is what name built last when hc, facts and observe (the objects it
// read, at the same versions) are that build's input.
func (b *Builds) Last(name string, hc *hcov1.HyperConverged, facts any, observe Observe) (Build, bool) {
	if b == nil || hc.Generation == 0 {
		return Build{}, false
	}
	b.mu.Lock()
	prev, ok := b.byName[name]
	b.mu.Unlock()
	if !ok || prev.uid != hc.UID || prev.generation != hc.Generation || !equality.Semantic.DeepEqual(prev.meta, buildMetadata(hc)) ||
		!equality.Semantic.DeepEqual(prev.facts, facts) || prev.observes != (observe != nil) {
		return Build{}, false
	}
	for k, rv := range prev.observed {
		if observedVersion(observe(k.GVK, k.Name)) != rv {
			return Build{}, false
		}
	}
	return prev, true
}

// Next starts the record of a build from hc, facts and observe, and returns
// the observe to build with: it records what the build reads.
func (b *Builds) Next(hc *hcov1.HyperConverged, facts any, observe Observe) (*Build, Observe) {
	if b == nil {
		return nil, observe
	}
	next := &Build{uid: hc.UID, generation: hc.Generation, meta: buildMetadata(hc), facts: facts, observes: observe != nil}
	if observe == nil {
		return next, nil
	}
	next.observed = map[Key]string{}
	return next, func(gvk schema.GroupVersionKind, key client.ObjectKey) (*unstructured.Unstructured, bool) {
		u, found := observe(gvk, key)
		next.observed[Key{GVK: gvk, Name: key}] = observedVersion(u, found)
		return u, found
	}
}

// Store records the build next made for name.
func (b *Builds) Store(name string, next *Build, objs []*unstructured.Unstructured, err error) {
	if b == nil {
		return
	}
	next.Objects, next.Err = objs, err
	b.mu.Lock()
	if b.byName == nil {
		b.byName = map[string]Build{}
	}
	b.byName[name] = *next
	b.mu.Unlock()
}

// buildMetadata is what a build may read of hc's metadata (the generation
// stands for the spec): all but what a status write changes.
func buildMetadata(hc *hcov1.HyperConverged) metav1.ObjectMeta {
	m := hc.ObjectMeta
	m.ResourceVersion, m.ManagedFields = "", nil
	return *m.DeepCopy()
}

// observedVersion is an observed object's resourceVersion, "" when not found.
func observedVersion(u *unstructured.Unstructured, found bool) string {
	if !found {
		return ""
	}
	return u.GetResourceVersion()
}
