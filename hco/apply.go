package hco

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// ApplyResult says what applying one desired object did.
type ApplyResult string

// Apply results; they are also the "result" label of hcokit_operand_reconciles_total.
const (
	ResultUnchanged   ApplyResult = "unchanged"
	ResultCreated     ApplyResult = "created"
	ResultUpdated     ApplyResult = "updated"
	ResultOverwritten ApplyResult = "overwritten"
)

// createUnknownError is a create whose outcome is unknown: the request
// failed without the API server's answer (a lost connection, a timeout), so
// the object may exist. obj is what was sent.
type createUnknownError struct {
	err error
	obj client.Object
}

func (e *createUnknownError) Error() string { return e.err.Error() }
func (e *createUnknownError) Unwrap() error { return e.err }

// applier is the one path that creates and updates operand objects. It reads
// from the manager's cache, so a reconcile with nothing to do makes no
// request at all.
//
// The API server may normalise what it stores (CRD defaults, quantities), so
// an object written from a desired state can read back different from it. The
// applier remembers, per object, the desired content it last wrote or found
// in sync and the content the server then held; the same pair again means "in
// sync", and no update is sent.
type applier struct {
	client client.Client
	// reader reads past the cache, for an object the cache cannot see (its
	// managed-by label was removed).
	reader client.Reader
	scheme *runtime.Scheme

	mu   sync.Mutex
	memo map[objectKey]memoEntry
}

type objectKey struct {
	gvk schema.GroupVersionKind
	key types.NamespacedName
}

type memoEntry struct {
	desired, stored []byte
	// staleVersion is the resourceVersion the object had before our last
	// write: a cache still showing it has not seen the write yet.
	staleVersion string
}

func newApplier(c client.Client, reader client.Reader, s *runtime.Scheme) *applier {
	return &applier{client: c, reader: reader, scheme: s, memo: map[objectKey]memoEntry{}}
}

// apply makes the cluster hold desired and returns the object as stored,
// and its kind.
func (a *applier) apply(ctx context.Context, desired client.Object) (client.Object, schema.GroupVersionKind, ApplyResult, error) {
	gvk, err := apiutil.GVKForObject(desired, a.scheme)
	if err != nil {
		return nil, gvk, "", err
	}
	obj, res, err := a.applyKind(ctx, gvk, desired)
	return obj, gvk, res, err
}

func (a *applier) applyKind(ctx context.Context, gvk schema.GroupVersionKind, desired client.Object) (client.Object, ApplyResult, error) {
	key := objectKey{gvk: gvk, key: client.ObjectKeyFromObject(desired)}
	want, err := content(desired)
	if err != nil {
		return nil, "", err
	}

	observed := newEmpty(desired)
	err = a.client.Get(ctx, key.key, observed)
	if apierrors.IsNotFound(err) {
		created := desired.DeepCopyObject().(client.Object)
		created.SetResourceVersion("")
		err = a.client.Create(ctx, created)
		if err == nil {
			a.remember(key, want, created, "")
			return created, ResultCreated, nil
		}
		if !apierrors.IsAlreadyExists(err) {
			var status apierrors.APIStatus
			answered := errors.As(err, &status)
			err = fmt.Errorf("create %s %s: %w", gvk.Kind, key.key, err)
			if !answered || apierrors.IsTimeout(err) || apierrors.IsServerTimeout(err) {
				// No answer, or no clear one: it may have been stored.
				err = &createUnknownError{err: err, obj: created}
			}
			return nil, "", err
		}
		// It exists but the cache does not show it: its labels were edited.
		err = a.reader.Get(ctx, key.key, observed)
	}
	if err != nil {
		return nil, "", fmt.Errorf("get %s %s: %w", gvk.Kind, key.key, err)
	}

	prev, known := a.recall(key)
	if known && prev.staleVersion != "" && observed.GetResourceVersion() == prev.staleVersion && bytes.Equal(prev.desired, want) {
		// The cache has not caught up with our own write yet; its event
		// will bring us back.
		return observed, ResultUnchanged, nil
	}
	have, err := content(observed)
	if err != nil {
		return nil, "", err
	}
	metaOK := isSubset(desired.GetLabels(), observed.GetLabels()) && isSubset(desired.GetAnnotations(), observed.GetAnnotations())
	if metaOK && (bytes.Equal(want, have) || (known && bytes.Equal(prev.desired, want) && bytes.Equal(prev.stored, have))) {
		a.remember(key, want, observed, "")
		return observed, ResultUnchanged, nil
	}
	staleVersion := observed.GetResourceVersion()

	updated, err := merged(observed, desired)
	if err != nil {
		return nil, "", err
	}
	if err := a.client.Update(ctx, updated); err != nil {
		return nil, "", fmt.Errorf("update %s %s: %w", gvk.Kind, key.key, err)
	}
	a.remember(key, want, updated, staleVersion)
	if updated.GetResourceVersion() == staleVersion {
		// The server stored nothing new: what differed was only its own
		// defaults, which the memory now knows (after a restart, say).
		return updated, ResultUnchanged, nil
	}
	// The desired state did not change since it was last in sync, so
	// somebody else changed the object.
	if known && bytes.Equal(prev.desired, want) {
		return updated, ResultOverwritten, nil
	}
	return updated, ResultUpdated, nil
}

