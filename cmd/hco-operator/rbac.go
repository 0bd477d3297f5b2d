package main

// The permissions of the stock binary, for controller-gen (hack/generate.sh
// writes config/rbac/role.yaml from them). Least privilege, no wildcards:
//   - the ClusterRole: what is cluster-scoped or in every namespace: the
//     HyperConverged (one outside the operator namespace is marked ignored),
//     the cluster-scoped operand objects (CDI, NetworkAddonsConfig, AAQ, the
//     PriorityClass kubevirt-cluster-critical, the namespace policy and its
//     binding, the workloads' ClusterRoleBindings and
//     MutatingWebhookConfigurations), Nodes, the
//     CustomResourceDefinitions (their metadata: an operand's API that
//     appears or goes, hco/apis.go) and,
//     on OpenShift, the APIServer configuration (its TLS profile) (read
//     only); the opt-in hpp operand's HostPathProvisioner is granted
//     by config/components/hpp, which turns it on;
//   - the Role in the operator namespace: the namespaced objects the operator
//     manages there only (the KubeVirt, SSP, MigController and
//     FileRestoreOperator CRs, the CLI download
//     Deployment and Service, the network-resources-injector's
//     ServiceAccount, Service, Deployment and PodDisruptionBudget, the AIE
//     webhook's objects and launcher ConfigMap), Events
//     on the HyperConverged and the leader election Lease; its cache for namespaced kinds is scoped to that
//     namespace (hco.NewManager).
// The ClusterRoles of the workloads it deploys (the injector's, the AIE
// webhook's; the observability controller's with its component) are the
// install's (config/rbac/operand_roles.yaml): writing one would need
// holding what it grants (every ConfigMap, NetworkAttachmentDefinition and
// VirtualMachineInstance of the cluster), while binding one needs only bind
// on it, by name. The operator writes no ClusterRole, and its bindings are
// pinned by config/guard to each workload's own service account.
// The webhook's own permissions are in config/webhook/rbac.yaml and
// config/certs/rbac.yaml. tools/install runs both under these grants and
// fails for a missing one and for one never used.

// Verbs: operand objects are read from the cache (list, watch), and past
// it (get) only when a create finds one whose labels were edited; they are
// created, updated and deleted, never patched. A cluster-scoped kind whose
// names are fixed is granted get, update and delete of those names only
// (RBAC cannot limit list, watch or create by name; config/guard's
// admission policy limits create), so that the operator's account cannot
// change or delete anybody else's object of the kind: a webhook, a
// PriorityClass, an admission policy (which no admission policy guards).
// TestRBACNamesTheOperandObjects checks the names against what the stock
// operands build. The HyperConverged is patched
// (finalizer, metadata) and its status patched; get is the check past the
// cache that it still exists. Events are created, and patched when they
// repeat. The Lease is what leader election uses.

// The HyperConverged CRD read at start, and its storedVersions set once
// every HyperConverged is stored as v1 (hco.MigrateStoredVersions, which
// patches the HyperConvergeds: the patch above).

