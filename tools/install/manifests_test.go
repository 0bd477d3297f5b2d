package install

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/rand"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/operands/aie"
	"github.com/hcokit/hcokit/operands/dashboard"
	"github.com/hcokit/hcokit/operands/netresinjector"
	"github.com/hcokit/hcokit/operands/observability"
	"github.com/hcokit/hcokit/operands/stock"
	"github.com/hcokit/hcokit/operands/waspagent"
	"github.com/hcokit/hcokit/tools/install/internal/installtest"
)

// The installs an admin can choose (docs/install.md).
var kustomizations = []string{"default", "overlays/cert-manager"}

func render(t *testing.T, dir, namespace string) []*unstructured.Unstructured {
	t.Helper()
	return renderEdited(t, dir, Edit{Namespace: namespace})
}

func renderEdited(t *testing.T, dir string, edit Edit) []*unstructured.Unstructured {
	t.Helper()
	objs, err := Render(configRoot, dir, edit)
	require.NoError(t, err)
	require.NotEmpty(t, objs)
	return objs
}

// componentOperatorKeys are the kind/name of every object of the component
// operators (config/operators): upstream's, held to upstream's capture
// (TestComponentOperatorsAreUpstreams) rather than to hcokit's own rules.
func componentOperatorKeys(t *testing.T) map[string]bool {
	t.Helper()
	keys := map[string]bool{}
	for _, u := range render(t, "operators", "") {
		keys[u.GetKind()+"/"+u.GetName()] = true
	}
	return keys
}

// own leaves out the component operators' objects: hcokit's own.
func own(t *testing.T, objs []*unstructured.Unstructured) []*unstructured.Unstructured {
	t.Helper()
	keys := componentOperatorKeys(t)
	return slices.DeleteFunc(slices.Clone(objs), func(u *unstructured.Unstructured) bool { return keys[u.GetKind()+"/"+u.GetName()] })
}

// Every object of every install is accepted by the API server as it is
// (strict field validation, dry run: the shared control plane is left as it
// is). cert-manager's kinds are not served here, so they are checked by
// rendering only.
func TestManifestsAreAcceptedByTheAPIServer(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	// The namespaced objects are checked in a namespace of this run's (envtest
	// runs no namespace controller: a deleted one stays terminating).
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "hco-manifests-" + rand.String(5)}}
	require.NoError(t, env.Client.Create(ctx, ns))
	t.Cleanup(func() { _ = env.Client.Delete(ctx, ns) })
	// And ssp-operator, which only the OpenShift install has.
	for _, dir := range append(slices.Clone(kustomizations), "../operands/ssp/operator") {
		for _, u := range render(t, dir, ns.Name) {
			if u.GetKind() == "Namespace" {
				continue
			}
			if strings.HasSuffix(u.GetAPIVersion(), "cert-manager.io/v1") {
				continue
			}
			u := u.DeepCopy()
			err := env.Client.Patch(ctx, u, client.Apply, client.FieldOwner("manifest-test"), client.ForceOwnership, client.DryRunAll,
				client.FieldValidation(metav1.FieldValidationStrict))
			assert.NoError(t, err, "%s: %s %s", dir, u.GetKind(), u.GetName())
		}
	}
}

// Least privilege, on paper: no wildcard verbs, resources, groups or names in
// any role of hcokit's own in any install (tools/install's install test finds
// the unused ones). The component operators' roles are upstream's, wildcards
// and all: TestComponentOperatorsAreUpstreams holds them to that.
func TestRBACHasNoWildcards(t *testing.T) {
	for _, dir := range kustomizations {
		roles := 0
		for _, u := range own(t, render(t, dir, "")) {
			if u.GetKind() != "ClusterRole" && u.GetKind() != "Role" {
				continue
			}
			roles++
			var role rbacv1.ClusterRole
			installtest.Into(t, u, &role)
			require.NotEmpty(t, role.Rules, "%s %s", u.GetKind(), u.GetName())
			for _, r := range role.Rules {
				for _, field := range [][]string{r.Verbs, r.Resources, r.APIGroups, r.ResourceNames, r.NonResourceURLs} {
					assert.NotContains(t, field, "*", "%s: %s %s", dir, u.GetKind(), u.GetName())
				}
			}
		}
		assert.GreaterOrEqual(t, roles, 3, "%s: the operator's and the webhook's roles", dir)
	}
}

