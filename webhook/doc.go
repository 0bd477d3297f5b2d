// Package webhook serves the validating admission webhook of the
// HyperConverged: it decodes the admission request, asks the API server the
// few questions the rules need (do VirtualMachines or DataVolumes exist?) and
// lets package validation decide.
//
// The existence checks are bounded: a metadata-only list with limit=1 per
// kind through an uncached reader, so latency and memory do not grow with the
// number of workloads. This package must not cache or watch workloads, must
// not fan out dry-run requests to other webhooks, must not panic on any
// input, and must not hold package-level mutable state or read the process
// environment (main passes everything in Options).
package webhook
