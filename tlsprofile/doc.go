// Package tlsprofile resolves spec.security.tlsSecurityProfile of the
// HyperConverged into the TLS profile every operand gets, as upstream HCO
// does: the HyperConverged's own profile, else the cluster's (OpenShift's
// APIServer "cluster"), else Intermediate. It also expands a profile into its
// ciphers and minimum TLS version (openshift/api's TLSProfiles table for Old,
// Intermediate and Modern) for operands that take those rather than a
// profile, and converts a profile to the types of CDI and of the other operands
// that copy OpenShift's (MigController, FileRestoreOperator, AAQ).
//
// It is a pure translator: it imports only the standard library, API types
// and the operand API types. It must not call the API server, read the
// environment, log or keep state; the cluster's profile, where there is one,
// is passed in by the caller.
package tlsprofile
