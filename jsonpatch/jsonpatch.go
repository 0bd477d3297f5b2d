package jsonpatch

import (
	"encoding/json"
	"fmt"
	"maps"
	"strings"

	evanjsonpatch "github.com/evanphx/json-patch/v5"
	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// Patch is a parsed annotation: its operations, in order.
type Patch = evanjsonpatch.Patch

// Error is a jsonpatch annotation that cannot be used. Its message names
// the annotation and, where one is to blame, the operation.
type Error struct {
	Annotation string
	// Operation is the 0-based index of the failing operation, or -1.
	Operation int
	Reason    string
}

// Error implements error.
func (e *Error) Error() string {
	if e.Operation >= 0 {
		return fmt.Sprintf("annotation %q, operation %d: %s", e.Annotation, e.Operation, e.Reason)
	}
	return fmt.Sprintf("annotation %q: %s", e.Annotation, e.Reason)
}

// IsSet reports whether an annotation's value is a patch at all (not blank).
func IsSet(value string) bool {
	return strings.TrimSpace(value) != ""
}

// Parse decodes an RFC 6902 patch held in an annotation and checks that
// every operation touches only /spec. It returns nil for a blank value.
func Parse(annotation, value string) (Patch, error) {
	if !IsSet(value) {
		return nil, nil
	}
	patch, err := evanjsonpatch.DecodePatch([]byte(value))
	if err != nil {
		return nil, &Error{Annotation: annotation, Operation: -1,
			Reason: fmt.Sprintf("not an RFC 6902 JSON patch (a JSON array of {\"op\", \"path\", \"value\"} objects): %v", err)}
	}
	for i, op := range patch {
		kind := op.Kind()
		switch kind {
		case "add", "remove", "replace", "move", "copy", "test":
		default:
			return nil, &Error{Annotation: annotation, Operation: i,
				Reason: fmt.Sprintf("unknown op %q; use add, remove, replace, move, copy or test", kind)}
		}
		path, err := op.Path()
		if err != nil {
			return nil, &Error{Annotation: annotation, Operation: i, Reason: fmt.Sprintf("%s: missing path", kind)}
		}
		if !underSpec(path) {
			return nil, &Error{Annotation: annotation, Operation: i,
				Reason: fmt.Sprintf("%s %q: only paths under /spec may be patched", kind, path)}
		}
		if kind == "move" || kind == "copy" {
			from, err := op.From()
			if err != nil || !underSpec(from) {
				return nil, &Error{Annotation: annotation, Operation: i,
					Reason: fmt.Sprintf("%s from %q: only paths under /spec may be patched", kind, from)}
			}
		}
	}
	return patch, nil
}

func underSpec(path string) bool {
	return path == "/spec" || strings.HasPrefix(path, "/spec/")
}

// MaxBytes bounds the JSON of an object while a jsonpatch annotation is
// applied to it: far more than any operand CR needs (annotations hold at
// most 256 KiB), far less than what would exhaust the operator's memory.
const MaxBytes = 1 << 20

// Apply applies patch, the annotation's, to built, the JSON of obj (a
// kind), the way upstream HCO applies a jsonpatch annotation: the patched
// document is decoded over obj itself. So an add or replace whose value is
// an object changes only the members it names (the seeds'
// {"allowPostCopy": true} keeps the live migration settings), and a remove
// cannot unset a field obj sets.
//
// What obj's Go type does not model is taken from the patched document, so
// a patch may set any field the operand's CRD accepts, whatever the Go type
// knows (the NetworkAddonsConfig and HostPathProvisioner types are mirrors).
// The API server, not this function, says whether the result is valid.
//
// obj is never changed. An operation that does not apply, a value of the
// wrong type for obj's Go type, or a result larger than MaxBytes is an
// *Error.
func Apply(annotation string, patch Patch, obj runtime.Object, kind string, built []byte) (map[string]any, error) {
	patched, err := apply(annotation, kind, patch, built)
	if err != nil {
		return nil, err
	}
	// Decoded over the object built, as upstream does...
	over := obj.DeepCopyObject()
	if err := json.Unmarshal(patched, over); err != nil {
		return nil, &Error{Annotation: annotation, Operation: -1,
			Reason: fmt.Sprintf("the patched %s does not fit its API: %v", kind, err)}
	}
	typed, err := json.Marshal(over)
	if err != nil {
		return nil, fmt.Errorf("encode the patched %s for annotation %q: %w", kind, annotation, err)
	}
	// ...and what the Go type does not hold, from the patched document.
	var patchedDoc, typedDoc map[string]any
	if err := utiljson.Unmarshal(patched, &patchedDoc); err != nil {
		return nil, &Error{Annotation: annotation, Operation: -1,
			Reason: fmt.Sprintf("the patched %s is not a JSON object: %v", kind, err)}
	}
	if err := utiljson.Unmarshal(typed, &typedDoc); err != nil {
		return nil, fmt.Errorf("decode the patched %s for annotation %q: %w", kind, annotation, err)
	}
	return overlay(patchedDoc, typedDoc).(map[string]any), nil
}

// overlay lays top over base: top's values win, and a member of an
// object that top lacks comes from base. Lists are overlaid item by item:
// decoding a JSON list into a Go slice gives exactly as many items, so the
// two lists have the same length wherever top came from base that way.
func overlay(base, top any) any {
	switch t := top.(type) {
	case map[string]any:
		b, ok := base.(map[string]any)
		if !ok {
			return t
		}
		out := make(map[string]any, len(b)+len(t))
		maps.Copy(out, b)
		for k, v := range t {
			if v == nil {
				// A nil pointer in the Go type: base says more, if anything.
				if _, has := b[k]; has {
					continue
				}
			}
			out[k] = overlay(b[k], v)
		}
		return out
	case []any:
		b, ok := base.([]any)
		if !ok || len(b) != len(t) {
			return t
		}
		out := make([]any, len(t))
		for i := range t {
			out[i] = overlay(b[i], t[i])
		}
		return out
	}
	return top
}

// apply applies patch to doc in one pass, its copies bounded by
// MaxBytes. Only when that fails is it replayed one operation at a
// time, to name the operation to blame: the common case parses the document
// once, not once per operation.
func apply(annotation, kind string, patch Patch, doc []byte) ([]byte, error) {
	opts := evanjsonpatch.NewApplyOptions()
	opts.AccumulatedCopySizeLimit = MaxBytes
	if out, err := patch.ApplyWithOptions(doc, opts); err == nil && len(out) <= MaxBytes {
		return out, nil
	}
	for i := range patch {
		var err error
		doc, err = patch[i : i+1].Apply(doc)
		if err != nil {
			return nil, &Error{Annotation: annotation, Operation: i,
				Reason: fmt.Sprintf("does not apply to %s: %v", kind, err)}
		}
		// A few copy operations of /spec into itself double the document
		// each time: stop before that exhausts memory.
		if len(doc) > MaxBytes {
			return nil, &Error{Annotation: annotation, Operation: i,
				Reason: fmt.Sprintf("the patched %s grows past %d bytes; an object that large cannot be stored", kind, MaxBytes)}
		}
	}
	// The one pass stopped only on its cumulative copy bound; one at a time,
	// every operation applied and the document stayed within bounds.
	return doc, nil
}
