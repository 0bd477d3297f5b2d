package wireform

import (
	"encoding/json"
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/hcokit/hcokit/jsonpatch"
)

// Of returns obj as the API server receives it, with patch (the operations
// of the jsonpatch annotation named annotation; nil for none) applied as
// jsonpatch.Apply does: its JSON, decoded as the API server's answers are
// (integers are int64), with its kind, without status, resourceVersion and
// a null creationTimestamp. It is the one form the operator compares and
// writes: one JSON encoding of obj, two with a patch. s, if not nil, finds
// the kind of a typed object without TypeMeta. obj is not changed.
func Of(obj client.Object, s *runtime.Scheme, annotation string, patch jsonpatch.Patch) (*unstructured.Unstructured, error) {
	gvk := obj.GetObjectKind().GroupVersionKind()
	if gvk.Kind == "" && s != nil {
		var err error
		if gvk, err = apiutil.GVKForObject(obj, s); err != nil {
			return nil, fmt.Errorf("%T %q needs apiVersion and kind: %w", obj, obj.GetName(), err)
		}
	}
	kind := gvk.Kind
	if kind == "" {
		kind = reflect.TypeOf(obj).Elem().Name()
	}
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("encode %s %s: %w", kind, obj.GetName(), err)
	}
	u := &unstructured.Unstructured{}
	if patch != nil {
		u.Object, err = jsonpatch.Apply(annotation, patch, obj, kind, data)
	} else if err = utiljson.Unmarshal(data, &u.Object); err != nil {
		err = fmt.Errorf("decode %s %s: %w", kind, obj.GetName(), err)
	}
	if err != nil {
		return nil, err
	}
	if !gvk.Empty() {
		u.SetGroupVersionKind(gvk)
	}
	delete(u.Object, "status")
	if ts := u.GetCreationTimestamp(); ts.IsZero() {
		unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	}
	u.SetResourceVersion("")
	return u, nil
}

// Typed converts an object read as unstructured into its Go type (for code
// that reads typed objects, as the operands' Status). A kind the scheme does
// not know stays unstructured, copied (u may be a cache's).
func Typed(u *unstructured.Unstructured, s *runtime.Scheme) client.Object {
	obj, err := s.New(u.GroupVersionKind())
	if err != nil {
		return u.DeepCopy()
	}
	typed, ok := obj.(client.Object)
	if !ok || runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, typed) != nil {
		return u.DeepCopy()
	}
	typed.GetObjectKind().SetGroupVersionKind(u.GroupVersionKind())
	return typed
}

// Content is what the operator owns of an object: its top-level members
// but apiVersion, kind, metadata and status (the spec, or a ConfigMap's
// data). It shares u's values.
func Content(u *unstructured.Unstructured) map[string]any {
	out := make(map[string]any, len(u.Object))
	for k, v := range u.Object {
		if isContent(k) {
			out[k] = v
		}
	}
	return out
}

func isContent(k string) bool {
	switch k {
	case "apiVersion", "kind", "metadata", "status":
		return false
	}
	return true
}
