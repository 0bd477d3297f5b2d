// Package priorityclass is the operand module for the PriorityClass
// "kubevirt-cluster-critical" (scheduling.k8s.io/v1) that upstream HCO makes
// for KubeVirt's core components and that AAQ names as its priority class:
// value 1000000000 (the highest a user PriorityClass may have), not the
// global default, upstream's description. It is wanted for every
// HyperConverged, as upstream's NewKvPriorityClassHandler makes it.
//
// It only computes; it must not call the API server or read the environment.
package priorityclass
