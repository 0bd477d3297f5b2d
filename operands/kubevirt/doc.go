// Package kubevirt is the operand module for virt-operator: it builds the
// KubeVirt CR "kubevirt-kubevirt-hyperconverged" in the HyperConverged's
// namespace from the HyperConverged, with the operator's opinionated
// defaults, and reads KubeVirt's status back.
//
// It only computes; it must not call the API server or read the environment.
package kubevirt
