// Package render turns a HyperConverged manifest into the operand objects the
// operator would create for it, with no cluster: strict decoding of either
// API version (an unknown field is an error naming it; v1beta1 is converted
// to the v1 hub, as the API server would), the CRD defaults applied in Go
// (hcov1.Default), the registry's operands run in registration order, and
// the result written as clean YAML documents (no status, no empty metadata).
// The hco-operator render subcommand is a thin shell around it; CI jobs,
// GitOps reviews and the examples' tests use it directly.
//
// Its decoder is hcokit's one decoder of a HyperConverged: the validating
// webhook reads admission requests with DecodeAdmitted, which converts and
// warns as Decode does but takes the object as the API server admitted it
// (defaulted, pruned and checked already), leniently.
//
// The package must not talk to an API server, read the process environment
// or hold package-level mutable state; everything it needs is passed in.
package render
