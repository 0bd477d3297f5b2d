// Package jsonpatch is the language of the HyperConverged's jsonpatch
// annotations (kubevirt.kubevirt.io/jsonpatch and its kind), upstream HCO's
// escape hatch: an RFC 6902 patch of an operand's main object, confined to
// /spec, applied as upstream applies it (decoded over the object built, see
// Apply). The reconciler (package hco), the webhook's validation and the
// diff preview all read annotations through it, so they agree.
//
// What it must not do: it reads no annotation itself (the caller passes
// the value), touches nothing outside /spec, changes no object it is
// given, and holds no state.
package jsonpatch
