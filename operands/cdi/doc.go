// Package cdi is the operand module for the Containerized Data Importer: it
// builds the cluster-scoped CDI CR "cdi-kubevirt-hyperconverged" from the
// HyperConverged, with the operator's opinionated defaults, and reads CDI's
// status back.
//
// It only computes; it must not call the API server or read the environment.
package cdi
