package hco

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// FieldOwner is the field manager of every write the operator makes. The API
// server records under it which labels and annotations the operator set, so
// that one it stops setting can be removed while others' stay.
const FieldOwner = "hco-operator"

// ApplyResult says what applying one desired object did.
type ApplyResult string

// Apply results; they are also the "result" label of hcokit_operand_reconciles_total.
const (
	ResultUnchanged   ApplyResult = "unchanged"
	ResultCreated     ApplyResult = "created"
	ResultUpdated     ApplyResult = "updated"
	ResultOverwritten ApplyResult = "overwritten"
)

// applier is the one path that creates and updates operand objects. It
// works on their wire form (unstructured), so that no field is lost because
// a Go type lacks it, and reads from the manager's cache, so that a
// reconcile with nothing to do makes no request at all.
//
// The contract it keeps for each object: everything but apiVersion, kind,
// metadata and status (the spec) is what the operator built, plus what the
// API server defaults; any other change is reverted by an update that
// replaces it. The labels and annotations the operator builds are enforced,
// one it set before and builds no more is removed (the API server's
// managedFields say which it set), and others' stay. Status and the rest of
// the metadata are never written.
//
// Why updates of the wire form and not server-side apply: apply leaves a
// field set by another manager in place, and the contract reverts it, as
// upstream HCO does. Why a memory: the API server adds its defaults to what
// was sent, so the object stored differs from the object built, and only the
// server knows the defaults. The applier remembers, per object, a hash of
// what it built and of what the server then stored (see memo).
type applier struct {
	client client.Client
	// cache holds the operand objects the operator manages, unstructured.
	cache client.Reader
	// reader reads past the cache, for an object the cache cannot see (its
	// managed-by label was removed).
	reader client.Reader
	scheme *runtime.Scheme

	mu   sync.Mutex
	memo map[objectKey]memo
}

type objectKey struct {
	gvk schema.GroupVersionKind
	key types.NamespacedName
}

// memo is the write path's one memory of an object, kept only in this
// process. desired and stored are hashes of the spec the operator built and
// of the spec the server held afterwards, its defaults included: the same
// pair again means "in sync". replaced is the resourceVersion the last
// update replaced: a cache still showing it has not caught up with that
// update, whose event is on its way. For the HyperConverged, the same memo
// holds the status last written (desired) and the version it replaced.
type memo struct {
	desired, stored [sha256.Size]byte
	replaced        string
}

// strict makes the API server refuse a field the operand's CRD does not
// know rather than drop it silently: a jsonpatch that sets one is reported
// (InvalidConfiguration, naming the annotation), not lost.
const strict = client.FieldValidation(metav1.FieldValidationStrict)

func newApplier(c client.Client, cache, reader client.Reader, s *runtime.Scheme) *applier {
	return &applier{client: c, cache: cache, reader: reader, scheme: s, memo: map[objectKey]memo{}}
}

// apply makes the cluster hold desired and returns the object as stored;
// the values at the paths keep that desired lacks are kept as observed
// (ContentKeeper).
func (a *applier) apply(ctx context.Context, desired client.Object, keep [][]string) (*unstructured.Unstructured, ApplyResult, error) {
	want, err := wireForm(desired, a.scheme)
	if err != nil {
		return nil, "", err
	}
	gvk := want.GroupVersionKind()
	key := objectKey{gvk: gvk, key: client.ObjectKeyFromObject(want)}
	wantHash, err := specHash(want)
	if err != nil {
		return nil, "", err
	}

	observed := &unstructured.Unstructured{}
	observed.SetGroupVersionKind(gvk)
	err = a.cache.Get(ctx, key.key, observed)
	if apierrors.IsNotFound(err) {
		created := want.DeepCopy()
		err = a.client.Create(ctx, created, strict)
		if err == nil {
			a.remember(key, wantHash, created, "")
			return created, ResultCreated, nil
		}
		if !apierrors.IsAlreadyExists(err) {
			return nil, "", fmt.Errorf("create %s %s: %w", gvk.Kind, displayName(key.key), err)
		}
		// It exists but the cache does not show it: its labels were edited.
		err = a.reader.Get(ctx, key.key, observed)
	}
	if err != nil {
		return nil, "", fmt.Errorf("get %s %s: %w", gvk.Kind, displayName(key.key), err)
	}
	if keepObserved(want, observed, keep) {
		if wantHash, err = specHash(want); err != nil {
			return nil, "", err
		}
	}

	prev, known := a.recall(key)
	sameDesired := known && prev.desired == wantHash
	if sameDesired && prev.replaced != "" && observed.GetResourceVersion() == prev.replaced {
		// The cache has not caught up with our own update yet.
		return observed, ResultUnchanged, nil
	}
	haveHash, err := specHash(observed)
	if err != nil {
		return nil, "", err
	}
	stale := staleMetadata(observed, want)
	specInSync := haveHash == wantHash || (sameDesired && prev.stored == haveHash)
	if specInSync && len(stale.labels)+len(stale.annotations) == 0 && metadataHolds(observed, want) {
		if !known || prev.desired != wantHash || prev.stored != haveHash {
			a.remember(key, wantHash, observed, "")
		}
		return observed, ResultUnchanged, nil
	}

	updated := merged(observed, want, stale)
	if err := a.client.Update(ctx, updated, strict); err != nil {
		return nil, "", fmt.Errorf("update %s %s: %w", gvk.Kind, displayName(key.key), err)
	}
	a.remember(key, wantHash, updated, observed.GetResourceVersion())
	switch {
	case updated.GetResourceVersion() == observed.GetResourceVersion():
		// The server stored nothing new: what differed was only its own
		// defaults, which the memory now knows (after a restart, say).
		return updated, ResultUnchanged, nil
	case sameDesired:
		// The desired state did not change since it was last in sync, so
		// somebody else changed the object.
		return updated, ResultOverwritten, nil
	}
	return updated, ResultUpdated, nil
}

