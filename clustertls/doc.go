// Package clustertls reads the cluster's own TLS profile (OpenShift's
// APIServer configuration "cluster", config.openshift.io/v1) and serves the
// operator's endpoints with the HyperConverged's resolved profile.
//
// Served says whether the cluster has that configuration at all (plain
// Kubernetes does not); Profile reads it, the fact the reconciler hands the
// operands in hco.Facts when the HyperConverged sets no profile, as
// upstream HCO does; ServeProfile is the TLS option of controller-runtime's
// webhook and metrics servers that picks the profile per connection.
//
// What it must not do: it only reads, through the reader it is given (a
// cache in the operator), and never writes; the resolution of profiles is
// package tlsprofile's, not repeated here.
package clustertls