// Upstream's leftovers (hco/upgradepatches.go), by name: read and deleted
// once, when upgrading from an upstream version that made them.
// +kubebuilder:rbac:groups=apps,namespace=kubevirt-hyperconverged,resources=daemonsets,resourceNames=passt-binding-cni;iommufd-device-plugin,verbs=get;delete
// +kubebuilder:rbac:groups=k8s.cni.cncf.io,resources=network-attachment-definitions,resourceNames=primary-udn-kubevirt-binding,verbs=delete
// +kubebuilder:rbac:groups=security.openshift.io,resources=securitycontextconstraints,resourceNames=passt-binding-cni;iommufd-device-plugin,verbs=get;delete
// +kubebuilder:rbac:groups=hco.kubevirt.io,resources=hyperconvergeds,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=hco.kubevirt.io,resources=hyperconvergeds/status,verbs=patch
// +kubebuilder:rbac:groups=cdi.kubevirt.io,resources=cdis,verbs=list;watch;create
// +kubebuilder:rbac:groups=cdi.kubevirt.io,resources=cdis,resourceNames=cdi-kubevirt-hyperconverged,verbs=get;update;delete
// +kubebuilder:rbac:groups=networkaddonsoperator.network.kubevirt.io,resources=networkaddonsconfigs,verbs=list;watch;create
// +kubebuilder:rbac:groups=networkaddonsoperator.network.kubevirt.io,resources=networkaddonsconfigs,resourceNames=cluster,verbs=get;update;delete
// +kubebuilder:rbac:groups=aaq.kubevirt.io,resources=aaqs,verbs=list;watch;create
// +kubebuilder:rbac:groups=aaq.kubevirt.io,resources=aaqs,resourceNames=aaq-kubevirt-hyperconverged,verbs=get;update;delete
// +kubebuilder:rbac:groups=scheduling.k8s.io,resources=priorityclasses,verbs=list;watch;create
// +kubebuilder:rbac:groups=scheduling.k8s.io,resources=priorityclasses,resourceNames=kubevirt-cluster-critical,verbs=get;update;delete
// +kubebuilder:rbac:groups=admissionregistration.k8s.io,resources=validatingadmissionpolicies;validatingadmissionpolicybindings,verbs=list;watch;create
// +kubebuilder:rbac:groups=admissionregistration.k8s.io,resources=validatingadmissionpolicies,resourceNames=hyperconverged-namespace-policy,verbs=get;update;delete
// +kubebuilder:rbac:groups=admissionregistration.k8s.io,resources=validatingadmissionpolicybindings,resourceNames=hyperconverged-namespace-policy-binding,verbs=get;update;delete
// +kubebuilder:rbac:groups="",namespace=kubevirt-hyperconverged,resources=configmaps,verbs=get;list;watch;create;update;delete
// +kubebuilder:rbac:groups=admissionregistration.k8s.io,resources=mutatingwebhookconfigurations,verbs=list;watch;create
// +kubebuilder:rbac:groups=admissionregistration.k8s.io,resources=mutatingwebhookconfigurations,resourceNames=virt-network-resources-injector-config;kubevirt-aie-webhook,verbs=get;update;delete
// +kubebuilder:rbac:groups="",resources=nodes,verbs=list;watch
// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions,verbs=list;watch
// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions,resourceNames=hyperconvergeds.hco.kubevirt.io,verbs=get
// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions/status,resourceNames=hyperconvergeds.hco.kubevirt.io,verbs=patch
// +kubebuilder:rbac:groups=rbac.authorization.k8s.io,resources=clusterrolebindings,verbs=list;watch;create
// +kubebuilder:rbac:groups=rbac.authorization.k8s.io,resources=clusterroles,resourceNames=virt-network-resources-injector;kubevirt-aie-webhook,verbs=bind
// +kubebuilder:rbac:groups=rbac.authorization.k8s.io,resources=clusterrolebindings,resourceNames=virt-network-resources-injector-role-binding;kubevirt-aie-webhook;virt-observability-controller-rolebinding,verbs=get;update;delete
// +kubebuilder:rbac:groups="",namespace=kubevirt-hyperconverged,resources=serviceaccounts,verbs=get;list;watch;create;update;delete
// +kubebuilder:rbac:groups=config.openshift.io,resources=apiservers,verbs=list;watch
// +kubebuilder:rbac:groups=config.openshift.io,resources=networks,resourceNames=cluster,verbs=get
// +kubebuilder:rbac:groups=operator.openshift.io,resources=kubedeschedulers,resourceNames=cluster,verbs=list;watch
// +kubebuilder:rbac:groups=cert-manager.io,namespace=kubevirt-hyperconverged,resources=issuers,resourceNames=selfsigned,verbs=get;delete
// +kubebuilder:rbac:groups=cert-manager.io,namespace=kubevirt-hyperconverged,resources=certificates,resourceNames=virt-network-resources-injector-cert,verbs=get;delete
// +kubebuilder:rbac:groups=kubevirt.io,namespace=kubevirt-hyperconverged,resources=kubevirts,verbs=get;list;watch;create;update;delete
// +kubebuilder:rbac:groups=ssp.kubevirt.io,namespace=kubevirt-hyperconverged,resources=ssps,verbs=get;list;watch;create;update;delete
// +kubebuilder:rbac:groups=migrations.kubevirt.io,namespace=kubevirt-hyperconverged,resources=migcontrollers,verbs=get;list;watch;create;update;delete
// +kubebuilder:rbac:groups=filerestore.kubevirt.io,namespace=kubevirt-hyperconverged,resources=filerestoreoperators,verbs=get;list;watch;create;update;delete
// +kubebuilder:rbac:groups=apps,namespace=kubevirt-hyperconverged,resources=deployments,verbs=get;list;watch;create;update;delete
// +kubebuilder:rbac:groups="",namespace=kubevirt-hyperconverged,resources=services;serviceaccounts,verbs=get;list;watch;create;update;delete
// +kubebuilder:rbac:groups=policy,namespace=kubevirt-hyperconverged,resources=poddisruptionbudgets,verbs=get;list;watch;create;update;delete
// +kubebuilder:rbac:groups=events.k8s.io,namespace=kubevirt-hyperconverged,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups="",namespace=kubevirt-hyperconverged,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=coordination.k8s.io,namespace=kubevirt-hyperconverged,resources=leases,verbs=create
// +kubebuilder:rbac:groups=coordination.k8s.io,namespace=kubevirt-hyperconverged,resources=leases,resourceNames=hyperconverged-cluster-operator-lock,verbs=get;update
