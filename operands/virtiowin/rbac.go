package virtiowin

// The operator's permissions for this operand, for controller-gen
// (hack/generate.sh gathers the markers of cmd/hco-operator and every
// operand package into config/rbac/role.yaml): its objects in the operator
// namespace, the Role and RoleBinding by name. The Role grants get of the
// ConfigMap, which the operator holds, so it may write and bind it.
// +kubebuilder:rbac:groups="",namespace=kubevirt-hyperconverged,resources=configmaps,verbs=get;list;watch;create;update;delete
// +kubebuilder:rbac:groups=rbac.authorization.k8s.io,namespace=kubevirt-hyperconverged,resources=roles;rolebindings,verbs=list;watch;create
// +kubebuilder:rbac:groups=rbac.authorization.k8s.io,namespace=kubevirt-hyperconverged,resources=roles;rolebindings,resourceNames=virtio-win,verbs=get;update;delete
