package main

// The permissions of the stock binary, for controller-gen: hack/generate.sh
// writes config/rbac/role.yaml from the markers here (what the core needs),
// in every operand package (operands/*/rbac.go: what each operand writes)
// and in every extension package (extensions/*/rbac.go). Least privilege,
// no wildcards:
//   - the ClusterRole: what is cluster-scoped or in every namespace: the
//     HyperConverged (one outside the operator namespace is marked ignored)
//     and its CRD (stored versions, by name), Nodes, the
//     CustomResourceDefinitions (their metadata: an operand's API that
//     appears or goes, hco/apis.go), on OpenShift the APIServer
//     configuration (its TLS profile; the Ingress, Network, DNS and
//     descheduler configurations are read by the extensions, read only);
//     the operands' cluster-scoped objects (their packages);
//   - the Role in the operator namespace: Events on the HyperConverged, the
//     leader election Lease, and the operands' namespaced objects (their
//     packages; the extensions' in theirs: upstream's leftovers and
//     cert-manager objects by name, extensions/upgrade); its
//     cache for namespaced kinds is scoped to that namespace
//     (manager.New).
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

// +kubebuilder:rbac:groups=hco.kubevirt.io,resources=hyperconvergeds,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=hco.kubevirt.io,resources=hyperconvergeds/status,verbs=patch
// +kubebuilder:rbac:groups="",resources=nodes,verbs=list;watch
// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions,verbs=list;watch
// +kubebuilder:rbac:groups=config.openshift.io,resources=apiservers,verbs=list;watch
// +kubebuilder:rbac:groups=events.k8s.io,namespace=kubevirt-hyperconverged,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups="",namespace=kubevirt-hyperconverged,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=coordination.k8s.io,namespace=kubevirt-hyperconverged,resources=leases,verbs=create
// +kubebuilder:rbac:groups=coordination.k8s.io,namespace=kubevirt-hyperconverged,resources=leases,resourceNames=hyperconverged-cluster-operator-lock,verbs=get;update
