// Package v1beta1 is a small typed mirror of the hostpath-provisioner
// operator's HostPathProvisioner API (hostpathprovisioner.kubevirt.io/v1beta1):
// only the fields hcokit writes and reads, with upstream's JSON names.
//
// It exists because the upstream operator module requires
// k8s.io/client-go v12.0.0+incompatible, which would force replace directives
// on every importer of hcokit. It limits only what the operator builds: the
// reconciler reads and writes the CR in its wire form, so a field missing
// here is kept, and a jsonpatch annotation may set it. tools/upstreamapis
// tests that every field here exists upstream with the same JSON name and
// shape. This package holds types only.
//
// +kubebuilder:object:generate=true
// +groupName=hostpathprovisioner.kubevirt.io
package v1beta1
