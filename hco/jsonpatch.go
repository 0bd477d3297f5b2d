package hco

import (
	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/jsonpatch"
)

// jsonPatch is an operand's jsonpatch annotation (package jsonpatch), parsed
// once per reconcile (the objects, TaintedConfiguration, the metric, blame).
type jsonPatch struct {
	annotation string          // the key; empty for an operand that is no JSONPatcher
	set        bool            // the annotation is not blank (jsonpatch.IsSet)
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
	value := hc.GetAnnotations()[key]
	ops, err := jsonpatch.Parse(key, value)
	return jsonPatch{annotation: key, set: jsonpatch.IsSet(value), ops: ops, err: err}
}

// JSONPatchInEffect names op's jsonpatch annotation when hc sets it and it
// parses, with its number of operations; "" and 0 otherwise.
func JSONPatchInEffect(op Operand, hc *hcov1.HyperConverged) (string, int) {
	p := jsonPatchOf(op, hc)
	if !p.set || p.err != nil {
		return "", 0
	}
	return p.annotation, len(p.ops)
}
