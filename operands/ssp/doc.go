// Package ssp is the operand module for the Scheduling, Scale and
// Performance operator: it builds the SSP CR "ssp-kubevirt-hyperconverged"
// (ssp.kubevirt.io/v1beta3) in the HyperConverged's namespace and reads its
// status back. SSP takes the infra placement only. It also holds the common
// golden images (goldenimages.yaml, embedded) and computes, as pure
// functions, the golden images the HyperConverged asks for
// (GoldenImageStatuses), their stable schedule (DataImportSchedule) and
// their form in SSP (ForSSP).
//
// It only computes; it must not call the API server, read the environment
// or write the HyperConverged's status.
package ssp