// statusWritten remembers that the status hashed h was written over the
// HyperConverged version replaced.
func (a *applier) statusWritten(key objectKey, h [sha256.Size]byte, replaced string) {
	a.mu.Lock()
	a.memo[key] = memo{desired: h, replaced: replaced}
	a.mu.Unlock()
}

// statusBehind reports whether this operator's last status write replaced
// the version the cache still shows, and the hash of the status it wrote.
func (a *applier) statusBehind(key objectKey, cached string) (written [sha256.Size]byte, behind bool) {
	m, ok := a.recall(key)
	return m.desired, ok && m.replaced == cached
}

// displayName is an object's name, with its namespace when it has one.
func displayName(key types.NamespacedName) string {
	if key.Namespace == "" {
		return key.Name
	}
	return key.String()
}

func (a *applier) remember(key objectKey, want [sha256.Size]byte, stored *unstructured.Unstructured, replaced string) {
	h, err := specHash(stored)
	if err != nil {
		return
	}
	a.mu.Lock()
	a.memo[key] = memo{desired: want, stored: h, replaced: replaced}
	a.mu.Unlock()
}

func (a *applier) recall(key objectKey) (memo, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	m, ok := a.memo[key]
	return m, ok
}

func (a *applier) forget(gvk schema.GroupVersionKind, key types.NamespacedName) {
	a.mu.Lock()
	delete(a.memo, objectKey{gvk: gvk, key: key})
	a.mu.Unlock()
}

// forgetKind forgets every object of a kind (its API is gone).
func (a *applier) forgetKind(gvk schema.GroupVersionKind) {
	a.mu.Lock()
	for k := range a.memo {
		if k.gvk == gvk {
			delete(a.memo, k)
		}
	}
	a.mu.Unlock()
}

// wireForm returns obj as the API server receives it: its JSON, as an
// Unstructured with its kind set, without status (the operator never writes
// it) and without the null creationTimestamp of a typed object never stored.
func wireForm(obj client.Object, s *runtime.Scheme) (*unstructured.Unstructured, error) {
	var u *unstructured.Unstructured
	if in, ok := obj.(*unstructured.Unstructured); ok {
		u = in.DeepCopy()
		if u.GroupVersionKind().Kind == "" {
			return nil, fmt.Errorf("%s: an unstructured desired object needs apiVersion and kind", u.GetName())
		}
	} else {
		gvk, err := apiutil.GVKForObject(obj, s)
		if err != nil {
			return nil, err
		}
		data, err := json.Marshal(obj)
		if err != nil {
			return nil, fmt.Errorf("encode %s %s: %w", gvk.Kind, obj.GetName(), err)
		}
		u = &unstructured.Unstructured{}
		if err := utiljson.Unmarshal(data, &u.Object); err != nil {
			return nil, fmt.Errorf("decode %s %s: %w", gvk.Kind, obj.GetName(), err)
		}
		u.SetGroupVersionKind(gvk)
	}
	delete(u.Object, "status")
	if ts := u.GetCreationTimestamp(); ts.IsZero() {
		unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	}
	u.SetResourceVersion("")
	return u, nil
}

