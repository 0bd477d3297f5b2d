// Package filerestore is the operand module for the VM file restore
// operator: it builds the FileRestoreOperator
// "vm-file-restore-kubevirt-hyperconverged" (filerestore.kubevirt.io/v1alpha1)
// in the operator's namespace, as upstream HCO's
// controllers/handlers/vm-file-restore.go at 03da3cf does (image pull policy
// IfNotPresent, the resolved TLS profile), for every HyperConverged, and
// reads its status back.
//
// The FileRestoreOperator type is the mirror in filerestore/api/v1alpha1
// (see its package comment for why). This package only computes; it must
// not call the API server or read the environment.
package filerestore