// The manifests carry one version: the image tag of both Deployments is the
// operator's HCO_KV_IO_VERSION (make manifests VERSION=x.y.z writes both).
func TestManifestsCarryTheVersion(t *testing.T) {
	for _, dir := range kustomizations {
		objs := render(t, dir, "")
		var op appsv1.Deployment
		installtest.Into(t, installtest.Find(t, objs, "Deployment", "hco-operator"), &op)
		var version string
		for _, e := range op.Spec.Template.Spec.Containers[0].Env {
			if e.Name == "HCO_KV_IO_VERSION" {
				version = e.Value
			}
		}
		require.NotEmpty(t, version, "%s: HCO_KV_IO_VERSION of the operator", dir)
		for _, name := range []string{"hco-operator", "hco-webhook"} {
			var d appsv1.Deployment
			installtest.Into(t, installtest.Find(t, objs, "Deployment", name), &d)
			for _, c := range d.Spec.Template.Spec.Containers {
				assert.Equal(t, "quay.io/hcokit/hco-operator:"+version, c.Image, "%s: %s container %s", dir, name, c.Name)
			}
		}
	}
}

// withoutOperandNames returns u without the resourceNames of its RBAC rules:
// the component CRs' names ("cdi-kubevirt-hyperconverged") carry the
// HyperConverged's name, which is the default namespace's too, and stay.
func withoutOperandNames(u *unstructured.Unstructured) *unstructured.Unstructured {
	rules, ok, _ := unstructured.NestedSlice(u.Object, "rules")
	if !ok || (u.GetKind() != "Role" && u.GetKind() != "ClusterRole") {
		return u
	}
	out := u.DeepCopy()
	for _, r := range rules {
		delete(r.(map[string]any), "resourceNames")
	}
	_ = unstructured.SetNestedSlice(out.Object, rules, "rules")
	return out
}

// defaultNamespaceName matches the default namespace as a name of its own
// ("kubevirt-hyperconverged", "kubevirt-hyperconverged.svc",
// "system:serviceaccount:kubevirt-hyperconverged:…"), not as a part of a
// longer name: upstream's metrics Service and ServiceMonitor are named
// kubevirt-hyperconverged-operator-metrics whatever the namespace.
var defaultNamespaceName = regexp.MustCompile(`(^|[^a-z0-9-])` + regexp.QuoteMeta(defaultNamespace) + `([^a-z0-9-]|$)`)

// A namespace set on the kustomization (kustomize edit set namespace) follows
// into every name and reference: nothing of any install names the default
// namespace any more, and the references that matter name the new one.
func TestNamespaceFollowsEverywhere(t *testing.T) {
	const other = "virt-elsewhere"
	for _, dir := range kustomizations {
		objs := render(t, dir, other)
		for _, u := range objs {
			raw, err := json.Marshal(withoutOperandNames(u).Object)
			require.NoError(t, err)
			assert.NotRegexp(t, defaultNamespaceName, string(raw), "%s: %s %s still names the default namespace", dir, u.GetKind(), u.GetName())
			if ns := u.GetNamespace(); ns != "" {
				assert.Equal(t, other, ns, "%s: %s %s", dir, u.GetKind(), u.GetName())
			}
		}
		installtest.Find(t, objs, "Namespace", other)

		// The webhook's bypass names the operator's service account.
		vwc := installtest.Find(t, objs, "ValidatingWebhookConfiguration", "hco-webhook")
		hooks, _, _ := unstructured.NestedSlice(vwc.Object, "webhooks")
		require.Len(t, hooks, 2)
		conds, _, _ := unstructured.NestedSlice(hooks[0].(map[string]any), "matchConditions")
		require.Len(t, conds, 1)
		assert.Equal(t, "request.userInfo.username != 'system:serviceaccount:"+other+":hco-operator'", conds[0].(map[string]any)["expression"], dir)
		// The namespace guard is sent that namespace's deletion.
		guarded, _, _ := unstructured.NestedString(hooks[1].(map[string]any), "objectSelector", "matchLabels", "kubernetes.io/metadata.name")
		assert.Equal(t, other, guarded, dir)

		// The webhook Service, from both webhook configurations and the CRD's conversion.
		for _, kind := range []string{"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"} {
			hooks, _, _ := unstructured.NestedSlice(installtest.Find(t, objs, kind, "hco-webhook").Object, "webhooks")
			for _, h := range hooks {
				ns, _, _ := unstructured.NestedString(h.(map[string]any), "clientConfig", "service", "namespace")
				assert.Equal(t, other, ns, "%s: %s", dir, kind)
			}
		}
		crd := installtest.Find(t, objs, "CustomResourceDefinition", "hyperconvergeds.hco.kubevirt.io")
		ns, _, _ := unstructured.NestedString(crd.Object, "spec", "conversion", "webhook", "clientConfig", "service", "namespace")
		assert.Equal(t, other, ns, "%s: CRD conversion", dir)

		// Every binding binds the service accounts of the new namespace; the
		// leader election Roles are there.
		for _, u := range objs {
			if u.GetKind() != "RoleBinding" && u.GetKind() != "ClusterRoleBinding" {
				continue
			}
			var b rbacv1.RoleBinding
			installtest.Into(t, u, &b)
			for _, s := range b.Subjects {
				assert.Equal(t, other, s.Namespace, "%s: %s %s subject %s", dir, u.GetKind(), u.GetName(), s.Name)
			}
		}
		assert.Equal(t, other, installtest.Find(t, objs, "Role", "hco-operator").GetNamespace())

		if dir == "overlays/cert-manager" {
			want := other + "/hco-webhook"
			for _, u := range []*unstructured.Unstructured{vwc, installtest.Find(t, objs, "MutatingWebhookConfiguration", "hco-webhook"), crd} {
				assert.Equal(t, want, u.GetAnnotations()["cert-manager.io/inject-ca-from"], "%s: %s", dir, u.GetKind())
			}
			names, _, _ := unstructured.NestedStringSlice(installtest.Find(t, objs, "Certificate", "hco-webhook").Object, "spec", "dnsNames")
			assert.Equal(t, []string{"hco-webhook." + other + ".svc", "hco-webhook." + other + ".svc.cluster.local"}, names)
			names, _, _ = unstructured.NestedStringSlice(installtest.Find(t, objs, "Certificate", "hco-metrics").Object, "spec", "dnsNames")
			assert.Equal(t, []string{"kubevirt-hyperconverged-operator-metrics." + other + ".svc", "kubevirt-hyperconverged-operator-metrics." + other + ".svc.cluster.local",
				"hyperconverged-cluster-webhook-operator-metrics." + other + ".svc", "hyperconverged-cluster-webhook-operator-metrics." + other + ".svc.cluster.local"}, names)
		}
	}
}

