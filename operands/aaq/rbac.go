package aaq

// The operator's permissions for this operand, for controller-gen
// (hack/generate.sh gathers the markers of cmd/hco-operator and every
// operand package into config/rbac/role.yaml): list, watch and create of
// its kinds, and get, update and delete of its objects, by name where
// they are cluster-scoped; namespaced ones in the operator namespace.
// +kubebuilder:rbac:groups=aaq.kubevirt.io,resources=aaqs,verbs=list;watch;create
// +kubebuilder:rbac:groups=aaq.kubevirt.io,resources=aaqs,resourceNames=aaq-kubevirt-hyperconverged,verbs=get;update;delete
