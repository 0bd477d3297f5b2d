// Package migcontroller is the operand module for KubeVirt's migration
// controller: it builds the MigController "migcontroller-kubevirt-hyperconverged"
// (migrations.kubevirt.io/v1alpha1) in the operator's namespace, as upstream
// HCO's controllers/handlers/migration.go at 03da3cf does (image pull policy
// IfNotPresent, the infra placement, the resolved TLS profile), for every
// HyperConverged, and reads its status back.
//
// The MigController type is the mirror in migcontroller/api/v1alpha1 (see
// its package comment for why). This package only computes; it must not
// call the API server or read the environment.
package migcontroller
