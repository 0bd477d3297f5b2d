package hco

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/hcokit/hcokit/api/v1beta1"
)

// JSONPatchError is a jsonpatch annotation that cannot be used. Its message
// names the annotation and, where one is to blame, the operation.
type JSONPatchError struct {
	Annotation string
	// Operation is the 0-based index of the failing operation, or -1.
	Operation int
	Reason    string
}

// Error implements error.
func (e *JSONPatchError) Error() string {
	if e.Operation >= 0 {
		return fmt.Sprintf("annotation %q, operation %d: %s", e.Annotation, e.Operation, e.Reason)
	}
	return fmt.Sprintf("annotation %q: %s", e.Annotation, e.Reason)
}

// HasJSONPatch reports whether hc carries a non-empty annotation of that key.
func HasJSONPatch(hc *v1beta1.HyperConverged, annotation string) bool {
	return strings.TrimSpace(hc.GetAnnotations()[annotation]) != ""
}

// ParseJSONPatch decodes an RFC 6902 patch held in an annotation and checks
// that every operation touches only /spec. It returns nil for an empty value.
func ParseJSONPatch(annotation, value string) (jsonpatch.Patch, error) {
	if strings.TrimSpace(value) == "" {
		return nil, nil
	}
	patch, err := jsonpatch.DecodePatch([]byte(value))
	if err != nil {
		return nil, &JSONPatchError{Annotation: annotation, Operation: -1,
			Reason: fmt.Sprintf("not an RFC 6902 JSON patch (a JSON array of {\"op\", \"path\", \"value\"} objects): %v", err)}
	}
	for i, op := range patch {
		kind := op.Kind()
		switch kind {
		case "add", "remove", "replace", "move", "copy", "test":
		default:
			return nil, &JSONPatchError{Annotation: annotation, Operation: i,
				Reason: fmt.Sprintf("unknown op %q; use add, remove, replace, move, copy or test", kind)}
		}
		path, err := op.Path()
		if err != nil {
			return nil, &JSONPatchError{Annotation: annotation, Operation: i, Reason: fmt.Sprintf("%s: missing path", kind)}
		}
		if !underSpec(path) {
			return nil, &JSONPatchError{Annotation: annotation, Operation: i,
				Reason: fmt.Sprintf("%s %q: only paths under /spec may be patched", kind, path)}
		}
		if kind == "move" || kind == "copy" {
			from, err := op.From()
			if err != nil || !underSpec(from) {
				return nil, &JSONPatchError{Annotation: annotation, Operation: i,
					Reason: fmt.Sprintf("%s from %q: only paths under /spec may be patched", kind, from)}
			}
		}
	}
	return patch, nil
}

func underSpec(path string) bool {
	return path == "/spec" || strings.HasPrefix(path, "/spec/")
}

// MaxPatchedBytes bounds the JSON of an object while a jsonpatch annotation
// is applied to it: far more than any operand CR needs (annotations hold at
// most 256 KiB), far less than what would exhaust the operator's memory.
const MaxPatchedBytes = 1 << 20

// ApplyJSONPatchAnnotation applies the patch held in hc's annotation to obj,
// in place. It reports whether a patch was applied. A malformed patch, a path
// outside /spec, an operation that does not apply, a result larger than
// MaxPatchedBytes, or a result that obj's type cannot hold is a
// *JSONPatchError, and obj is left unchanged.
func ApplyJSONPatchAnnotation(hc *v1beta1.HyperConverged, annotation string, obj client.Object) (bool, error) {
	patch, err := ParseJSONPatch(annotation, hc.GetAnnotations()[annotation])
	if err != nil || patch == nil {
		return false, err
	}
	doc, err := json.Marshal(obj)
	if err != nil {
		return false, fmt.Errorf("encode %T for annotation %q: %w", obj, annotation, err)
	}
	doc, err = applyJSONPatch(annotation, reflect.TypeOf(obj).Elem().Name(), patch, doc)
	if err != nil {
		return false, err
	}
	fresh := reflect.New(reflect.TypeOf(obj).Elem())
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.DisallowUnknownFields()
	if err := dec.Decode(fresh.Interface()); err != nil {
		return false, &JSONPatchError{Annotation: annotation, Operation: -1,
			Reason: fmt.Sprintf("the patched %s is not valid for this API version, so the change would be lost: %v", reflect.TypeOf(obj).Elem().Name(), err)}
	}
	reflect.ValueOf(obj).Elem().Set(fresh.Elem())
	return true, nil
}

// applyJSONPatch applies patch to doc in one pass, its copies bounded by
// MaxPatchedBytes. Only when that fails is it replayed one operation at a
// time, to name the operation to blame: the common case parses the document
// once, not once per operation.
func applyJSONPatch(annotation, kind string, patch jsonpatch.Patch, doc []byte) ([]byte, error) {
	opts := jsonpatch.NewApplyOptions()
	opts.AccumulatedCopySizeLimit = MaxPatchedBytes
	if out, err := patch.ApplyWithOptions(doc, opts); err == nil && len(out) <= MaxPatchedBytes {
		return out, nil
	}
	for i := range patch {
		var err error
		doc, err = patch[i : i+1].Apply(doc)
		if err != nil {
			return nil, &JSONPatchError{Annotation: annotation, Operation: i,
				Reason: fmt.Sprintf("does not apply to %s: %v", kind, err)}
		}
		// A few copy operations of /spec into itself double the document
		// each time: stop before that exhausts memory.
		if len(doc) > MaxPatchedBytes {
			return nil, &JSONPatchError{Annotation: annotation, Operation: i,
				Reason: fmt.Sprintf("the patched %s grows past %d bytes; an object that large cannot be stored", kind, MaxPatchedBytes)}
		}
	}
	// The one pass stopped only on its cumulative copy bound; one at a time,
	// every operation applied and the document stayed within bounds.
	return doc, nil
}
