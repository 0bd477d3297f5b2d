// Package crdschema loads the structural schema of one version of the
// generated HyperConverged CRD (config/crd/bases), the schema the API server
// defaults and prunes with, or of a CRD given as bytes (upstream HCO's), for
// tests that compare Go code or CRDs against it without a control plane. It
// is for tests only and holds no state.
package crdschema
