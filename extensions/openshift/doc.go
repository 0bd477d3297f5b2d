// Package openshift gathers the OpenShift platform facts as an
// hco.Extension and hco.FactGatherer: from the cluster's Ingress, Network
// and DNS configurations "cluster" (held by name in the operator's cache,
// watched), the ingress domain and the component routes of the operator's
// namespace (with their serving certificates, read past the cache from
// openshift-config), the pod network's IP stack and the base DNS domain,
// as upstream HCO reads them at 03da3cf; and, once at start, whether the
// cluster network is single-stack IPv6 (kubevirt_hco_single_stack_ipv6).
//
// Whether the cluster is OpenShift (it serves ClusterVersion) is the
// core's question (hco.OpenShift): it decides which operands run. This
// package answers what the operands are told of the platform
// (hco.Platform); without it an OpenShift cluster is told nothing but
// OpenShift (IPStack empty, which the operands take as upstream does, for
// IPv4SingleStack).
//
// RBAC (rbac.go): the three configurations, by name.
package openshift