// The default install manages its certificates; the cert-manager overlay
// leaves that to cert-manager; both mount the webhook's Secret at its
// default certificate directory, and the metrics Secret (tls.crt and
// tls.key only) in both pods at --metrics-cert-path, which the
// ServiceMonitor's CA comes from.
func TestCertificateMechanisms(t *testing.T) {
	const metricsDir = "/tmp/k8s-metrics-server/metrics-certs"
	mounts := func(d appsv1.Deployment) map[string]string { // mount path → Secret
		out := map[string]string{}
		secrets := map[string]*corev1.SecretVolumeSource{}
		for _, v := range d.Spec.Template.Spec.Volumes {
			secrets[v.Name] = v.Secret
		}
		for _, m := range d.Spec.Template.Spec.Containers[0].VolumeMounts {
			if s := secrets[m.Name]; s != nil {
				out[m.MountPath] = s.SecretName
				if s.SecretName == "hco-metrics-cert" {
					assert.Equal(t, []corev1.KeyToPath{{Key: "tls.crt", Path: "tls.crt"}, {Key: "tls.key", Path: "tls.key"}}, s.Items, "no CA key in the pods")
				}
			}
		}
		return out
	}
	for dir, manage := range map[string]bool{"default": true, "overlays/cert-manager": false} {
		objs := render(t, dir, "")
		var webhook, operator appsv1.Deployment
		installtest.Into(t, installtest.Find(t, objs, "Deployment", "hco-webhook"), &webhook)
		installtest.Into(t, installtest.Find(t, objs, "Deployment", "hco-operator"), &operator)
		c := webhook.Spec.Template.Spec.Containers[0]
		assert.Equal(t, manage, contains(c.Args, "--manage-certs"), "%s: --manage-certs in %v", dir, c.Args)
		assert.Equal(t, manage, contains(c.Args, "--metrics-cert-secret=hco-metrics-cert"), "%s: the metrics certificate managed", dir)
		assert.Equal(t, map[string]string{"/tmp/k8s-webhook-server/serving-certs": "hco-webhook-cert", metricsDir: "hco-metrics-cert"}, mounts(webhook), dir)
		assert.Equal(t, map[string]string{metricsDir: "hco-metrics-cert"}, mounts(operator), dir)
		for _, d := range []appsv1.Deployment{webhook, operator} {
			assert.True(t, contains(d.Spec.Template.Spec.Containers[0].Args, "--metrics-cert-path="+metricsDir), "%s: %s serves metrics with it", dir, d.Name)
		}
		secrets := map[string]bool{}
		for _, u := range objs {
			if u.GetKind() == "Secret" {
				secrets[u.GetName()] = true
			}
		}
		assert.Equal(t, manage, secrets["hco-webhook-cert"] && secrets["hco-metrics-cert"], "%s: the empty Secrets the rotator fills", dir)
		if !manage {
			got, _, _ := unstructured.NestedString(installtest.Find(t, objs, "Certificate", "hco-metrics").Object, "spec", "secretName")
			assert.Equal(t, "hco-metrics-cert", got, dir)
		}
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// components/hpp turns the opt-in hpp operand on in the operator and the
// webhook alike, and grants the HostPathProvisioner only then.
func TestHPPComponent(t *testing.T) {
	hasHPPRule := func(objs []*unstructured.Unstructured) bool {
		for _, u := range objs {
			// The status view's reader roles (bound to no account of the
			// install) list every operand kind, the opt-in ones too.
			if u.GetKind() == "ClusterRole" && !strings.HasPrefix(u.GetName(), "hco-status") {
				var r rbacv1.ClusterRole
				installtest.Into(t, u, &r)
				for _, rule := range r.Rules {
					if contains(rule.Resources, "hostpathprovisioners") {
						return true
					}
				}
			}
		}
		return false
	}
	assert.False(t, hasHPPRule(own(t, render(t, "default", ""))), "the default install does not run hpp and does not grant it to hcokit (hostpath-provisioner-operator is installed, as upstream installs it)")
	objs := renderEdited(t, "default", Edit{Namespace: "virt-elsewhere", Components: []string{"../components/hpp"}})
	assert.True(t, hasHPPRule(own(t, objs)))
	// The operator's defaults stay defaults (SSP a platform default on
	// plain Kubernetes), hpp added; the webhook checks the same operands.
	withHPP := slices.Clone(stock.Default())
	withHPP = slices.Insert(withHPP, slices.Index(withHPP, "ssp")+1, "hpp")
	for name, arg := range map[string]string{
		"hco-operator": "--operands=+hpp",
		"hco-webhook":  "--operands=" + strings.Join(withHPP, ","),
	} {
		var d appsv1.Deployment
		installtest.Into(t, installtest.Find(t, objs, "Deployment", name), &d)
		assert.Contains(t, d.Spec.Template.Spec.Containers[0].Args, arg, name)
	}
	var b rbacv1.ClusterRoleBinding
	installtest.Into(t, installtest.Find(t, objs, "ClusterRoleBinding", "hco-operator-hpp"), &b)
	assert.Equal(t, "virt-elsewhere", b.Subjects[0].Namespace)
}

// config/openshift, applied besides an install on OpenShift, grants the
// operator the dashboards' ConfigMaps in openshift-config-managed (the Role
// operands/dashboard/rbac.go generates) and the Alertmanager's API in
// openshift-monitoring (cmd/hco-operator/silence.go) and nothing else, bound
// to the default install's account; the installs themselves have nothing
// there (plain Kubernetes has no such namespaces).
func TestOpenShiftRBAC(t *testing.T) {
	objs := render(t, "openshift", "")
	namespaces := []string{dashboard.Namespace, "openshift-monitoring"}
	for _, o := range objs {
		if o.GroupVersionKind().Group == rbacv1.GroupName {
			assert.Contains(t, []string{"Role", "RoleBinding"}, o.GetKind(), "%s %s: config/openshift grants nothing else", o.GetKind(), o.GetName())
			assert.Contains(t, namespaces, o.GetNamespace(), "%s %s", o.GetKind(), o.GetName())
		}
	}
	rules := map[string][]rbacv1.PolicyRule{}
	bindings := map[string]rbacv1.RoleBinding{}
	for _, o := range objs {
		switch o.GetKind() {
		case "Role":
			var r rbacv1.Role
			installtest.Into(t, o, &r)
			rules[r.Namespace] = r.Rules
		case "RoleBinding":
			var b rbacv1.RoleBinding
			installtest.Into(t, o, &b)
			bindings[b.Namespace] = b
		}
	}
	assert.Equal(t, map[string][]rbacv1.PolicyRule{
		dashboard.Namespace: {{APIGroups: []string{""}, Resources: []string{"configmaps"},
			Verbs: []string{"create", "delete", "get", "list", "update", "watch"}}},
		"openshift-monitoring": {{APIGroups: []string{"monitoring.coreos.com"}, Resources: []string{"alertmanagers/api"},
			ResourceNames: []string{"main"}, Verbs: []string{"create", "get"}}},
	}, rules)
	var sa corev1.ServiceAccount
	installtest.Into(t, installtest.Find(t, render(t, "default", ""), "ServiceAccount", "hco-operator"), &sa)
	require.Len(t, bindings, len(namespaces))
	for ns, b := range bindings {
		assert.Equal(t, rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "hco-operator"}, b.RoleRef, ns)
		assert.Equal(t, []rbacv1.Subject{{Kind: "ServiceAccount", Name: sa.Name, Namespace: sa.Namespace}}, b.Subjects, ns)
	}
	for _, dir := range kustomizations {
		for _, o := range render(t, dir, "") {
			assert.NotContains(t, namespaces, o.GetNamespace(), "%s: %s %s", dir, o.GetKind(), o.GetName())
		}
	}
}

// components/observability gives the operator the observability
// controller's image and bind on its ClusterRole, which the component
// ships as operands/observability's ClusterRole.
func TestObservabilityComponent(t *testing.T) {
	hasImage := func(objs []*unstructured.Unstructured) string {
		var d appsv1.Deployment
		installtest.Into(t, installtest.Find(t, objs, "Deployment", "hco-operator"), &d)
		for _, e := range d.Spec.Template.Spec.Containers[0].Env {
			if e.Name == "OBSERVABILITY_CONTROLLER_IMAGE" {
				return e.Value
			}
		}
		return ""
	}
	assert.Empty(t, hasImage(render(t, "default", "")), "the default install leaves the observability operand out")
	objs := renderEdited(t, "default", Edit{Namespace: "virt-elsewhere", Components: []string{"../components/observability"}})
	assert.Contains(t, hasImage(objs), "quay.io/kubevirt/virt-observability-controller@sha256:")
	var r rbacv1.ClusterRole
	installtest.Into(t, installtest.Find(t, objs, "ClusterRole", "hco-operator-observability"), &r)
	assert.Equal(t, []rbacv1.PolicyRule{
		{APIGroups: []string{"rbac.authorization.k8s.io"}, Resources: []string{"clusterroles"}, ResourceNames: []string{observability.ObjectName}, Verbs: []string{"bind"}},
		{APIGroups: []string{"rbac.authorization.k8s.io"}, Resources: []string{"clusterrolebindings"}, ResourceNames: []string{observability.ClusterRoleBindingName}, Verbs: []string{"get", "update", "delete"}},
	}, r.Rules, "the operator only binds the controller's ClusterRole")
	assertShipped(t, objs, observability.ClusterRole())
	var b rbacv1.ClusterRoleBinding
	installtest.Into(t, installtest.Find(t, objs, "ClusterRoleBinding", "hco-operator-observability"), &b)
	assert.Equal(t, "virt-elsewhere", b.Subjects[0].Namespace)
}

// Each install's NetworkPolicies select the operator's and the webhook's
// pods and open exactly the ports their containers serve: a port renamed or
// added in a Deployment is not silently closed.
func TestNetworkPoliciesOpenTheServedPorts(t *testing.T) {
	for _, dir := range kustomizations {
		objs := render(t, dir, defaultNamespace)
		served := map[string][]string{} // by pod label app.kubernetes.io/name
		for _, u := range objs {
			if u.GetKind() != "Deployment" {
				continue
			}
			var d appsv1.Deployment
			require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &d))
			name := d.Spec.Template.Labels["app.kubernetes.io/name"]
			for _, c := range d.Spec.Template.Spec.Containers {
				for _, p := range c.Ports {
					served[name] = append(served[name], p.Name)
				}
			}
		}
		policies := 0
		for _, u := range objs {
			if u.GetKind() != "NetworkPolicy" {
				continue
			}
			policies++
			var np networkingv1.NetworkPolicy
			require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &np))
			pods := np.Spec.PodSelector.MatchLabels["app.kubernetes.io/name"]
			require.Contains(t, served, pods, "%s: NetworkPolicy %s selects no Deployment's pods", dir, np.Name)
			var open []string
			for _, rule := range np.Spec.Ingress {
				assert.Empty(t, rule.From, "%s: NetworkPolicy %s: the ports are open to any source (the API server's and Prometheus' addresses are not known here)", dir, np.Name)
				for _, p := range rule.Ports {
					open = append(open, p.Port.String())
				}
			}
			assert.ElementsMatch(t, served[pods], open, "%s: NetworkPolicy %s opens %v, the pods serve %v", dir, np.Name, open, served[pods])
		}
		assert.Equal(t, 2, policies, "%s: one NetworkPolicy for the operator's pods and one for the webhook's", dir)
	}
}

