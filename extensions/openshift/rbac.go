package openshift

// OpenShift's Ingress, Network and DNS configurations, by name: cached and
// watched on OpenShift (the platform facts), the Network one also read once
// past the cache at start (kubevirt_hco_single_stack_ipv6).
// +kubebuilder:rbac:groups=config.openshift.io,resources=networks,resourceNames=cluster,verbs=get;list;watch
// +kubebuilder:rbac:groups=config.openshift.io,resources=dnses,resourceNames=cluster,verbs=list;watch
// +kubebuilder:rbac:groups=config.openshift.io,resources=ingresses,resourceNames=cluster,verbs=list;watch
