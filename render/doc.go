// Package render turns a HyperConverged manifest into the operand objects the
// operator would create for it, with no cluster: strict decoding of either
// API version (an unknown field is an error naming it; v1beta1 is converted
// to the v1 hub, as the API server would), the CRD defaults applied in Go
// (hcov1.Default), the registry's operands run in registration order, and
// the result written as clean YAML documents (no status, no empty metadata).
// The hco-operator render subcommand is a thin shell around it; CI jobs,
// GitOps reviews and the examples' tests use it directly.
//
// The package must not talk to an API server, read the process environment
// or hold package-level mutable state; everything it needs is passed in.
package render
