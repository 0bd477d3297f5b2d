package install

import (
	"context"
	"fmt"
	"strings"
	"testing"

	consolev1 "github.com/openshift/api/console/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/operands/aie"
	"github.com/hcokit/hcokit/operands/clidownload"
	"github.com/hcokit/hcokit/operands/consoleplugin"
	"github.com/hcokit/hcokit/operands/dashboard"
	"github.com/hcokit/hcokit/operands/netresinjector"
	"github.com/hcokit/hcokit/operands/observability"
	"github.com/hcokit/hcokit/operands/priorityclass"
	"github.com/hcokit/hcokit/operands/quickstart"
	"github.com/hcokit/hcokit/operands/virtiowin"
	"github.com/hcokit/hcokit/operands/waspagent"
	"github.com/hcokit/hcokit/tools/install/internal/installtest"
)

// scc is the wasp agent's SecurityContextConstraints as the operator
// builds them for a HyperConverged in namespace hco-guard, named name, for
// users (nil: the agent's service account, as built).
func scc(t *testing.T, name string, users []string) client.Object {
	t.Helper()
	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: "hco-guard"}}
	obj := waspagent.BuildSCC(hc, hco.Environment{})
	obj.Name = name
	if users != nil {
		obj.Users = users
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	require.NoError(t, err)
	return &unstructured.Unstructured{Object: m}
}

// imageStream is an ImageStream in namespace, labelled managed-by labelled.
func imageStream(name, namespace, labelled string) client.Object {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("image.openshift.io/v1")
	u.SetKind("ImageStream")
	u.SetName(name)
	u.SetNamespace(namespace)
	if labelled != "" {
		u.SetLabels(map[string]string{hco.LabelManagedBy: labelled})
	}
	return u
}

// sccForGroup is the wasp agent's SecurityContextConstraints admitting
// group too.
func sccForGroup(t *testing.T, group string) client.Object {
	t.Helper()
	u := scc(t, waspagent.SCCName, nil).(*unstructured.Unstructured)
	u.Object["groups"] = []any{group}
	return u
}

// refusedBy asserts that err is the API server's refusal by the admission
// policy named policy, of what.
func refusedBy(t *testing.T, err error, policy, what string) {
	t.Helper()
	assert.True(t, apierrors.IsForbidden(err) || apierrors.IsInvalid(err), "%s: %v", what, err)
	if err != nil {
		assert.Contains(t, err.Error(), policy, what)
	}
}

// unstructuredOf is obj (its TypeMeta set) as an unstructured object, for
// the kinds the test client's scheme lacks.
func unstructuredOf(t *testing.T, obj runtime.Object) *unstructured.Unstructured {
	t.Helper()
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	require.NoError(t, err)
	return &unstructured.Unstructured{Object: m}
}

// guarded applies the install's admission policies (config/guard), as
// rendered for namespace ns, for the test's duration, creates ns, and
// returns a client acting as the operator's service account there with
// every RBAC grant (system:masters), so that only the policies can refuse;
// once they are in effect.
func guarded(t *testing.T, ctx context.Context, ns string) client.Client {
	t.Helper()
	for _, u := range render(t, "default", ns) {
		if u.GetKind() != "ValidatingAdmissionPolicy" && u.GetKind() != "ValidatingAdmissionPolicyBinding" || !strings.HasPrefix(u.GetName(), "hco-operator-") && !strings.HasPrefix(u.GetName(), "hco-webhook-") {
			continue
		}
		existing := &unstructured.Unstructured{}
		existing.SetGroupVersionKind(u.GroupVersionKind())
		existed := env.Client.Get(ctx, client.ObjectKeyFromObject(u), existing) == nil
		u.SetNamespace("")
		require.NoError(t, env.Client.Patch(ctx, u, client.Apply, client.FieldOwner("guard-test"), client.ForceOwnership))
		if !existed {
			t.Cleanup(func() { _ = env.Client.Delete(ctx, u) })
		}
	}
	require.NoError(t, client.IgnoreAlreadyExists(env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})))
	cfg := rest.CopyConfig(env.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:" + ns + ":hco-operator", Groups: []string{"system:masters"}}
	operator, err := client.New(cfg, client.Options{Scheme: env.Client.Scheme()})
	require.NoError(t, err)
	// A new policy takes effect once the API server has loaded it.
	installtest.WaitFor(t, "the policy in effect", func() error {
		err := operator.Create(ctx, &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "probe"}, Value: 1}, client.DryRunAll)
		if err == nil {
			return fmt.Errorf("another PriorityClass still taken")
		}
		return nil
	})
	return operator
}

