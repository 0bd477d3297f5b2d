package hco

import (
	ocpconfigv1 "github.com/openshift/api/config/v1"
)

// Facts is everything an operand's Desired is given besides the admin's
// HyperConverged: the Environment read in main, and what the reconciler
// learns about the cluster. It is a plain value, passed down; the
// HyperConverged an operand gets is the admin's, never edited to carry
// facts (status.nodeInfo and the like are what the status writer reports
// from these same facts, not an input).
type Facts struct {
	Environment

	// Nodes are the node facts (node roles and architectures, from the node
	// index); nil when unknown, as in an offline render: an operand then
	// takes the cluster for a highly available one and assumes no
	// architecture.
	Nodes *NodeFacts

	// ClusterTLSProfile is the cluster's TLS profile (on OpenShift, the
	// APIServer configuration "cluster"); nil when there is none. The
	// HyperConverged's spec.security.tlsSecurityProfile wins over it
	// (tlsprofile.Resolve).
	ClusterTLSProfile *ocpconfigv1.TLSSecurityProfile
}

// OfflineFacts are the facts of a render without a cluster: env, nodes
// unknown (Nodes nil) and no cluster TLS profile. render and the webhook's
// validation build objects with them.
func OfflineFacts(env Environment) Facts { return Facts{Environment: env} }
