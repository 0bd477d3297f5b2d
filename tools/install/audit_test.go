package install

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// request is one API request of the audit log, as the authorizer saw it.
type request struct {
	user, group, resource, verb, namespace, name string
	forbidden                                    bool
}

func (r request) String() string {
	return fmt.Sprintf("%s %s in %q name %q", r.verb, groupResource(r.group, r.resource), r.namespace, r.name)
}

func groupResource(group, resource string) string {
	if group == "" {
		return resource
	}
	return group + "/" + resource
}

// requestsOf reads the audit log and returns the resource requests of users.
func requestsOf(t *testing.T, path string, users ...string) []request {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out []request
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e struct {
			Stage string `json:"stage"`
			Verb  string `json:"verb"`
			User  struct {
				Username string `json:"username"`
			} `json:"user"`
			ObjectRef *struct {
				APIGroup    string `json:"apiGroup"`
				Resource    string `json:"resource"`
				Subresource string `json:"subresource"`
				Namespace   string `json:"namespace"`
				Name        string `json:"name"`
			} `json:"objectRef"`
			Annotations map[string]string `json:"annotations"`
		}
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.ObjectRef == nil || !slices.Contains(users, e.User.Username) {
			continue
		}
		if e.Stage != "ResponseComplete" && e.Stage != "ResponseStarted" && e.Stage != "Panic" {
			continue
		}
		resource := e.ObjectRef.Resource
		if e.ObjectRef.Subresource != "" {
			resource += "/" + e.ObjectRef.Subresource
		}
		out = append(out, request{
			user: e.User.Username, group: e.ObjectRef.APIGroup, resource: resource, verb: e.Verb,
			namespace: e.ObjectRef.Namespace, name: e.ObjectRef.Name,
			forbidden: e.Annotations["authorization.k8s.io/decision"] == "forbid",
		})
	}
	require.NoError(t, sc.Err())
	return out
}

// grant is one verb on one resource that a role gives a service account.
type grant struct {
	role      string // Kind/name
	namespace string // "" for a ClusterRole bound cluster-wide
	group     string
	resource  string
	verb      string
	names     []string
}

func (g grant) String() string {
	s := fmt.Sprintf("%s: %s %s", g.role, g.verb, groupResource(g.group, g.resource))
	if g.namespace != "" {
		s += " in " + g.namespace
	}
	if len(g.names) > 0 {
		s += " named " + strings.Join(g.names, ",")
	}
	return s
}

// grantsOf expands the rules bound to the service account ns/sa in the
// rendered manifests into one grant per group, resource and verb.
func grantsOf(t *testing.T, objs []*unstructured.Unstructured, ns, sa string) []grant {
	t.Helper()
	roles := map[string]rbacv1.ClusterRole{}
	for _, u := range objs {
		if u.GetKind() == "Role" || u.GetKind() == "ClusterRole" {
			var r rbacv1.ClusterRole
			into(t, u, &r)
			roles[u.GetKind()+"/"+u.GetNamespace()+"/"+u.GetName()] = r
		}
	}
	var out []grant
	for _, u := range objs {
		if u.GetKind() != "RoleBinding" && u.GetKind() != "ClusterRoleBinding" {
			continue
		}
		var b rbacv1.RoleBinding
		into(t, u, &b)
		if !slices.ContainsFunc(b.Subjects, func(s rbacv1.Subject) bool {
			return s.Kind == "ServiceAccount" && s.Namespace == ns && s.Name == sa
		}) {
			continue
		}
		key := b.RoleRef.Kind + "/" + b.Namespace + "/" + b.RoleRef.Name
		if b.RoleRef.Kind == "ClusterRole" {
			key = "ClusterRole//" + b.RoleRef.Name
		}
		role, ok := roles[key]
		require.True(t, ok, "%s %s binds %s, which the manifests do not have", u.GetKind(), u.GetName(), key)
		for _, r := range role.Rules {
			for _, g := range r.APIGroups {
				for _, res := range r.Resources {
					for _, v := range r.Verbs {
						out = append(out, grant{role: b.RoleRef.Kind + "/" + b.RoleRef.Name, namespace: b.Namespace, group: g, resource: res, verb: v, names: r.ResourceNames})
					}
				}
			}
		}
	}
	return out
}

// usedBy reports whether one of the allowed requests exercised g. An
// informer's streaming list is a watch (sendInitialEvents): it stands for the
// list the informer falls back to on a server without it.
func (g grant) usedBy(reqs []request) bool {
	for _, r := range reqs {
		if r.forbidden || r.group != g.group || r.resource != g.resource {
			continue
		}
		if r.verb != g.verb && (g.verb != "list" || r.verb != "watch") {
			continue
		}
		if g.namespace != "" && r.namespace != g.namespace {
			continue
		}
		if len(g.names) > 0 && !slices.Contains(g.names, r.name) {
			continue
		}
		return true
	}
	return false
}