// The install's admission policy hco-operator-writes (config/guard) lets the
// operator's service account write only its operands' own objects of the
// kinds that could grant more: asked as that account, with every RBAC grant
// (so that only the policy can refuse), the API server refuses a binding to
// cluster-admin or of an operand's role to another account, a webhook of
// another name, content or destination, another PriorityClass or value,
// SecurityContextConstraints of another name or for anyone but the wasp
// agent, ImageStreams, quick starts and dashboards not labelled its own,
// Roles granting more and RoleBindings to other subjects or roles, a node
// port or external IPs on a Service, another ConsolePlugin or one served
// elsewhere, another CLI download, a console configuration changed beyond
// its plugin, another component's route in the Ingress status, a CSV
// changed beyond its annotation, and an SCC deleted but the leftovers of
// earlier releases; and takes each of those objects as its operands build
// them.
func TestOperatorWritesAreGuarded(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	const ns = "hco-guard"
	operator := guarded(t, ctx, ns)
	dryRun := client.DryRunAll
	require.NoError(t, client.IgnoreAlreadyExists(env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: dashboard.Namespace}})))

	webhook := func(name, namespace string) *admissionregistrationv1.MutatingWebhookConfiguration {
		return &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name},
			Webhooks: []admissionregistrationv1.MutatingWebhook{{
				Name: "pods.example.com", AdmissionReviewVersions: []string{"v1"}, SideEffects: ptr.To(admissionregistrationv1.SideEffectClassNone),
				ClientConfig: admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Namespace: namespace, Name: "svc"}},
				Rules: []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
					Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}}},
			}}}
	}
	binding := func(name, role, serviceAccount string) *rbacv1.ClusterRoleBinding {
		return &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
			Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: serviceAccount, Namespace: ns}}}
	}
	injectorSA := netresinjector.ServiceAccountName
	owner := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: ns}}
	hcoEnv := hco.Environment{Namespace: ns}
	// The injector's real configuration, then changed as an attacker would.
	injectorWebhook := func(change func(w *admissionregistrationv1.MutatingWebhook)) client.Object {
		c := netresinjector.BuildWebhookConfiguration(owner, hcoEnv)
		change(&c.Webhooks[0])
		return c
	}
	refused := map[string]client.Object{
		"a binding of another name":                         binding("mine", "cluster-admin", injectorSA),
		"the injector's binding, to cluster-admin":          binding(netresinjector.ClusterRoleBindingName, "cluster-admin", injectorSA),
		"the injector's binding, to another account":        binding(netresinjector.ClusterRoleBindingName, netresinjector.ClusterRoleName, "hco-operator"),
		"the observability binding, of the injector's role": binding(observability.ClusterRoleBindingName, netresinjector.ClusterRoleName, observability.ObjectName),
		"the observability role, to the operator":           binding(observability.ClusterRoleBindingName, observability.ObjectName, "hco-operator"),
		"a webhook of another name":                         webhook("mine", ns),
		"the injector's webhook, on every kind": injectorWebhook(func(w *admissionregistrationv1.MutatingWebhook) {
			w.Rules[0].Resources, w.Rules[0].APIGroups = []string{"*/*"}, []string{"*"}
		}),
		"the injector's webhook, on Secrets":   injectorWebhook(func(w *admissionregistrationv1.MutatingWebhook) { w.Rules[0].Resources = []string{"secrets"} }),
		"the injector's webhook, on every pod": injectorWebhook(func(w *admissionregistrationv1.MutatingWebhook) { w.ObjectSelector = nil }),
		"the injector's webhook, on updates too": injectorWebhook(func(w *admissionregistrationv1.MutatingWebhook) {
			w.Rules[0].Operations = append(w.Rules[0].Operations, admissionregistrationv1.Update)
		}),
		"the injector's webhook, at another Service":      injectorWebhook(func(w *admissionregistrationv1.MutatingWebhook) { w.ClientConfig.Service.Name = "hco-webhook" }),
		"the injector's webhook, elsewhere":               webhook(netresinjector.WebhookConfigName, "default"),
		"another PriorityClass":                           &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "mine"}, Value: 1},
		"the PriorityClass, as the cluster's default":     &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: priorityclass.ObjectName}, Value: priorityclass.Value, GlobalDefault: true},
		"the PriorityClass, another value":                &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: priorityclass.ObjectName}, Value: 7},
		"the wasp agent's binding, to another account":    binding(waspagent.ClusterRoleName, waspagent.ClusterRoleName, "hco-operator"),
		"SecurityContextConstraints of another name":      scc(t, "privileged-too", nil),
		"the wasp agent's SCC, for another account":       scc(t, waspagent.SCCName, []string{"system:serviceaccount:" + ns + ":hco-operator"}),
		"the wasp agent's SCC, for a second account":      scc(t, waspagent.SCCName, []string{waspagent.ServiceAccountUser(ns), "system:serviceaccount:default:default"}),
		"the wasp agent's SCC, for every user":            sccForGroup(t, "system:authenticated"),
		"an ImageStream without the operator's label":     imageStream("golden", "default", ""),
		"an ImageStream labelled as another's":            imageStream("golden", "default", "someone-else"),
		"a Role of another name":                          &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "mine", Namespace: ns}},
		"the virtio-win Role, reading Secrets":            role(virtiowin.BuildRole(owner, hcoEnv), rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get"}}),
		"the virtio-win Role, every ConfigMap":            role(virtiowin.BuildRole(owner, hcoEnv), rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get"}}),
		"the UI's Role, creating Deployments":             role(consoleplugin.BuildConfigReaderRole(owner, hcoEnv), rbacv1.PolicyRule{APIGroups: []string{"apps"}, Resources: []string{"deployments"}, Verbs: []string{"create"}}),
		"a RoleBinding of wasp-cluster to every user":     roleBinding("mine", "ClusterRole", waspagent.ClusterRoleName, rbacv1.Subject{APIGroup: rbacv1.GroupName, Kind: rbacv1.GroupKind, Name: "system:authenticated"}),
		"the virtio-win binding, of wasp-cluster":         roleBinding(virtiowin.ObjectName, "ClusterRole", waspagent.ClusterRoleName, rbacv1.Subject{APIGroup: rbacv1.GroupName, Kind: rbacv1.GroupKind, Name: "system:authenticated"}),
		"the virtio-win binding, of the operator's Role":  roleBinding(virtiowin.ObjectName, "Role", "hco-operator", rbacv1.Subject{APIGroup: rbacv1.GroupName, Kind: rbacv1.GroupKind, Name: "system:authenticated"}),
		"the UI's binding, to another account too":        roleBinding(consoleplugin.ConfigReaderRoleBindng, "Role", consoleplugin.ConfigReaderRole, rbacv1.Subject{APIGroup: rbacv1.GroupName, Kind: rbacv1.GroupKind, Name: "system:authenticated"}, rbacv1.Subject{Kind: "ServiceAccount", Name: "default", Namespace: "default"}),
		"a ConsolePlugin of another name":                 consolePlugin(t, owner, hcoEnv, func(p *consolev1.ConsolePlugin) { p.Name = "totally-legit" }),
		"the console plugin, served from another Service": consolePlugin(t, owner, hcoEnv, func(p *consolev1.ConsolePlugin) { p.Spec.Backend.Service.Name = "hco-webhook-service" }),
		"the console plugin, served from elsewhere":       consolePlugin(t, owner, hcoEnv, func(p *consolev1.ConsolePlugin) { p.Spec.Backend.Service.Namespace = "default" }),
		"the console plugin, proxying elsewhere":          consolePlugin(t, owner, hcoEnv, func(p *consolev1.ConsolePlugin) { p.Spec.Proxy[0].Endpoint.Service.Namespace = "openshift-config" }),
		"a ConsoleCLIDownload of another name":            cliDownload(t, owner, hcoEnv, "virtctl-but-mine"),
		"a quick start without the operator's label":      quickStart(t, owner, hcoEnv, ""),
		"a Service on every node's port": &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: ns},
			Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, Ports: []corev1.ServicePort{{Port: 22}}}},
		"a Service taking an external IP's traffic": &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: ns},
			Spec: corev1.ServiceSpec{ExternalIPs: []string{"8.8.8.8"}, Ports: []corev1.ServicePort{{Port: 53}}}},
		"a dashboard ConfigMap without the operator's label": configMap("grafana-dashboard-x", dashboard.Namespace, ""),
	}
	for what, obj := range refused {
		err := operator.Create(ctx, obj, dryRun)
		refusedBy(t, err, "hco-operator-writes", what)
	}
	for what, obj := range map[string]client.Object{
		"the injector's binding":         binding(netresinjector.ClusterRoleBindingName, netresinjector.ClusterRoleName, injectorSA),
		"the observability controller's": binding(observability.ClusterRoleBindingName, observability.ObjectName, observability.ObjectName),
		"the injector's webhook":         netresinjector.BuildWebhookConfiguration(owner, hcoEnv),
		"the AIE webhook's":              aie.BuildMutatingWebhookConfiguration(owner, hcoEnv),
		"the PriorityClass":              priorityclass.Build(&hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: ns}}, hco.Facts{Environment: hco.Environment{Namespace: ns}}),
		"the wasp agent's binding":       binding(waspagent.ClusterRoleName, waspagent.ClusterRoleName, waspagent.ServiceAccountName),
		"the wasp agent's SCC":           scc(t, waspagent.SCCName, nil),
		"its ImageStream, anywhere":      imageStream("golden", "default", hco.ManagedByValue),
		"the virtio-win Role":            virtiowin.BuildRole(owner, hcoEnv),
		"the virtio-win binding":         virtiowin.BuildRoleBinding(owner, hcoEnv),
		"the UI's Role":                  consoleplugin.BuildConfigReaderRole(owner, hcoEnv),
		"the UI's binding":               consoleplugin.BuildConfigReaderRoleBinding(owner, hcoEnv),
		"the console plugin":             consolePlugin(t, owner, hcoEnv, func(*consolev1.ConsolePlugin) {}),
		"the CLI download links":         cliDownload(t, owner, hcoEnv, ""),
		"its quick start":                quickStart(t, owner, hcoEnv, hco.ManagedByValue),
		"its dashboard":                  configMap("grafana-dashboard-x", dashboard.Namespace, hco.ManagedByValue),
		"a ConfigMap of its namespace":   configMap("anything", ns, ""),
	} {
		assert.NoError(t, operator.Create(ctx, obj, dryRun), what)
	}
	// Somebody else's ImageStream is not the operator's to change, to take
	// (by labelling it) or to delete; its own is.
	theirs, ours := imageStream("theirs", ns, ""), imageStream("ours", ns, hco.ManagedByValue)
	for _, is := range []client.Object{theirs, ours} {
		require.NoError(t, env.Client.Create(ctx, is))
		t.Cleanup(func() { _ = env.Client.Delete(ctx, is) })
	}
	taken := theirs.DeepCopyObject().(*unstructured.Unstructured)
	taken.SetLabels(map[string]string{hco.LabelManagedBy: hco.ManagedByValue})
	for what, err := range map[string]error{
		"update another's ImageStream": operator.Update(ctx, theirs.DeepCopyObject().(client.Object), dryRun),
		"label another's ImageStream":  operator.Update(ctx, taken, dryRun),
		"delete another's ImageStream": operator.Delete(ctx, theirs.DeepCopyObject().(client.Object), dryRun),
	} {
		refusedBy(t, err, "hco-operator-writes", what)
	}
	unlabelled := ours.DeepCopyObject().(*unstructured.Unstructured)
	unlabelled.SetLabels(nil)
	err := operator.Update(ctx, unlabelled, dryRun)
	refusedBy(t, err, "hco-operator-writes", "take the operator's label off its ImageStream")
	// Its own stream whose label an admin removed (its owner record kept)
	// is taken back.
	recorded := imageStream("recorded", ns, "").(*unstructured.Unstructured)
	recorded.SetAnnotations(map[string]string{hco.OwnerAnnotation: ns + "/" + hcov1.HyperConvergedName})
	require.NoError(t, env.Client.Create(ctx, recorded))
	t.Cleanup(func() { _ = env.Client.Delete(ctx, recorded) })
	takenBack := recorded.DeepCopy()
	takenBack.SetLabels(map[string]string{hco.LabelManagedBy: hco.ManagedByValue})
	assert.NoError(t, operator.Update(ctx, takenBack, dryRun), "take back its own stream, recorded")
	assert.NoError(t, operator.Update(ctx, ours.DeepCopyObject().(client.Object), dryRun), "update its ImageStream")
	assert.NoError(t, operator.Delete(ctx, ours.DeepCopyObject().(client.Object), dryRun), "delete its ImageStream")
	// Of the console's configuration, the operator only enables its
	// plugin.
	console := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "operator.openshift.io/v1", "kind": "Console",
		"metadata": map[string]any{"name": "cluster"}, "spec": map[string]any{"managementState": "Managed", "plugins": []any{"monitoring-plugin"}}}}
	require.NoError(t, env.Client.Create(ctx, console))
	t.Cleanup(func() { _ = env.Client.Delete(ctx, console) })
	consoleWith := func(path []string, value any) *unstructured.Unstructured {
		c := console.DeepCopy()
		require.NoError(t, unstructured.SetNestedField(c.Object, value, path...))
		return c
	}
	assert.NoError(t, operator.Update(ctx, consoleWith([]string{"spec", "plugins"}, []any{"monitoring-plugin", consoleplugin.PluginName}), dryRun), "enable its plugin")
	assert.NoError(t, operator.Update(ctx, consoleWith([]string{"spec", "plugins"}, []any{}), dryRun), "disable the plugins")
	for what, c := range map[string]*unstructured.Unstructured{
		"enable another plugin":         consoleWith([]string{"spec", "plugins"}, []any{"monitoring-plugin", "totally-legit"}),
		"move the console's route":      consoleWith([]string{"spec", "route", "hostname"}, "console.attacker.example.com"),
		"change the console's branding": consoleWith([]string{"spec", "customization", "customProductName"}, "Log in again"),
		"unmanage the console":          consoleWith([]string{"spec", "managementState"}, "Unmanaged"),
	} {
		err := operator.Update(ctx, c, dryRun)
		refusedBy(t, err, "hco-operator-writes", what)
	}
	// The SecurityContextConstraints earlier releases made are deleted on an
	// upgrade; no other.
	for _, name := range []string{"passt-binding-cni", "privileged"} {
		u := scc(t, name, nil).(*unstructured.Unstructured)
		u.Object["users"] = []any{}
		require.NoError(t, client.IgnoreAlreadyExists(env.Client.Create(ctx, u)))
		t.Cleanup(func() { _ = env.Client.Delete(ctx, u) })
	}
	assert.NoError(t, operator.Delete(ctx, scc(t, "passt-binding-cni", nil), dryRun), "delete a leftover SCC")
	err = operator.Delete(ctx, scc(t, "privileged", nil), dryRun)
	refusedBy(t, err, "hco-operator-writes", "delete the privileged SCC")

	// Of the Ingress configuration's status, only its own component route,
	// consumed by itself.
	consoleRoute := map[string]any{"name": "console", "namespace": "openshift-console", "defaultHostname": "console.apps.example.com",
		"consumingUsers": []any{"system:serviceaccount:openshift-console:console"},
		"relatedObjects": []any{map[string]any{"group": "route.openshift.io", "resource": "routes", "namespace": "openshift-console", "name": "console"}}}
	ownRoute := func(users ...any) map[string]any {
		return map[string]any{"name": "virt-downloads", "namespace": ns, "defaultHostname": "virt-downloads.apps.example.com",
			"consumingUsers": users,
			"relatedObjects": []any{map[string]any{"group": "route.openshift.io", "resource": "routes", "namespace": ns, "name": "hyperconverged-cluster-cli-download"}}}
	}
	ingress := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "config.openshift.io/v1", "kind": "Ingress",
		"metadata": map[string]any{"name": "cluster"}, "spec": map[string]any{"domain": "apps.example.com"}}}
	require.NoError(t, env.Client.Create(ctx, ingress))
	t.Cleanup(func() { _ = env.Client.Delete(ctx, ingress) })
	operatorUser := "system:serviceaccount:" + ns + ":hco-operator"
	first := ingress.DeepCopy()
	first.Object["status"] = map[string]any{"componentRoutes": []any{ownRoute(operatorUser)}}
	assert.NoError(t, operator.Status().Update(ctx, first, dryRun), "its component route, the first in a status")
	ingress.Object["status"] = map[string]any{"componentRoutes": []any{consoleRoute}}
	require.NoError(t, env.Client.Status().Update(ctx, ingress))
	withRoutes := func(routes ...any) *unstructured.Unstructured {
		i := ingress.DeepCopy()
		i.Object["status"] = map[string]any{"componentRoutes": routes}
		return i
	}
	assert.NoError(t, operator.Status().Update(ctx, withRoutes(consoleRoute, ownRoute(operatorUser)), dryRun), "its component route")
	console2 := runtime.DeepCopyJSONValue(consoleRoute).(map[string]any)
	console2["consumingUsers"] = []any{"system:serviceaccount:openshift-console:console", operatorUser}
	for what, i := range map[string]*unstructured.Unstructured{
		"consume the console's route":         withRoutes(console2, ownRoute(operatorUser)),
		"remove the console's route":          withRoutes(ownRoute(operatorUser)),
		"its route, consumed by another user": withRoutes(consoleRoute, ownRoute(operatorUser, "system:serviceaccount:default:default")),
	} {
		err := operator.Status().Update(ctx, i, dryRun)
		refusedBy(t, err, "hco-operator-writes", what)
	}

	// Of its ClusterServiceVersion, one annotation only: OLM grants what
	// the install strategy says.
	csv := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "operators.coreos.com/v1alpha1", "kind": "ClusterServiceVersion",
		"metadata": map[string]any{"name": "hcokit-operator.v0.1.0", "namespace": ns, "annotations": map[string]any{"olm.targetNamespaces": ""}},
		"spec": map[string]any{"displayName": "hcokit", "install": map[string]any{"strategy": "deployment", "spec": map[string]any{
			"deployments": []any{},
			"clusterPermissions": []any{map[string]any{"serviceAccountName": "hco-operator", "rules": []any{map[string]any{
				"apiGroups": []any{""}, "resources": []any{"nodes"}, "verbs": []any{"list"}}}}}}}}}}
	require.NoError(t, env.Client.Create(ctx, csv))
	t.Cleanup(func() { _ = env.Client.Delete(ctx, csv) })
	csvWith := func(path []string, value any) *unstructured.Unstructured {
		c := csv.DeepCopy()
		require.NoError(t, unstructured.SetNestedField(c.Object, value, path...))
		return c
	}
	annotation := []string{"metadata", "annotations", "console.openshift.io/disable-operand-delete"}
	assert.NoError(t, operator.Update(ctx, csvWith(annotation, "true"), dryRun), "the operand-delete annotation")
	for what, c := range map[string]*unstructured.Unstructured{
		"grant itself every verb": csvWith([]string{"spec", "install", "spec", "clusterPermissions"}, []any{map[string]any{"serviceAccountName": "hco-operator",
			"rules": []any{map[string]any{"apiGroups": []any{"*"}, "resources": []any{"*"}, "verbs": []any{"*"}}}}}),
		"retarget the CSV": csvWith([]string{"metadata", "annotations", "olm.targetNamespaces"}, "default"),
	} {
		err := operator.Update(ctx, c, dryRun)
		refusedBy(t, err, "hco-operator-writes", what)
	}

	// Others are not bound by it.
	assert.NoError(t, env.Client.Create(ctx, binding("mine", "cluster-admin", "x"), dryRun), "the admin")
}

