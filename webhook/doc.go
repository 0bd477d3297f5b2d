// Package webhook serves the webhooks of the HyperConverged: the validating
// admission webhook (it decodes the admission request of either API version
// as the v1 hub with render.DecodeAdmitted, asks the API server the few
// questions the rules need: do VirtualMachines or DataVolumes exist? and lets
// package validation decide, answering with the field names of the version
// the request used), the
// mutating one that adds the finalizer, and the CRD conversion between v1
// and v1beta1 (controller-runtime's conversion handler over api/v1beta1's
// ConvertTo and ConvertFrom).
//
// The existence checks are bounded: a metadata-only list with limit=1 per
// kind through an uncached reader, so latency and memory do not grow with the
// number of workloads. This package must not cache or watch workloads, must
// not fan out dry-run requests to other webhooks, must not panic on any
// input, and must not hold package-level mutable state or read the process
// environment (main passes everything in Options).
package webhook
