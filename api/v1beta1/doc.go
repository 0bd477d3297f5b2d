// Package v1beta1 holds the HyperConverged API (group hco.kubevirt.io, version
// v1beta1): the single custom resource a cluster admin edits to configure the
// whole virtualization stack.
//
// The types are wire-compatible with upstream HCO's v1beta1 for every field
// they carry, so an admin's existing YAML applies unchanged. Defaults live in
// the CRD (kubebuilder markers) and are mirrored by [Default] for code that runs
// without an API server; a test keeps the two in agreement.
//
// This package holds types, names and defaults only. It must not import a
// client, read the environment or hold mutable package state.
//
// +kubebuilder:object:generate=true
// +groupName=hco.kubevirt.io
package v1beta1