// isContent reports whether a top-level member of an object is content the
// operator owns (the spec, or a ConfigMap's data), not apiVersion, kind,
// metadata or status.
func isContent(k string) bool {
	switch k {
	case "apiVersion", "kind", "metadata", "status":
		return false
	}
	return true
}

// specHash hashes what the operator owns of an object (see isContent). Two
// objects own the same content exactly when their hashes are equal:
// encoding/json sorts map keys, and writes 1 for an int64 1 and a float64
// 1 alike.
func specHash(u *unstructured.Unstructured) ([sha256.Size]byte, error) {
	owned := make(map[string]any, len(u.Object))
	for k, v := range u.Object {
		if isContent(k) {
			owned[k] = v
		}
	}
	data, err := json.Marshal(owned)
	if err != nil {
		return [sha256.Size]byte{}, fmt.Errorf("encode %s %s: %w", u.GetKind(), u.GetName(), err)
	}
	return sha256.Sum256(data), nil
}

// metadataHolds reports whether observed carries every label and annotation
// of want.
func metadataHolds(observed, want *unstructured.Unstructured) bool {
	holds := func(want, have map[string]string) bool {
		for k, v := range want {
			if hv, ok := have[k]; !ok || hv != v {
				return false
			}
		}
		return true
	}
	return holds(want.GetLabels(), observed.GetLabels()) && holds(want.GetAnnotations(), observed.GetAnnotations())
}

// staleKeys are labels and annotations the operator set on an object and
// no longer builds.
type staleKeys struct{ labels, annotations []string }

// staleMetadata finds the labels and annotations of observed that the API
// server records as set by FieldOwner and that want does not build. A key
// somebody else set since is theirs and stays.
func staleMetadata(observed, want *unstructured.Unstructured) staleKeys {
	var out staleKeys
	for _, e := range observed.GetManagedFields() {
		if e.Manager != FieldOwner || e.FieldsV1 == nil {
			continue
		}
		set := &fieldpath.Set{}
		if err := set.FromJSON(strings.NewReader(string(e.FieldsV1.Raw))); err != nil {
			continue
		}
		out.labels = append(out.labels, ownedKeys(set, "labels", observed.GetLabels(), want.GetLabels())...)
		out.annotations = append(out.annotations, ownedKeys(set, "annotations", observed.GetAnnotations(), want.GetAnnotations())...)
	}
	return out
}

// ownedKeys lists the keys of metadata.<field> in set that have and want
// lacks.
func ownedKeys(set *fieldpath.Set, field string, have, want map[string]string) []string {
	var out []string
	for k := range have {
		if _, wanted := want[k]; wanted {
			continue
		}
		if set.Has(fieldpath.MakePathOrDie("metadata", field, k)) {
			out = append(out, k)
		}
	}
	return out
}

// merged returns observed with want's content in place of its own, want's
// labels and annotations laid over observed's, and the stale ones removed.
// Status, others' metadata and the resourceVersion (the update's
// precondition) stay as observed. managedFields are left out, so that the
// API server keeps its own record.
func merged(observed, want *unstructured.Unstructured, stale staleKeys) *unstructured.Unstructured {
	out := observed.DeepCopy()
	for k := range out.Object {
		if isContent(k) {
			delete(out.Object, k)
		}
	}
	for k, v := range want.Object {
		if isContent(k) {
			out.Object[k] = runtime.DeepCopyJSONValue(v)
		}
	}
	out.SetLabels(overlay(observed.GetLabels(), want.GetLabels(), stale.labels))
	out.SetAnnotations(overlay(observed.GetAnnotations(), want.GetAnnotations(), stale.annotations))
	out.SetManagedFields(nil)
	return out
}

func overlay(base, top map[string]string, drop []string) map[string]string {
	out := make(map[string]string, len(base)+len(top))
	maps.Copy(out, base)
	for _, k := range drop {
		delete(out, k)
	}
	maps.Copy(out, top)
	if len(out) == 0 {
		return nil
	}
	return out
}

// typedForm converts an object read as unstructured into its Go type, for
// the operands' Status and Adopt, which read typed objects. A kind the
// scheme does not know stays unstructured.
func typedForm(u *unstructured.Unstructured, s *runtime.Scheme) client.Object {
	obj, err := s.New(u.GroupVersionKind())
	if err != nil {
		return u
	}
	typed, ok := obj.(client.Object)
	if !ok || runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, typed) != nil {
		return u
	}
	typed.GetObjectKind().SetGroupVersionKind(u.GroupVersionKind())
	return typed
}
