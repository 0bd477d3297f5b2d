package aie

// The operator's permissions for this operand, for controller-gen
// (hack/generate.sh gathers the markers of cmd/hco-operator and every
// operand package into config/rbac/role.yaml): list, watch and create of
// its kinds, and get, update and delete of its objects, by name where
// they are cluster-scoped; namespaced ones in the operator namespace.
// +kubebuilder:rbac:groups=admissionregistration.k8s.io,resources=mutatingwebhookconfigurations,verbs=list;watch;create
// +kubebuilder:rbac:groups=admissionregistration.k8s.io,resources=mutatingwebhookconfigurations,resourceNames=kubevirt-aie-webhook,verbs=get;update;delete
// +kubebuilder:rbac:groups=rbac.authorization.k8s.io,resources=clusterrolebindings,verbs=list;watch;create
// +kubebuilder:rbac:groups=rbac.authorization.k8s.io,resources=clusterrolebindings,resourceNames=kubevirt-aie-webhook,verbs=get;update;delete
// +kubebuilder:rbac:groups=rbac.authorization.k8s.io,resources=clusterroles,resourceNames=kubevirt-aie-webhook,verbs=bind
// +kubebuilder:rbac:groups=apps,namespace=kubevirt-hyperconverged,resources=deployments,verbs=get;list;watch;create;update;delete
// +kubebuilder:rbac:groups="",namespace=kubevirt-hyperconverged,resources=services;serviceaccounts,verbs=get;list;watch;create;update;delete
// +kubebuilder:rbac:groups="",namespace=kubevirt-hyperconverged,resources=configmaps,verbs=get;list;watch;create;update;delete
