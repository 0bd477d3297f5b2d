package memo

import (
	"maps"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/hcokit/hcokit/wireform"
)

// Key names an object.
type Key struct {
	GVK  schema.GroupVersionKind
	Name types.NamespacedName
}

// KeyOf is u's Key.
func KeyOf(u *unstructured.Unstructured) Key {
	return Key{GVK: u.GroupVersionKind(), Name: client.ObjectKeyFromObject(u)}
}

// Memo remembers, per object, what the API server stored from what the
// operator built; the objects operands leave alone; and each object's
// typed form. Safe for concurrent use.
type Memo struct {
	mu      sync.Mutex
	entries map[Key]entry
	// left are the objects operands leave alone (hco.Yielder): the object
	// found, and the object built then.
	left map[Key]leftObject
	// typed is the typed form of each object at the resourceVersion it was
	// converted from: the operands' Status reads typed objects, and
	// converting the unchanged ones again on every reconcile cost as much
	// as the rest of a reconcile with nothing to do.
	typed map[Key]typedObject
}

// New returns an empty Memo.
func New() *Memo {
	return &Memo{entries: map[Key]entry{}, left: map[Key]leftObject{}, typed: map[Key]typedObject{}}
}

// entry: desired is the content (wireform.Content) of the wire form built,
// stored the content the server then held: the same desired again while
// the server holds stored means "in sync", no request. replaced is the
// resourceVersion the last write replaced: a cache still showing it is
// behind that write, whose event is on its way. For the HyperConverged,
// status is set: replaced is the version its last status write replaced.
type entry struct {
	// built is the object desired came from: the operands' objects are
	// built once per input, so the same pointer is the same content.
	built           *unstructured.Unstructured
	desired, stored map[string]any
	// storedRV is stored's resourceVersion, and labels and annotations
	// those built with desired: the same again at the same resourceVersion
	// is in sync without comparing the object.
	storedRV            string
	labels, annotations map[string]string
	status              bool
	replaced            string
}

type leftObject struct{ built, live *unstructured.Unstructured }

type typedObject struct {
	rv  string
	obj client.Object
}

// Recalled is what the Memo says of an object built as built, want with
// kept values (built itself when none), and live, as the cluster holds it.
type Recalled struct {
	// Known: the Memo holds the object (else the first update of an object
	// whose content differs only by what want does not set is a dry run
	// first: the difference may be the API server's defaults).
	Known bool
	// SameDesired: want is what was desired when last in sync.
	SameDesired bool
	// Fast: live holds want with no comparison: nothing moved on either
	// side since last in sync, or the cache is behind the operator's own
	// write.
	Fast bool
	// Rebuilt: Fast, and built is a new build of the content remembered.
	Rebuilt bool
	// InSync: live's content is what the API server stored from want.
	InSync bool
}

// Recall says what the Memo remembers of the object at key, built as built
// (want with the values kept, built itself when none), against live.
func (m *Memo) Recall(key Key, built, want, live *unstructured.Unstructured) Recalled {
	m.mu.Lock()
	prev, known := m.entries[key]
	m.mu.Unlock()
	if !known || prev.status {
		return Recalled{}
	}
	// The same object built (nothing kept into a copy, then and now) is the
	// same content without comparing it.
	r := Recalled{Known: true, SameDesired: (want == built && prev.built == built) || wireform.Equal(prev.desired, wireform.Content(want))}
	if !r.SameDesired {
		return r
	}
	if rv := live.GetResourceVersion(); rv == prev.replaced ||
		(rv == prev.storedRV && maps.Equal(prev.labels, want.GetLabels()) && maps.Equal(prev.annotations, want.GetAnnotations())) {
		// The cache has not caught up with our own update yet, or nothing
		// moved on either side since the object was last in sync.
		r.Fast, r.Rebuilt = true, want == built && prev.built != built
		return r
	}
	// In sync though the content differs from want's: the server holds what
	// it stored from want, its defaults included.
	r.InSync = wireform.Equal(prev.stored, wireform.Content(live))
	return r
}

