// Package hpp is the opt-in operand module for the hostpath provisioner: when
// the HyperConverged sets spec.storage.hostpathProvisioner it builds the
// cluster-scoped HostPathProvisioner "hostpath-provisioner", placed with the
// workloads placement; otherwise it wants nothing.
//
// The HostPathProvisioner type is the small mirror in hpp/api/v1beta1 (see
// its package comment for why). This package only computes; it must not call
// the API server or read the environment.
package hpp
