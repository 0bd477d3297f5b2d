package namespacepolicy

// The operator's permissions for this operand, for controller-gen
// (hack/generate.sh gathers the markers of cmd/hco-operator and every
// operand package into config/rbac/role.yaml): list, watch and create of
// its kinds, and get, update and delete of its objects, by name where
// they are cluster-scoped; namespaced ones in the operator namespace.
// +kubebuilder:rbac:groups=admissionregistration.k8s.io,resources=validatingadmissionpolicies;validatingadmissionpolicybindings,verbs=list;watch;create
// +kubebuilder:rbac:groups=admissionregistration.k8s.io,resources=validatingadmissionpolicies,resourceNames=hyperconverged-namespace-policy,verbs=get;update;delete
// +kubebuilder:rbac:groups=admissionregistration.k8s.io,resources=validatingadmissionpolicybindings,resourceNames=hyperconverged-namespace-policy-binding,verbs=get;update;delete