// assertShipped checks that objs hold want, a ClusterRole an operand
// package says the install ships, with its labels and rules.
func assertShipped(t *testing.T, objs []*unstructured.Unstructured, want *rbacv1.ClusterRole) {
	t.Helper()
	var got rbacv1.ClusterRole
	installtest.Into(t, installtest.Find(t, objs, "ClusterRole", want.Name), &got)
	assert.Equal(t, want.Labels, got.Labels, want.Name)
	assert.Equal(t, want.Rules, got.Rules, want.Name)
}

// Every install ships the ClusterRoles of the workloads the operator
// deploys, as the operand packages define them: the operator writes no
// ClusterRole, it binds these.
func TestWorkloadClusterRolesShipped(t *testing.T) {
	for _, dir := range kustomizations {
		objs := render(t, dir, "")
		assertShipped(t, objs, netresinjector.ClusterRole())
		assertShipped(t, objs, aie.ClusterRole())
		assertShipped(t, objs, waspagent.ClusterRole())
	}
}

// The OLM bundle grants the Alertmanager silence's rule cluster-wide (a CSV
// cannot grant a Role in openshift-monitoring): the same rule as
// config/openshift's Role there, which make generate writes from the
// stock binary's marker, bound to the operator's account.
func TestOLMGrantsTheSilencesRule(t *testing.T) {
	var role rbacv1.Role
	for _, o := range render(t, "openshift", "") {
		if o.GetKind() == "Role" && o.GetNamespace() == "openshift-monitoring" {
			installtest.Into(t, o, &role)
		}
	}
	require.NotEmpty(t, role.Rules, "config/openshift's Role in openshift-monitoring")
	olm := render(t, "overlays/olm", "")
	var cr rbacv1.ClusterRole
	installtest.Into(t, installtest.Find(t, olm, "ClusterRole", "hco-operator-alertmanager"), &cr)
	assert.Equal(t, role.Rules, cr.Rules)
	var b rbacv1.ClusterRoleBinding
	installtest.Into(t, installtest.Find(t, olm, "ClusterRoleBinding", "hco-operator-alertmanager"), &b)
	assert.Equal(t, rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: cr.Name}, b.RoleRef)
	assert.Equal(t, []rbacv1.Subject{{Kind: "ServiceAccount", Name: "hco-operator", Namespace: defaultNamespace}}, b.Subjects)
}

