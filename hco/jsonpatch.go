package hco

import (
	"encoding/json"
	"fmt"
	"maps"
	"strings"

	jsonpatch "github.com/evanphx/json-patch/v5"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
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
func HasJSONPatch(hc *hcov1.HyperConverged, annotation string) bool {
	return strings.TrimSpace(hc.GetAnnotations()[annotation]) != ""
}

// jsonPatch is an operand's jsonpatch annotation, parsed once per reconcile:
// the operand's desired objects, the TaintedConfiguration condition, the
// UnsafeModifications metric and the blame for a refused write all read it.
type jsonPatch struct {
	annotation string          // the key; empty for an operand that is no JSONPatcher
	set        bool            // the annotation is not blank (HasJSONPatch)
	ops        jsonpatch.Patch // nil when unset or broken
	err        error           // why it is broken
}

// jsonPatchOf parses op's jsonpatch annotation on hc.
func jsonPatchOf(op Operand, hc *hcov1.HyperConverged) jsonPatch {
	p, ok := op.(JSONPatcher)
	if !ok {
		return jsonPatch{}
	}
	key := p.JSONPatchAnnotation()
	ops, err := ParseJSONPatch(key, hc.GetAnnotations()[key])
	return jsonPatch{annotation: key, set: HasJSONPatch(hc, key), ops: ops, err: err}
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

// patchedDoc applies p to built, the JSON of obj, the way upstream HCO
// applies a jsonpatch annotation: the patched document is decoded over obj
// itself. So an add or replace whose value is an object changes only the
// members it names (the seeds' {"allowPostCopy": true} keeps the live
// migration settings), and a remove cannot unset a field obj sets.
//
// What obj's Go type does not model is taken from the patched document, so
// a patch may set any field the operand's CRD accepts, whatever the Go type
// knows (the NetworkAddonsConfig and HostPathProvisioner types are mirrors).
// The API server, not this function, says whether the result is valid.
//
// obj is never changed. An operation that does not apply, a value of the
// wrong type for obj's Go type, or a result larger than MaxPatchedBytes is
// a *JSONPatchError.
func patchedDoc(obj client.Object, kind string, p jsonPatch, built []byte) (map[string]any, error) {
	patched, err := applyJSONPatch(p.annotation, kind, p.ops, built)
	if err != nil {
		return nil, err
	}
	// Decoded over the object built, as upstream does...
	over := obj.DeepCopyObject()
	if err := json.Unmarshal(patched, over); err != nil {
		return nil, &JSONPatchError{Annotation: p.annotation, Operation: -1,
			Reason: fmt.Sprintf("the patched %s does not fit its API: %v", kind, err)}
	}
	typed, err := json.Marshal(over)
	if err != nil {
		return nil, fmt.Errorf("encode the patched %s for annotation %q: %w", kind, p.annotation, err)
	}
	// ...and what the Go type does not hold, from the patched document.
	var patchedDoc, typedDoc map[string]any
	if err := utiljson.Unmarshal(patched, &patchedDoc); err != nil {
		return nil, &JSONPatchError{Annotation: p.annotation, Operation: -1,
			Reason: fmt.Sprintf("the patched %s is not a JSON object: %v", kind, err)}
	}
	if err := utiljson.Unmarshal(typed, &typedDoc); err != nil {
		return nil, fmt.Errorf("decode the patched %s for annotation %q: %w", kind, p.annotation, err)
	}
	return overlayJSON(patchedDoc, typedDoc).(map[string]any), nil
}

// overlayJSON lays top over base: top's values win, and a member of an
// object that top lacks comes from base. Lists are overlaid item by item:
// decoding a JSON list into a Go slice gives exactly as many items, so the
// two lists have the same length wherever top came from base that way.
func overlayJSON(base, top any) any {
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
			out[k] = overlayJSON(b[k], v)
		}
		return out
	case []any:
		b, ok := base.([]any)
		if !ok || len(b) != len(t) {
			return t
		}
		out := make([]any, len(t))
		for i := range t {
			out[i] = overlayJSON(b[i], t[i])
		}
		return out
	}
	return top
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
