// Package v1alpha1 is a typed mirror of the kubevirt-migration-operator's
// MigController API (migrations.kubevirt.io/v1alpha1, module
// kubevirt.io/kubevirt-migration-operator v0.2.0, package api/v1alpha1):
// every spec field, with upstream's JSON names and validation markers, and
// the status hcokit reads.
//
// It exists because that module cannot be required from the root module:
// the Go checksum database has no entry for v0.2.0, so a library importer's
// go get would fail. tools/upstreamapis requires the real module and tests
// that every field here exists upstream with the same JSON name and shape,
// and generates the real CRD from it. The reconciler reads and writes the CR
// in its wire form, so a field missing here would be kept. This package
// holds types only.
//
// +kubebuilder:object:generate=true
// +groupName=migrations.kubevirt.io
package v1alpha1
