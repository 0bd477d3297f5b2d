// Package crdschema loads the structural schema of one version of the
// generated HyperConverged CRD (config/crd/bases), the schema the API server
// defaults and prunes with, for tests that compare Go code against it without
// a control plane. It is for tests only and holds no state.
package crdschema
