// Package upstreamstatus plays, against a real API server, the cluster
// states upstream HCO's status was captured for, and compares what hcokit's
// operator writes into the HyperConverged with what upstream's operator
// writes (internal/upstreamtest/testdata/upstream-03da3cf/status, captured
// by running upstream's reconciler at 03da3cf; its README says how). Its
// two test packages run it on plain Kubernetes and on OpenShift, one
// control plane each.
//
// What it must not do: anything but test; it plays the component operators
// by setting their CRs' conditions, as upstream's capture did.
package upstreamstatus