// config is config/default, object for object (kubectl apply -k config).
func TestConfigIsDefault(t *testing.T) {
	assert.Equal(t, render(t, "default", ""), render(t, ".", ""))
}

// The OpenShift install is one apply: config/default's objects, each as
// config/default renders it but the three the overlay patches (the one
// Namespace, with the platform's monitoring label and node-selector
// annotation besides config's labels; the webhook, which keeps ssp-operator's
// certificate too and not the network-resources-injector's, and its
// rotator's Role, without that Secret; the Prometheus binding, to the
// platform's Prometheus), but the injector's Secret, which the platform's
// service CA makes there, and ssp-operator's, the virtctl download
// server's, config/openshift's and config/prometheus's objects.
func TestOpenShiftOverlay(t *testing.T) {
	objs := render(t, "overlays/openshift", "")
	byKey := map[string]*unstructured.Unstructured{}
	namespaces := 0
	for _, u := range objs {
		byKey[u.GetKind()+"/"+u.GetNamespace()+"/"+u.GetName()] = u
		if u.GetKind() == "Namespace" {
			namespaces++
		}
	}
	assert.Equal(t, 1, namespaces, "one owner of the Namespace")
	patched := map[string]bool{"Namespace//" + defaultNamespace: true, "Deployment/" + defaultNamespace + "/hco-webhook": true,
		"Role/" + defaultNamespace + "/hco-webhook-certs": true}
	for _, want := range render(t, "default", "") {
		key := want.GetKind() + "/" + want.GetNamespace() + "/" + want.GetName()
		if key == "Secret/"+defaultNamespace+"/virt-network-resources-injector-secret" {
			assert.NotContains(t, byKey, key, "the service CA's on OpenShift")
			continue
		}
		got, ok := byKey[key]
		if !assert.True(t, ok, "%s of config/default is not in the OpenShift install", key) || patched[key] {
			continue
		}
		assert.Equal(t, want.Object, got.Object, "%s differs from config/default's", key)
	}
	for _, dir := range []string{"../operands/ssp/operator", "../operands/clidownload/operator", "openshift", "prometheus"} {
		for _, u := range render(t, dir, "") {
			key := u.GetKind() + "/" + u.GetNamespace() + "/" + u.GetName()
			assert.Contains(t, byKey, key, "%s of %s", key, dir)
		}
	}

	ns := byKey["Namespace//"+defaultNamespace]
	require.NotNil(t, ns)
	assert.Equal(t, map[string]string{"app.kubernetes.io/part-of": "hyperconverged-cluster", "openshift.io/cluster-monitoring": "true",
		"pod-security.kubernetes.io/enforce": "privileged"}, ns.GetLabels())
	assert.Equal(t, map[string]string{"openshift.io/node-selector": ""}, ns.GetAnnotations())

	var webhook appsv1.Deployment
	installtest.Into(t, byKey["Deployment/"+defaultNamespace+"/hco-webhook"], &webhook)
	assert.Contains(t, webhook.Spec.Template.Spec.Containers[0].Args, "--ssp-operator-cert-secret=ssp-operator-service-cert")
	assert.Contains(t, webhook.Spec.Template.Spec.Containers[0].Args, "--manage-certs")
	installtest.Find(t, objs, "Secret", "ssp-operator-service-cert")
	installtest.Find(t, objs, "ValidatingWebhookConfiguration", "vssp.kb.io")

	platform := []rbacv1.Subject{{Kind: "ServiceAccount", Name: "prometheus-k8s", Namespace: "openshift-monitoring"}}
	var binding rbacv1.ClusterRoleBinding
	installtest.Into(t, installtest.Find(t, objs, "ClusterRoleBinding", "hco-metrics-reader-prometheus"), &binding)
	assert.Equal(t, platform, binding.Subjects)
	var roleBinding rbacv1.RoleBinding
	installtest.Into(t, installtest.Find(t, objs, "RoleBinding", "hyperconverged-cluster-operator-metrics"), &roleBinding)
	assert.Equal(t, platform, roleBinding.Subjects)
}

