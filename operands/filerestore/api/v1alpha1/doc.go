// Package v1alpha1 is a typed mirror of the vm-file-restore-operator's
// FileRestoreOperator API (filerestore.kubevirt.io/v1alpha1, module
// kubevirt.io/vm-file-restore-operator v0.0.6, package api/v1alpha1): every
// field, with upstream's JSON names and validation markers. The
// VirtualMachineFileRestore kind of the same group is not mirrored.
//
// It exists because the Go module proxy refuses that module, so neither the
// root module nor a tool module can require it. The mirror was written from
// the copy upstream HCO vendors at commit 03da3cf, which is identical to the
// operator's tag v0.0.6 (commit c0f9e407b55ffbd727c6051eab8fbf399ded3021).
// The test CRD is generated from this package (hack/generate.sh);
// tools/upstreamapis tests that its schema is the one the operator ships at
// that tag. This package holds types only.
//
// +kubebuilder:object:generate=true
// +groupName=filerestore.kubevirt.io
package v1alpha1
