package main

// The permissions of the stock binary, for controller-gen (hack/generate.sh
// writes config/rbac/role.yaml from them). Least privilege: the kinds the
// operands write, the HyperConverged, Events, and the leader election Lease
// in the operator namespace only. No wildcards.

// +kubebuilder:rbac:groups=hco.kubevirt.io,resources=hyperconvergeds,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=hco.kubevirt.io,resources=hyperconvergeds/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=hco.kubevirt.io,resources=hyperconvergeds/finalizers,verbs=update
// +kubebuilder:rbac:groups=kubevirt.io,resources=kubevirts,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=cdi.kubevirt.io,resources=cdis,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=networkaddonsoperator.network.kubevirt.io,resources=networkaddonsconfigs,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=ssp.kubevirt.io,resources=ssps,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=hostpathprovisioner.kubevirt.io,resources=hostpathprovisioners,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=services,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=nodes,verbs=get;list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch;update
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch;update
// +kubebuilder:rbac:groups=coordination.k8s.io,namespace=kubevirt-hyperconverged,resources=leases,verbs=get;list;watch;create;update;patch;delete
