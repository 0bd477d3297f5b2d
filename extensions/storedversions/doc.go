// Package storedversions makes the API server hold every HyperConverged in
// the CRD's storage version (v1) at the operator's start, as an
// hco.Extension, and records it in the CRD's status.storedVersions, so
// that no stored object needs the conversion webhook to be read as v1.
//
// It writes an empty patch of each HyperConverged and the CRD's status
// (by name), once, on the elected replica; a failure is retried and never
// fatal.
package storedversions
