package waspagent

// The operator's permissions for this operand, for controller-gen
// (hack/generate.sh gathers the markers of cmd/hco-operator and every
// operand package into config/rbac/role.yaml): list, watch and create of
// its kinds, and get, update and delete of its objects, by name where
// they are cluster-scoped; namespaced ones in the operator namespace. The
// binding's ClusterRole is the install's, bound with bind by name; the
// SecurityContextConstraints' users and the binding's subject are pinned
// to the agent's ServiceAccount by config/guard.
// +kubebuilder:rbac:groups=apps,namespace=kubevirt-hyperconverged,resources=daemonsets,verbs=get;list;watch;create;update;delete
// +kubebuilder:rbac:groups="",namespace=kubevirt-hyperconverged,resources=serviceaccounts,verbs=get;list;watch;create;update;delete
// +kubebuilder:rbac:groups=security.openshift.io,resources=securitycontextconstraints,verbs=list;watch;create
// +kubebuilder:rbac:groups=security.openshift.io,resources=securitycontextconstraints,resourceNames=wasp,verbs=get;update;delete
// +kubebuilder:rbac:groups=rbac.authorization.k8s.io,resources=clusterrolebindings,verbs=list;watch;create
// +kubebuilder:rbac:groups=rbac.authorization.k8s.io,resources=clusterrolebindings,resourceNames=wasp-cluster,verbs=get;update;delete
// +kubebuilder:rbac:groups=rbac.authorization.k8s.io,resources=clusterroles,resourceNames=wasp-cluster,verbs=bind
