// Package placement translates the HyperConverged's node placement
// (spec.deployment.nodePlacements.infra and .workload; v1beta1 spec.infra and
// spec.workloads .nodePlacement) into the shape
// each operand understands.
//
// An operand that supports only one of the two classes receives only that
// one: SSP gets infra, the HostPathProvisioner gets workloads. Every function
// returns deep copies, so the result never aliases the HyperConverged.
//
// The package is a pure translator: it imports only API types and must not
// import a client, read the environment, log, or hold state.
package placement
