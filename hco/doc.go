// Package hco is the core of the hcokit SDK: the [Operand] interface that
// each component module implements, the [Registry] a distribution assembles
// its operands in, the [Environment] read once in main and passed down, and
// the helpers every operand shares (labels, jsonpatch annotations, status).
//
// Operands only compute: a HyperConverged plus an Environment in, desired
// objects out; observed objects in, a [ComponentStatus] out. The reconciler
// owns the one path that reads, creates, updates and deletes.
//
// This package must not read the process environment, hold package-level
// mutable state, or store a context.
package hco
