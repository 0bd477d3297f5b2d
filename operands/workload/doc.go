// Package workload holds what the operands that deploy a workload of their
// own (a Deployment) build the same way. Each operand keeps its own literal
// objects; only a concept with one meaning lives here.
//
// It only computes; it must not call the API server or read the environment.
package workload
