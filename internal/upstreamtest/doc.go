// Package upstreamtest reads, for tests, what upstream HCO's own code
// built at 03da3cf (the captures kept as testdata/upstream-03da3cf of the
// operand packages), and puts the objects an operand builds in the same
// form, so that the two compare as maps; and gives the HyperConverged and
// the OpenShift facts those captures were made for. (The captures of
// upstream's HyperConverged status, testdata/upstream-03da3cf/status, are
// read by internal/integration/upstreamstatus.)
//
// What it must not do: anything but read files and encode values; it is
// for tests only.
package upstreamtest