// config/prometheus has upstream HCO's names (controllers/alerts and
// controllers/webhooks/bearer-token-controller at 03da3cf): a ServiceMonitor
// per metrics Service, each named as the one Service of the install it
// selects, by a port that Service has, verifying the certificate for that
// Service's DNS name, which the metrics certificate covers; and upstream's
// Role and RoleBinding for Prometheus, which bind the subject the
// ClusterRoleBinding binds.
func TestPrometheusObjectsAreUpstreamsAndSelectTheMetricsServices(t *testing.T) {
	objs := render(t, "default", "")
	var certificate struct {
		Spec struct {
			DNSNames []string `json:"dnsNames"`
		} `json:"spec"`
	}
	installtest.Into(t, installtest.Find(t, render(t, "overlays/cert-manager", ""), "Certificate", "hco-metrics"), &certificate)
	monitored := map[string]bool{}
	for _, u := range render(t, "prometheus", "") {
		if u.GetKind() != "ServiceMonitor" {
			continue
		}
		var sm struct {
			Spec struct {
				Selector  metav1.LabelSelector `json:"selector"`
				Endpoints []struct {
					Port      string `json:"port"`
					TLSConfig struct {
						ServerName string `json:"serverName"`
					} `json:"tlsConfig"`
				} `json:"endpoints"`
			} `json:"spec"`
		}
		installtest.Into(t, u, &sm)
		selector, err := metav1.LabelSelectorAsSelector(&sm.Spec.Selector)
		require.NoError(t, err)
		var selected []corev1.Service
		for _, o := range objs {
			if o.GetKind() == "Service" && o.GetNamespace() == u.GetNamespace() && selector.Matches(labels.Set(o.GetLabels())) {
				var s corev1.Service
				installtest.Into(t, o, &s)
				selected = append(selected, s)
			}
		}
		if !assert.Len(t, selected, 1, "ServiceMonitor %s selects one Service", u.GetName()) {
			continue
		}
		svc := selected[0]
		monitored[svc.Name] = true
		assert.Equal(t, svc.Name, u.GetName(), "ServiceMonitor %s is named as the Service it selects, as upstream's", u.GetName())
		require.Len(t, sm.Spec.Endpoints, 1, u.GetName())
		e := sm.Spec.Endpoints[0]
		assert.True(t, slices.ContainsFunc(svc.Spec.Ports, func(p corev1.ServicePort) bool { return p.Name == e.Port }), "ServiceMonitor %s: port %s not in Service %s", u.GetName(), e.Port, svc.Name)
		assert.Equal(t, svc.Name+"."+svc.Namespace+".svc", e.TLSConfig.ServerName, u.GetName())
		assert.Contains(t, certificate.Spec.DNSNames, e.TLSConfig.ServerName, "the metrics certificate covers %s", e.TLSConfig.ServerName)
	}
	assert.Equal(t, map[string]bool{"kubevirt-hyperconverged-operator-metrics": true, "hyperconverged-cluster-webhook-operator-metrics": true}, monitored,
		"upstream's operator and webhook metrics Services, each monitored")

	prometheus := render(t, "prometheus", "")
	var role rbacv1.Role
	installtest.Into(t, installtest.Find(t, prometheus, "Role", "hyperconverged-cluster-operator-metrics"), &role)
	assert.Equal(t, []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"services", "endpoints", "pods"}, Verbs: []string{"get", "list", "watch"}}}, role.Rules, "upstream's rule")
	var roleBinding rbacv1.RoleBinding
	installtest.Into(t, installtest.Find(t, prometheus, "RoleBinding", "hyperconverged-cluster-operator-metrics"), &roleBinding)
	assert.Equal(t, rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name}, roleBinding.RoleRef)
	var binding rbacv1.ClusterRoleBinding
	installtest.Into(t, installtest.Find(t, prometheus, "ClusterRoleBinding", "hco-metrics-reader-prometheus"), &binding)
	assert.Equal(t, binding.Subjects, roleBinding.Subjects, "the Prometheus that may scrape may find the endpoints")
}

