// Package cdi is the operand module for the Containerized Data Importer: it
// builds the cluster-scoped CDI CR "cdi-kubevirt-hyperconverged" from the
// HyperConverged, as upstream HCO does (storage settings, log verbosity, the
// TLS profile resolved by package tlsprofile, upstream's CDI feature gates),
// and reads CDI's status back.
//
// It only computes; it must not call the API server or read the environment.
package cdi
