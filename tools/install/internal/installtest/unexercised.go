package installtest

import "slices"

// Unexercised is why the install on plain Kubernetes (tools/install's
// TestInstall) does not use a grant the code needs.
type Unexercised struct {
	// Why names the path the grant is needed on, and why the test does
	// not take it.
	Why string
	// OpenShift: the path is taken on OpenShift only (an OpenShift kind
	// served, ClusterVersion making the operator see OpenShift), which
	// tools/install/openshift's install takes: there the grant must be used.
	OpenShift bool
}

// UnexercisedOnKubernetes says whether the service account sa needs grant
// g on a path the install on plain Kubernetes does not take, and why; every
// other grant must be used there.
func UnexercisedOnKubernetes(sa string, g Grant) (Unexercised, bool) {
	notOpenShift := func(why string) (Unexercised, bool) { return Unexercised{Why: why, OpenShift: true}, true }
	elsewhere := func(why string) (Unexercised, bool) { return Unexercised{Why: why}, true }
	switch {
	// First: named leftovers of kinds (SecurityContextConstraints,
	// DaemonSets) whose other grants OpenShift's path uses.
	case sa == "hco-operator" && len(g.Names) > 0 && !slices.ContainsFunc(g.Names, func(n string) bool {
		return n != "passt-binding-cni" && n != "iommufd-device-plugin" && n != "primary-udn-kubevirt-binding"
	}):
		return elsewhere("upstream's leftovers, read and deleted only when upgrading from an upstream version that made them (extensions/upgrade/patches.go); this install is no such upgrade")
	case sa == "hco-operator" && g.Verb == "get" && g.Group == "hco.kubevirt.io" && g.Resource == "hyperconvergeds":
		return elsewhere("after a failed write, hco checks past the cache that the HyperConverged still exists (Reconciler.deletedMeanwhile)")
	case sa == "hco-operator" && g.Group == "config.openshift.io" && (g.Resource == "networks" || g.Resource == "dnses"):
		return notOpenShift("read only on OpenShift, where the Network and DNS configurations give platform facts (the IP stack, single-stack IPv6, the base DNS domain); the test cluster has no such kind")
	case g.Group == "operators.coreos.com" && (g.Resource == "operatorconditions" || g.Resource == "clusterserviceversions"):
		return elsewhere("the operator's OperatorCondition and CSV annotation, kept under OLM only (OPERATOR_CONDITION_NAME set); this install is not OLM's")
	case sa == "hco-operator" && g.Group == "rbac.authorization.k8s.io" && (g.Resource == "roles" || g.Resource == "rolebindings"):
		return notOpenShift("the console plugin's and virtio-win's Roles and RoleBindings, made on OpenShift only (operands/consoleplugin, operands/virtiowin); the test cluster is not OpenShift")
	case sa == "hco-operator" && (g.Group == "security.openshift.io" || g.Resource == "daemonsets" ||
		(g.Resource == "clusterrolebindings" && slices.Equal(g.Names, []string{"wasp-cluster"}))):
		return notOpenShift("the wasp agent's SecurityContextConstraints, DaemonSet and binding, made on OpenShift only while memory is overcommitted (operands/waspagent); the test cluster is not OpenShift")
	case sa == "hco-operator" && g.Group == "perses.dev":
		return notOpenShift("the Perses dashboards and datasource, made on OpenShift only, where the Perses CRDs are served (operands/perses); the test cluster is neither")
	case sa == "hco-operator" && g.Group == "image.openshift.io" && g.Resource == "imagestreams":
		return notOpenShift("the golden images' ImageStreams, made on OpenShift only, of the files --imagestream-dir gives (operands/imagestream); the test cluster is not OpenShift, and the image has none")
	case sa == "hco-operator" && g.Group == "networking.k8s.io" && g.Resource == "networkpolicies":
		return notOpenShift("the console plugin's NetworkPolicies, made on OpenShift only (operands/consoleplugin); the test cluster is not OpenShift")
	case sa == "hco-operator" && g.Group == "operator.openshift.io" && g.Resource == "consoles":
		return notOpenShift("the console plugin's name in the Console configuration, on OpenShift only (hco.ListMember); the test cluster is not OpenShift")
	case sa == "hco-operator" && g.Resource == "configmaps" && g.Verb == "patch" && slices.Equal(g.Names, []string{"kubevirt-user-settings"}):
		return elsewhere("never used: held so that the operator may write and bind the console plugin's config-reader Role, which grants it (no escalate, no bind)")
	case g.Group == "route.openshift.io" || g.Group == "console.openshift.io":
		return notOpenShift("the virtctl download's Route and ConsoleCLIDownload, the console plugin's ConsolePlugin and the ConsoleQuickStarts, made on OpenShift only (operands/clidownload, operands/consoleplugin, operands/quickstart); the test cluster is not OpenShift")
	case g.Group == "config.openshift.io" && (g.Resource == "ingresses" || g.Resource == "ingresses/status" || g.Resource == "networks" || g.Resource == "dnses"):
		return notOpenShift("read only on OpenShift (ClusterVersion served), where the Ingress configuration gives the platform facts; the test cluster is not OpenShift")
	case g.Group == "config.openshift.io" && g.Resource == "apiservers":
		return notOpenShift("read only on OpenShift, where the APIServer configuration (the cluster's TLS profile) is served; the test cluster has no such kind")
	case sa == "hco-operator" && g.Group == "aaq.kubevirt.io" && g.Resource == "aaqs" && g.Verb != "list" && g.Verb != "watch":
		return elsewhere("the AAQ is made only when spec.deployment.applicationAwareConfig.enable is set, which the install's HyperConverged does not set (upstream's default)")
	case g.Verb == "bind" && g.Resource == "clusterroles":
		return elsewhere("not a request: the API server checks it when the operator writes a ClusterRoleBinding of that ClusterRole (this run's bindings pass only with it: the operator holds none of what those ClusterRoles grant)")
	case sa == "hco-operator" && g.Group == "operator.openshift.io" && g.Resource == "kubedeschedulers":
		return notOpenShift("watched only while OpenShift's descheduler CRD exists (kubevirt_hco_misconfigured_descheduler); the test cluster has none")
	case sa == "hco-operator" && g.Group == "cert-manager.io":
		return elsewhere("upstream HCO's cert-manager Issuer and Certificate of the injector, read and deleted once per start only where their CRDs exist (the switch from upstream); the test cluster has none")
	case g.Resource == "events" && g.Verb == "patch":
		return elsewhere("an Event that repeats is patched (its count or series)")
	}
	return Unexercised{}, false
}
