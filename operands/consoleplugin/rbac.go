package consoleplugin

// The operator's permissions for this operand, for controller-gen
// (hack/generate.sh gathers the markers of cmd/hco-operator and every
// operand package into config/rbac/role.yaml): list, watch and create of
// its kinds, and get, update and delete of its objects, by name where
// they are cluster-scoped; namespaced ones in the operator namespace.
// +kubebuilder:rbac:groups=apps,namespace=kubevirt-hyperconverged,resources=deployments,verbs=get;list;watch;create;update;delete
// +kubebuilder:rbac:groups="",namespace=kubevirt-hyperconverged,resources=services;serviceaccounts;configmaps,verbs=get;list;watch;create;update;delete
// +kubebuilder:rbac:groups=networking.k8s.io,namespace=kubevirt-hyperconverged,resources=networkpolicies,verbs=get;list;watch;create;update;delete
// +kubebuilder:rbac:groups=rbac.authorization.k8s.io,namespace=kubevirt-hyperconverged,resources=roles;rolebindings,verbs=list;watch;create
// +kubebuilder:rbac:groups=rbac.authorization.k8s.io,namespace=kubevirt-hyperconverged,resources=roles,resourceNames=kubevirt-ui-config-reader,verbs=get;update;delete
// +kubebuilder:rbac:groups=rbac.authorization.k8s.io,namespace=kubevirt-hyperconverged,resources=rolebindings,resourceNames=kubevirt-ui-config-reader-rolebinding,verbs=get;update;delete
// The config reader Role grants patch of the user settings: the API server
// lets the operator write the Role, and bind it, only if it holds that too
// (no escalate, no bind).
// +kubebuilder:rbac:groups="",namespace=kubevirt-hyperconverged,resources=configmaps,resourceNames=kubevirt-user-settings,verbs=patch
// +kubebuilder:rbac:groups=console.openshift.io,resources=consoleplugins,verbs=list;watch;create
// +kubebuilder:rbac:groups=console.openshift.io,resources=consoleplugins,resourceNames=kubevirt-plugin,verbs=get;update;delete
// The Console operator configuration, read by name and patched (its
// spec.plugins only: hco.ListMember).
// +kubebuilder:rbac:groups=operator.openshift.io,resources=consoles,resourceNames=cluster,verbs=list;watch;patch
