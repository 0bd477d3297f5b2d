package clidownload

// The operator's permissions for this operand, for controller-gen
// (hack/generate.sh gathers the markers of cmd/hco-operator and every
// operand package into config/rbac/role.yaml): list, watch and create of
// its kinds, and get, update and delete of its objects, by name where
// they are cluster-scoped; namespaced ones in the operator namespace.
// +kubebuilder:rbac:groups=apps,namespace=kubevirt-hyperconverged,resources=deployments,verbs=get;list;watch;create;update;delete
// +kubebuilder:rbac:groups="",namespace=kubevirt-hyperconverged,resources=services,verbs=get;list;watch;create;update;delete
// On OpenShift, the Route and the ConsoleCLIDownload.
// +kubebuilder:rbac:groups=route.openshift.io,namespace=kubevirt-hyperconverged,resources=routes,verbs=get;list;watch;create;update;delete
// +kubebuilder:rbac:groups=console.openshift.io,resources=consoleclidownloads,verbs=list;watch;create
// +kubebuilder:rbac:groups=console.openshift.io,resources=consoleclidownloads,resourceNames=virtctl-clidownloads-kubevirt-hyperconverged,verbs=get;update;delete
// The download's component route in the Ingress configuration's status
// (hco.ListMember); the custom host's certificate Secret in
// openshift-config is read with the access OpenShift's ingress operator
// gives the route's consuming user, the operator: no grant here.
// +kubebuilder:rbac:groups=config.openshift.io,resources=ingresses/status,resourceNames=cluster,verbs=patch
// The reconciler reads the Ingress configuration past the cache before that
// patch (its cache holds the typed object, which may lack fields of others'
// items: hco.Reconciler.syncLists), so get of it too.
// +kubebuilder:rbac:groups=config.openshift.io,resources=ingresses,resourceNames=cluster,verbs=get