// Remember that the object stored (its content, at its resourceVersion)
// was in sync with want (its content wantContent), after a write that
// replaced the resourceVersion replaced (none: "").
func (m *Memo) Remember(key Key, want *unstructured.Unstructured, wantContent map[string]any, stored *unstructured.Unstructured, replaced string) {
	e := entry{built: want, desired: runtime.DeepCopyJSON(wantContent), stored: runtime.DeepCopyJSON(wireform.Content(stored)), storedRV: stored.GetResourceVersion(),
		labels: maps.Clone(want.GetLabels()), annotations: maps.Clone(want.GetAnnotations()), replaced: replaced}
	m.mu.Lock()
	m.entries[key] = e
	m.mu.Unlock()
}

// BuiltAgain records that built, built anew, has the content remembered.
func (m *Memo) BuiltAgain(key Key, built *unstructured.Unstructured) {
	m.mu.Lock()
	if e, ok := m.entries[key]; ok {
		e.built = built
		m.entries[key] = e
	}
	m.mu.Unlock()
}

// StatusWritten remembers that the HyperConverged's status was written over
// its version replaced.
func (m *Memo) StatusWritten(key Key, replaced string) {
	m.mu.Lock()
	m.entries[key] = entry{status: true, replaced: replaced}
	m.mu.Unlock()
}

// StatusBehind reports whether rv is the version the HyperConverged's last
// status write replaced: a cache showing it is behind that write.
func (m *Memo) StatusBehind(key Key, rv string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.entries[key]
	return ok && e.status && e.replaced == rv
}

// InSyncAt reports whether the Memo holds key's object as stored, in sync,
// at resourceVersion rv.
func (m *Memo) InSyncAt(key Key, rv string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.entries[key]
	return ok && rv != "" && e.storedRV == rv
}

// Forget the object at key (deleted).
func (m *Memo) Forget(key Key) {
	m.mu.Lock()
	delete(m.entries, key)
	delete(m.typed, key)
	m.mu.Unlock()
}

// ForgetKind forgets every object of a kind (its API is gone).
func (m *Memo) ForgetKind(gvk schema.GroupVersionKind) {
	m.mu.Lock()
	for k := range m.entries {
		if k.GVK == gvk {
			delete(m.entries, k)
		}
	}
	for k := range m.typed {
		if k.GVK == gvk {
			delete(m.typed, k)
		}
	}
	m.mu.Unlock()
}

// Leave records that live, found at key, is left alone while the operand
// builds built, and reports whether that same object was left before.
func (m *Memo) Leave(key Key, built, live *unstructured.Unstructured) (again bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	prev, known := m.left[key]
	m.left[key] = leftObject{built: built, live: live}
	return known && prev.live.GetUID() == live.GetUID()
}

// LeftAlone is the object left alone at key while the operand builds the
// same object (the same build), nil otherwise: a new build tries the create
// again.
func (m *Memo) LeftAlone(key Key, built *unstructured.Unstructured) *unstructured.Unstructured {
	m.mu.Lock()
	defer m.mu.Unlock()
	if l, ok := m.left[key]; ok && l.built == built {
		return l.live
	}
	return nil
}

// Typed is wireform.Typed(u, s), converted once per resourceVersion of the
// object. The operands share it between reconciles: read only.
func (m *Memo) Typed(u *unstructured.Unstructured, s *runtime.Scheme) client.Object {
	key, rv := KeyOf(u), u.GetResourceVersion()
	m.mu.Lock()
	t, ok := m.typed[key]
	m.mu.Unlock()
	if ok && t.rv == rv && rv != "" {
		return t.obj
	}
	obj := wireform.Typed(u, s)
	m.mu.Lock()
	m.typed[key] = typedObject{rv: rv, obj: obj}
	m.mu.Unlock()
	return obj
}
