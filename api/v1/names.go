package v1

// The singleton: the only HyperConverged an operator reconciles.
const (
	// HyperConvergedName is the one name a HyperConverged may have.
	HyperConvergedName = "kubevirt-hyperconverged"
	// DefaultNamespace is the namespace the stock operator runs in and expects
	// the HyperConverged in.
	DefaultNamespace = "kubevirt-hyperconverged"
)

// Annotations on the HyperConverged that the operator honours.
const (
	// DeployOVSAnnotation set to "true" deploys the OvS CNI through the
	// NetworkAddonsConfig; absent or any other value does not.
	DeployOVSAnnotation = "deployOVS"

	// KubeVirtJSONPatchAnnotation holds an RFC 6902 patch applied to the KubeVirt CR.
	KubeVirtJSONPatchAnnotation = "kubevirt.kubevirt.io/jsonpatch"
	// CDIJSONPatchAnnotation holds an RFC 6902 patch applied to the CDI CR.
	CDIJSONPatchAnnotation = "containerizeddataimporter.kubevirt.io/jsonpatch"
	// CNAOJSONPatchAnnotation holds an RFC 6902 patch applied to the NetworkAddonsConfig CR.
	CNAOJSONPatchAnnotation = "networkaddonsconfigs.kubevirt.io/jsonpatch"
	// SSPJSONPatchAnnotation holds an RFC 6902 patch applied to the SSP CR.
	SSPJSONPatchAnnotation = "ssp.kubevirt.io/jsonpatch"
	// HPPJSONPatchAnnotation holds an RFC 6902 patch applied to the
	// HostPathProvisioner CR. Upstream HCO does not create that CR, so it has
	// no such annotation; hcokit does, so it offers the same escape hatch.
	HPPJSONPatchAnnotation = "hostpathprovisioner.kubevirt.io/jsonpatch"
)

// JSONPatchAnnotations lists every jsonpatch annotation, in a stable order.
func JSONPatchAnnotations() []string {
	return []string{KubeVirtJSONPatchAnnotation, CDIJSONPatchAnnotation, CNAOJSONPatchAnnotation, SSPJSONPatchAnnotation, HPPJSONPatchAnnotation}
}

// Condition types reported in status.conditions.
const (
	ConditionAvailable            = "Available"
	ConditionProgressing          = "Progressing"
	ConditionDegraded             = "Degraded"
	ConditionUpgradeable          = "Upgradeable"
	ConditionReconcileComplete    = "ReconcileComplete"
	ConditionTaintedConfiguration = "TaintedConfiguration"
	// ConditionNetworkResourcesInjectorReady is upstream's condition of the
	// network-resources-injector Deployment (all replicas ready), present
	// while the injector is deployed; KubeVirt's ExternalNetResourceInjection
	// gate follows it.
	ConditionNetworkResourcesInjectorReady = "VirtNetworkResourcesInjectorReady"
)

// Values of status.systemHealthStatus.
const (
	SystemHealthHealthy = "healthy"
	SystemHealthWarning = "warning"
	SystemHealthError   = "error"
)
