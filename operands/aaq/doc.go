// Package aaq is the operand module for the application-aware quota
// operator: when the HyperConverged sets
// spec.deployment.applicationAwareConfig.enable (v1beta1
// enableApplicationAwareQuota) it builds the cluster-scoped AAQ
// "aaq-kubevirt-hyperconverged" (aaq.kubevirt.io/v1alpha1) as upstream HCO's
// controllers/handlers/aaq.go at 03da3cf does (the PriorityClass
// kubevirt-cluster-critical, pull policy IfNotPresent, certificate rotation,
// the TLS profile, infra and workload placement, the calculator
// configuration, namespace selector and cluster quota switch); otherwise it
// wants nothing, and a stale AAQ is removed. It reads the AAQ's status back.
//
// The AAQ type is the mirror in aaq/api/v1alpha1 (see its package comment
// for why). This package only computes; it must not call the API server or
// read the environment.
package aaq