func (a *applier) remember(key objectKey, want []byte, stored client.Object, staleVersion string) {
	have, err := content(stored)
	if err != nil {
		return
	}
	a.mu.Lock()
	a.memo[key] = memoEntry{desired: want, stored: have, staleVersion: staleVersion}
	a.mu.Unlock()
}

func (a *applier) recall(key objectKey) (memoEntry, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	e, ok := a.memo[key]
	return e, ok
}

func (a *applier) forget(gvk schema.GroupVersionKind, key types.NamespacedName) {
	a.mu.Lock()
	delete(a.memo, objectKey{gvk: gvk, key: key})
	a.mu.Unlock()
}

// content is the JSON of an object without apiVersion, kind, metadata and
// status: what the operator owns. Equal content gives equal bytes: a typed
// object's fields are encoded in the order of its Go type (the same on both
// sides of a comparison) and encoding/json sorts map keys.
func content(obj client.Object) ([]byte, error) {
	if fields, ok := ownedFields(obj); ok {
		owned := make(map[string]any, len(fields))
		for _, f := range fields {
			if !f.omitted() {
				// By address, as encoding/json would reach it in the
				// object: a pointer-receiver MarshalJSON is used.
				owned[f.name] = f.value.Addr().Interface()
			}
		}
		return json.Marshal(owned)
	}
	return contentOfMap(obj)
}

// contentOfMap is content through the object's map form, for what
// ownedFields cannot read.
func contentOfMap(obj client.Object) ([]byte, error) {
	u, err := toMap(obj)
	if err != nil {
		return nil, err
	}
	for _, k := range []string{"apiVersion", "kind", "metadata", "status"} {
		delete(u, k)
	}
	return json.Marshal(u)
}

// ownedField is a top-level field of a typed object that the operator owns.
type ownedField struct {
	name                string
	omitEmpty, omitZero bool
	index               int
	value               reflect.Value
}

