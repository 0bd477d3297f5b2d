// Package namespacepolicy is the operand module for upstream HCO's namespace
// policy: the cluster-scoped ValidatingAdmissionPolicy
// "hyperconverged-namespace-policy" and its ValidatingAdmissionPolicyBinding
// "hyperconverged-namespace-policy-binding", which make the API server deny
// the creation of a HyperConverged (v1 or v1beta1) outside the operator's
// namespace. The content is upstream's (controllers/admissionpolicy at
// commit 03da3cf), with the namespace taken from the Environment.
//
// Upstream makes them from a controller of their own at start, owned by the
// HyperConverged CRD; here they are an operand like the others: made for the
// HyperConverged, removed with it.
//
// It only computes; it must not call the API server or read the environment.
package namespacepolicy