// role is r with extra rules.
func role(r *rbacv1.Role, extra ...rbacv1.PolicyRule) *rbacv1.Role {
	r.Rules = append(r.Rules, extra...)
	return r
}

// roleBinding is a RoleBinding name in hco-guard of the role of kind to
// subjects.
func roleBinding(name, kind, role string, subjects ...rbacv1.Subject) *rbacv1.RoleBinding {
	return &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "hco-guard"},
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: kind, Name: role}, Subjects: subjects}
}

// consolePlugin is the operator's ConsolePlugin, changed.
func consolePlugin(t *testing.T, hc *hcov1.HyperConverged, env hco.Environment, change func(*consolev1.ConsolePlugin)) client.Object {
	p := consoleplugin.BuildConsolePlugin(hc, env)
	change(p)
	return unstructuredOf(t, p)
}

// cliDownload is the operator's ConsoleCLIDownload, named name ("": as
// built).
func cliDownload(t *testing.T, hc *hcov1.HyperConverged, env hco.Environment, name string) client.Object {
	d := clidownload.BuildCLIDownload(hc, env, "hyperconverged-cluster-cli-download-hco-guard.apps.example.com")
	if name != "" {
		d.Name = name
	}
	return unstructuredOf(t, d)
}

// quickStart is a quick start as the operator builds it, labelled
// managed-by labelled ("": not).
func quickStart(t *testing.T, hc *hcov1.HyperConverged, env hco.Environment, labelled string) client.Object {
	qs := quickstart.Build(hc, env, &consolev1.ConsoleQuickStart{ObjectMeta: metav1.ObjectMeta{Name: "creating-virtual-machine-from-volume"},
		Spec: consolev1.ConsoleQuickStartSpec{DisplayName: "x", DurationMinutes: 1, Description: "x", Introduction: "x",
			Tasks: []consolev1.ConsoleQuickStartTask{{Title: "x", Description: "x"}}}})
	delete(qs.Labels, hco.LabelManagedBy)
	if labelled != "" {
		qs.Labels[hco.LabelManagedBy] = labelled
	}
	return unstructuredOf(t, qs)
}

// configMap is a ConfigMap in namespace, labelled managed-by labelled
// ("": not).
func configMap(name, namespace, labelled string) client.Object {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}}
	if labelled != "" {
		cm.Labels = map[string]string{hco.LabelManagedBy: labelled}
	}
	return cm
}