// omitted reports whether encoding/json would leave the field out.
func (f ownedField) omitted() bool {
	v := f.value
	if f.omitZero {
		type zeroer interface{ IsZero() bool }
		if v.Kind() == reflect.Pointer && v.IsNil() {
			return true
		}
		if z, ok := v.Interface().(zeroer); ok {
			return z.IsZero()
		}
		if z, ok := v.Addr().Interface().(zeroer); ok {
			return z.IsZero()
		}
		return v.IsZero()
	}
	if !f.omitEmpty {
		return false
	}
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

var (
	typeMetaType  = reflect.TypeFor[metav1.TypeMeta]()
	marshalerType = reflect.TypeFor[json.Marshaler]()
)

// ownedFields returns the top-level fields of a typed object other than its
// TypeMeta, metadata and status, without a round trip through a map (a
// quarter of the cost for a KubeVirt CR). It reports false for what it
// cannot read that way: Unstructured, a type with its own MarshalJSON, or
// one with an embedded field other than TypeMeta and ObjectMeta.
func ownedFields(obj client.Object) ([]ownedField, bool) {
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct || v.Type().Implements(marshalerType) {
		return nil, false
	}
	v = v.Elem()
	t := v.Type()
	var out []ownedField
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		switch {
		case tag == "-", name == "metadata", name == "status":
			continue
		case slices.Contains(strings.Split(opts, ","), "string"):
			// Encoded as a JSON string: left to the map path.
			return nil, false
		case f.Anonymous && f.Type == typeMetaType:
			continue
		case f.Anonymous:
			// encoding/json promotes its fields, exported or not.
			return nil, false
		case !f.IsExported():
			continue
		case name == "":
			// Named by its Go name: not worth reading here.
			return nil, false
		}
		out = append(out, ownedField{name: name, index: i, value: v.Field(i),
			omitEmpty: slices.Contains(strings.Split(opts, ","), "omitempty"),
			omitZero:  slices.Contains(strings.Split(opts, ","), "omitzero")})
	}
	return out, true
}

// merged returns observed with desired's content and desired's labels and
// annotations laid over observed's (others' labels and annotations stay).
func merged(observed, desired client.Object) (client.Object, error) {
	var out client.Object
	if fields, ok := ownedFields(desired); ok && reflect.TypeOf(observed) == reflect.TypeOf(desired) {
		out = observed.DeepCopyObject().(client.Object)
		from := reflect.ValueOf(desired.DeepCopyObject()).Elem()
		to := reflect.ValueOf(out).Elem()
		for _, f := range fields {
			to.Field(f.index).Set(from.Field(f.index))
		}
	} else {
		var err error
		if out, err = mergedMaps(observed, desired); err != nil {
			return nil, err
		}
	}
	out.SetLabels(overlay(observed.GetLabels(), desired.GetLabels()))
	out.SetAnnotations(overlay(observed.GetAnnotations(), desired.GetAnnotations()))
	return out, nil
}

// mergedMaps is merged for objects ownedFields cannot read.
func mergedMaps(observed, desired client.Object) (client.Object, error) {
	o, err := toMap(observed)
	if err != nil {
		return nil, err
	}
	d, err := toMap(desired)
	if err != nil {
		return nil, err
	}
	for k := range o {
		switch k {
		case "apiVersion", "kind", "metadata", "status":
		default:
			delete(o, k)
		}
	}
	for k, v := range d {
		switch k {
		case "apiVersion", "kind", "metadata", "status":
		default:
			o[k] = v
		}
	}
	out := newEmpty(observed)
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o, out); err != nil {
		return nil, err
	}
	return out, nil
}

// toMap converts obj to a map that the caller owns: for an Unstructured the
// converter returns the object's own map, which must not be edited.
func toMap(obj client.Object) (map[string]any, error) {
	if u, ok := obj.(runtime.Unstructured); ok {
		return runtime.DeepCopyJSON(u.UnstructuredContent()), nil
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("convert %T: %w", obj, err)
	}
	return m, nil
}

func overlay(base, top map[string]string) map[string]string {
	if len(base) == 0 && len(top) == 0 {
		return base
	}
	out := make(map[string]string, len(base)+len(top))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range top {
		out[k] = v
	}
	return out
}

func isSubset(want, have map[string]string) bool {
	for k, v := range want {
		if hv, ok := have[k]; !ok || hv != v {
			return false
		}
	}
	return true
}

// newEmpty returns a new zero object of obj's Go type, with obj's TypeMeta.
func newEmpty(obj client.Object) client.Object {
	out := reflect.New(reflect.TypeOf(obj).Elem()).Interface().(client.Object)
	out.GetObjectKind().SetGroupVersionKind(obj.GetObjectKind().GroupVersionKind())
	return out
}
