// Package served keeps, for the operator's reconciler (package hco), which
// operand kinds the API server serves, and learns when one comes or goes:
// a CustomResourceDefinition change marks its group (Kinds.CRDChanged), and
// the next reconcile asks discovery about the marked groups (Kinds.Refresh)
// before anything else, so that the operator starts with any subset of the
// operand APIs and heals without a restart.
//
// What it must not do: start or stop a watch itself (the reconciler's
// callbacks do), ask discovery for a group no CRD change marked, or read
// anything but discovery.
package served
