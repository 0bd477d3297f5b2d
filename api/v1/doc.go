// Package v1 holds the HyperConverged API, group hco.kubevirt.io, version v1:
// the version the API server stores and the hub every other version converts
// through. The translators, the operand modules, render and the reconciler
// program against it, so each field is translated in one place.
//
// The spec is grouped as upstream HCO's v1 groups it (featureGates as a list
// of names, virtualization, storage, workloadSources, security, deployment),
// with the same JSON names, enums, defaults and validation for every field
// hcokit supports, so upstream's v1 YAML applies unchanged. Defaults live in
// the CRD (kubebuilder markers) and are mirrored by [Default] for code that
// runs without an API server; a test keeps the two in agreement.
//
// This package holds types, names and defaults only. It must not import a
// client, read the environment or hold mutable package state.
//
// +kubebuilder:object:generate=true
// +groupName=hco.kubevirt.io
package v1
