// Package ssp is the operand module for the Scheduling, Scale and
// Performance operator: it builds the SSP CR "ssp-kubevirt-hyperconverged"
// (ssp.kubevirt.io/v1beta3) in the HyperConverged's namespace and reads its
// status back. SSP takes the infra placement only.
//
// It only computes; it must not call the API server or read the environment.
package ssp
