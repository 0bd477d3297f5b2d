// Package tlsprofile translates the HyperConverged's
// spec.security.tlsSecurityProfile (an OpenShift TLSSecurityProfile) into
// the TLS settings of the operands, as upstream HCO does: the named profiles
// come from openshift/api's TLSProfiles table, OpenSSL cipher names become
// IANA names.
//
// The package is a pure translator: it imports only API types and must not
// import a client, read the environment, log, or hold state.
package tlsprofile
