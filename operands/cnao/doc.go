// Package cnao is the operand module for the cluster-network-addons-operator:
// it builds the cluster-scoped NetworkAddonsConfig "cluster" from the
// HyperConverged and reads its status back. OvS is deployed exactly when the
// HyperConverged carries the annotation deployOVS: "true".
//
// The NetworkAddonsConfig type is the small mirror in cnao/api/v1 (see its
// package comment for why). This package only computes; it must not call the
// API server or read the environment.
package cnao
