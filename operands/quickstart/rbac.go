package quickstart

// The operator's permissions for this operand, for controller-gen
// (hack/generate.sh gathers the markers of cmd/hco-operator and every
// operand package into config/rbac/role.yaml): the ConsoleQuickStarts,
// cluster-scoped, by no name (their names come from the files a
// distribution gives): list, watch, create, get, update, delete. Used on
// OpenShift only; elsewhere the kind is not served and nothing is asked.
// +kubebuilder:rbac:groups=console.openshift.io,resources=consolequickstarts,verbs=get;list;watch;create;update;delete
