// Package validation decides whether a HyperConverged is acceptable and says,
// for every problem, which field is wrong and how to fix it. It is the
// decision half of the validating admission webhook (package webhook) and is
// reused, without the cluster checks, by tools that validate a HyperConverged
// offline (hco-operator render).
//
// Everything here is pure: the caller passes in whatever the cluster knows
// (the operator namespace, the registry of operands, counts of existing
// workloads) and gets back a field.ErrorList and warnings. Same input, same
// output.
//
// This package must not talk to the API server, read the process
// environment or files, log, or hold package-level mutable state.
package validation
