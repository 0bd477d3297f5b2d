package dashboard

// The operator's permissions for this operand, for controller-gen: the
// ConfigMaps in openshift-config-managed, by no name (their names come from
// the files a distribution gives): list, watch, create, get, update,
// delete. They are asked on OpenShift only, and only when there are
// dashboards (the operator caches that namespace then only,
// OtherNamespaces). hack/generate.sh puts this Role, in a namespace only
// OpenShift has, into config/openshift/role.yaml (applied besides config
// on OpenShift, with its binding) rather than config/rbac/role.yaml: the
// install (kubectl apply -k config) moves every namespaced object into the
// operator namespace, and plain Kubernetes has no openshift-config-managed.
// An OLM bundle cannot grant a Role in another namespace either
// (docs/olm.md).
// +kubebuilder:rbac:groups="",namespace=openshift-config-managed,resources=configmaps,verbs=get;list;watch;create;update;delete
