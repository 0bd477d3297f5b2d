package v1beta1

import hcov1 "github.com/hcokit/hcokit/api/v1"

// The names are the hub's ([hcov1]); they are repeated here so that code
// written against v1beta1 keeps compiling.
const (
	HyperConvergedName = hcov1.HyperConvergedName
	DefaultNamespace   = hcov1.DefaultNamespace

	DeployOVSAnnotation         = hcov1.DeployOVSAnnotation
	KubeVirtJSONPatchAnnotation = hcov1.KubeVirtJSONPatchAnnotation
	CDIJSONPatchAnnotation      = hcov1.CDIJSONPatchAnnotation
	CNAOJSONPatchAnnotation     = hcov1.CNAOJSONPatchAnnotation
	SSPJSONPatchAnnotation      = hcov1.SSPJSONPatchAnnotation
	HPPJSONPatchAnnotation      = hcov1.HPPJSONPatchAnnotation

	ConditionAvailable            = hcov1.ConditionAvailable
	ConditionProgressing          = hcov1.ConditionProgressing
	ConditionDegraded             = hcov1.ConditionDegraded
	ConditionUpgradeable          = hcov1.ConditionUpgradeable
	ConditionReconcileComplete    = hcov1.ConditionReconcileComplete
	ConditionTaintedConfiguration = hcov1.ConditionTaintedConfiguration

	SystemHealthHealthy = hcov1.SystemHealthHealthy
	SystemHealthWarning = hcov1.SystemHealthWarning
	SystemHealthError   = hcov1.SystemHealthError
)

// JSONPatchAnnotations lists every jsonpatch annotation, in a stable order.
func JSONPatchAnnotations() []string { return hcov1.JSONPatchAnnotations() }
