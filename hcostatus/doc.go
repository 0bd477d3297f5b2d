// Package hcostatus is the HyperConverged's aggregated status as a pure
// function: each operand reports its component's status (Component, built
// with FromConditions, FromConditionsV1, NotFound or Found from whatever
// conditions the component's CR carries), and Conditions turns one
// reconcile's findings (Assessment: the components, the failures, the
// problem, the operands waiting for an API, upgrade and jsonpatch state)
// into the conditions ReconcileComplete, Available, Progressing, Degraded,
// Upgradeable and TaintedConfiguration, with upstream HCO's reasons;
// SystemHealth derives status.systemHealthStatus from them, and
// SetNodeFacts writes the node facts into the status.
//
// What it must not do: read or write the cluster, keep state, or know any
// operand: the reconciler (package hco) gathers the findings and writes the
// status.
package hcostatus
