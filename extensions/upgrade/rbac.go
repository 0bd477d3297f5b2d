package upgrade

// Upstream's leftovers (patches.go), by name: read and deleted once, when
// upgrading from an upstream version that made them; upstream's
// cert-manager objects of the injector, once per start where their CRDs
// exist (the switch).
// +kubebuilder:rbac:groups=apps,namespace=kubevirt-hyperconverged,resources=daemonsets,resourceNames=passt-binding-cni;iommufd-device-plugin,verbs=get;delete
// +kubebuilder:rbac:groups=k8s.cni.cncf.io,resources=network-attachment-definitions,resourceNames=primary-udn-kubevirt-binding,verbs=delete
// +kubebuilder:rbac:groups=security.openshift.io,resources=securitycontextconstraints,resourceNames=passt-binding-cni;iommufd-device-plugin,verbs=get;delete
// +kubebuilder:rbac:groups=cert-manager.io,namespace=kubevirt-hyperconverged,resources=issuers,resourceNames=selfsigned,verbs=get;delete
// +kubebuilder:rbac:groups=cert-manager.io,namespace=kubevirt-hyperconverged,resources=certificates,resourceNames=virt-network-resources-injector-cert,verbs=get;delete
