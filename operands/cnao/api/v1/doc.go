// Package v1 is a small typed mirror of the cluster-network-addons-operator's
// NetworkAddonsConfig API (networkaddonsoperator.network.kubevirt.io/v1): only
// the fields hcokit writes and reads, with upstream's JSON names.
//
// It exists because the upstream operator module requires
// k8s.io/client-go v12.0.0+incompatible, which would force replace directives
// on every importer of hcokit. A field missing here is pruned by nothing: the
// reconciler writes what this mirror holds, so add a field here before
// propagating it. This package holds types only.
//
// +kubebuilder:object:generate=true
// +groupName=networkaddonsoperator.network.kubevirt.io
package v1