// hcokit's pods mount only the serving certificate and key of the Secrets
// its rotators keep (which also hold each CA's key): a compromised webhook
// or operator pod reads no CA key.
func TestPodsMountNoCAKey(t *testing.T) {
	for _, dir := range kustomizations {
		for _, name := range []string{"hco-webhook", "hco-operator"} {
			var d appsv1.Deployment
			installtest.Into(t, installtest.Find(t, render(t, dir, ""), "Deployment", name), &d)
			for _, v := range d.Spec.Template.Spec.Volumes {
				if v.Secret == nil {
					continue
				}
				var keys []string
				for _, i := range v.Secret.Items {
					keys = append(keys, i.Key)
				}
				assert.ElementsMatch(t, []string{"tls.crt", "tls.key"}, keys, "%s: %s's volume %s (Secret %s)", dir, name, v.Name, v.Secret.SecretName)
			}
		}
	}
}

// The namespace's Pod Security level is privileged, said in every install
// (a stricter cluster default would refuse the privileged workloads), and
// no stricter level would do: the API server's Pod Security admission
// refuses the wasp agent's pod at baseline and admits it in the installed
// namespace.
func TestNamespacePodSecurity(t *testing.T) {
	for _, dir := range append(slices.Clone(kustomizations), "overlays/openshift") {
		ns := installtest.Find(t, render(t, dir, ""), "Namespace", "kubevirt-hyperconverged")
		assert.Equal(t, "privileged", ns.GetLabels()["pod-security.kubernetes.io/enforce"], dir)
	}
	env.Require(t)
	ctx := context.Background()
	installed := installtest.Find(t, render(t, "default", "hco-pod-security"), "Namespace", "hco-pod-security")
	baseline := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "hco-pod-security-baseline",
		Labels: map[string]string{"pod-security.kubernetes.io/enforce": "baseline"}}}
	var pod corev1.Pod
	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName}}
	for what, ns := range map[string]client.Object{"the installed namespace": installed, "a baseline namespace": baseline} {
		existing := &corev1.Namespace{}
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(ns), existing); apierrors.IsNotFound(err) {
			require.NoError(t, env.Client.Create(ctx, ns.DeepCopyObject().(client.Object)), what)
		}
		sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: waspagent.ServiceAccountName, Namespace: ns.GetName()}}
		require.NoError(t, client.IgnoreAlreadyExists(env.Client.Create(ctx, sa)))
		hc.Namespace = ns.GetName()
		ds := waspagent.BuildDaemonSet(hc, hco.Facts{Environment: hco.Environment{Namespace: ns.GetName()}}, "quay.io/openshift-virtualization/wasp-agent:test")
		pod = corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "wasp-agent", Namespace: ns.GetName()}, Spec: ds.Spec.Template.Spec}
		err := env.Client.Create(ctx, &pod, client.DryRunAll)
		if ns == installed {
			assert.NoError(t, err, what)
		} else {
			assert.True(t, apierrors.IsForbidden(err), "%s: %v", what, err)
			if err != nil {
				assert.Contains(t, err.Error(), "violates PodSecurity", what)
			}
		}
	}
}