// summary lists the distinct requests, sorted, for the test log.
func summary(reqs []request) string {
	seen := map[string]bool{}
	var lines []string
	for _, r := range reqs {
		s := r.String()
		if r.forbidden {
			s += " FORBIDDEN"
		}
		if !seen[s] {
			seen[s] = true
			lines = append(lines, s)
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// neededUnexercised names the grants the code needs on paths this test does
// not take, and why; every other grant must be used.
func neededUnexercised(sa string, g grant) (string, bool) {
	switch {
	case sa == "hco-operator" && g.verb == "get" && g.group == "hco.kubevirt.io" && g.resource == "hyperconvergeds":
		return "after a failed write, hco checks past the cache that the HyperConverged still exists (Reconciler.deletedMeanwhile)", true
	case sa == "hco-operator" && g.group == "config.openshift.io" && (g.resource == "networks" || g.resource == "dnses"):
		return "read only on OpenShift, where the Network and DNS configurations give platform facts (the IP stack, single-stack IPv6, the base DNS domain); the test cluster has no such kind", true
	case g.group == "operators.coreos.com" && (g.resource == "operatorconditions" || g.resource == "clusterserviceversions"):
		return "the operator's OperatorCondition and CSV annotation, kept under OLM only (OPERATOR_CONDITION_NAME set); this install is not OLM's", true
	case sa == "hco-operator" && g.group == "rbac.authorization.k8s.io" && (g.resource == "roles" || g.resource == "rolebindings"):
		return "the console plugin's and virtio-win's Roles and RoleBindings, made on OpenShift only (operands/consoleplugin, operands/virtiowin); the test cluster is not OpenShift", true
	case sa == "hco-operator" && (g.group == "security.openshift.io" || g.resource == "daemonsets" ||
		(g.resource == "clusterrolebindings" && slices.Equal(g.names, []string{"wasp-cluster"}))):
		return "the wasp agent's SecurityContextConstraints, DaemonSet and binding, made on OpenShift only while memory is overcommitted (operands/waspagent); the test cluster is not OpenShift", true
	case sa == "hco-operator" && g.group == "perses.dev":
		return "the Perses dashboards and datasource, made on OpenShift only, where the Perses CRDs are served (operands/perses); the test cluster is neither", true
	case sa == "hco-operator" && g.group == "image.openshift.io" && g.resource == "imagestreams":
		return "the golden images' ImageStreams, made on OpenShift only, of the files --imagestream-dir gives (operands/imagestream); the test cluster is not OpenShift, and the image has none", true
	case sa == "hco-operator" && g.group == "networking.k8s.io" && g.resource == "networkpolicies":
		return "the console plugin's NetworkPolicies, made on OpenShift only (operands/consoleplugin); the test cluster is not OpenShift", true
	case sa == "hco-operator" && g.group == "operator.openshift.io" && g.resource == "consoles":
		return "the console plugin's name in the Console configuration, on OpenShift only (hco.ListMember); the test cluster is not OpenShift", true
	case sa == "hco-operator" && g.resource == "configmaps" && g.verb == "patch" && slices.Equal(g.names, []string{"kubevirt-user-settings"}):
		return "never used: held so that the operator may write and bind the console plugin's config-reader Role, which grants it (no escalate, no bind)", true
	case g.group == "route.openshift.io" || g.group == "console.openshift.io":
		return "the virtctl download's Route and ConsoleCLIDownload, the console plugin's ConsolePlugin and the ConsoleQuickStarts, made on OpenShift only (operands/clidownload, operands/consoleplugin, operands/quickstart); the test cluster is not OpenShift", true
	case g.group == "config.openshift.io" && (g.resource == "ingresses" || g.resource == "ingresses/status" || g.resource == "networks" || g.resource == "dnses"):
		return "read only on OpenShift (ClusterVersion served), where the Ingress configuration gives the platform facts; the test cluster is not OpenShift", true
	case g.group == "config.openshift.io" && g.resource == "apiservers":
		return "read only on OpenShift, where the APIServer configuration (the cluster's TLS profile) is served; the test cluster has no such kind", true
	case sa == "hco-operator" && g.group == "aaq.kubevirt.io" && g.resource == "aaqs" && g.verb != "list" && g.verb != "watch":
		return "the AAQ is made only when spec.deployment.applicationAwareConfig.enable is set, which the install's HyperConverged does not set (upstream's default)", true
	case g.verb == "bind" && g.resource == "clusterroles":
		return "not a request: the API server checks it when the operator writes a ClusterRoleBinding of that ClusterRole (this run's bindings pass only with it: the operator holds none of what those ClusterRoles grant)", true
	case sa == "hco-operator" && g.group == "operator.openshift.io" && g.resource == "kubedeschedulers":
		return "watched only while OpenShift's descheduler CRD exists (kubevirt_hco_misconfigured_descheduler); the test cluster has none", true
	case sa == "hco-operator" && g.group == "cert-manager.io":
		return "upstream HCO's cert-manager Issuer and Certificate of the injector, read and deleted once per start only where their CRDs exist (the switch from upstream); the test cluster has none", true
	case g.resource == "events" && g.verb == "patch":
		return "an Event that repeats is patched (its count or series)", true
	case sa == "hco-operator" && len(g.names) > 0 && !slices.ContainsFunc(g.names, func(n string) bool {
		return n != "passt-binding-cni" && n != "iommufd-device-plugin" && n != "primary-udn-kubevirt-binding"
	}):
		return "upstream's leftovers, read and deleted only when upgrading from an upstream version that made them (hco/upgradepatches.go); this install is no such upgrade", true
	}
	return "", false
}
