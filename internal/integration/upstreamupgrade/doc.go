// Package upstreamupgrade plays an in-place upgrade from upstream HCO 1.18.1
// to hcokit on a real API server and compares, object for object, what
// hcokit changes with what upstream's own operator at 03da3cf (1.20.0)
// changes in the same cluster: the cluster upstream 1.18.1's operator left
// and upstream 1.20.0's result, both captured by running upstream's code
// from its trees (internal/upstreamtest/testdata/upgrade-from-1.18.1).
package upstreamupgrade
