package install

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
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
	"github.com/hcokit/hcokit/operands/netresinjector"
	"github.com/hcokit/hcokit/operands/observability"
	"github.com/hcokit/hcokit/operands/priorityclass"
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

// asWasp gives the workload w a pod template that runs as the wasp agent's
// service account.
func asWasp(w client.Object) client.Object { return runningAs(w, waspagent.ServiceAccountName) }

// runningAs gives the workload w a pod template that runs as the service
// account sa ("": the namespace's default).
func runningAs(w client.Object, sa string) client.Object {
	tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"name": "x"}},
		Spec: corev1.PodSpec{ServiceAccountName: sa, Containers: []corev1.Container{{Name: "c", Image: "example.com/c"}}}}
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"name": "x"}}
	switch o := w.(type) {
	case *appsv1.Deployment:
		o.Spec = appsv1.DeploymentSpec{Selector: sel, Template: tmpl}
	case *appsv1.DaemonSet:
		o.Spec = appsv1.DaemonSetSpec{Selector: sel, Template: tmpl}
	}
	return w
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

// The install's admission policy (config/guard) lets the operator's service
// account write only its operands' own cluster-scoped RBAC, webhook
// configurations and PriorityClass: asked as that account, with every RBAC
// grant (so that only the policy can refuse), the API server refuses a
// binding to cluster-admin, a Pod-mutating webhook of another name or one
// sent outside the operator's namespace, another PriorityClass, an operand's
// binding of another ClusterRole or to another account, and
// SecurityContextConstraints of another name or admitting anyone but the
// wasp agent's account, a workload but the agent's DaemonSet running as that
// account, an ImageStream without its managed-by label made, changed,
// labelled or deleted, and takes the injector's, the observability
// controller's, the wasp agent's and its own image streams.
func TestOperatorWritesAreGuarded(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	const ns = "hco-guard"
	for _, u := range render(t, "default", ns) {
		if u.GetKind() != "ValidatingAdmissionPolicy" && u.GetKind() != "ValidatingAdmissionPolicyBinding" || u.GetName() != "hco-operator-writes" {
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
	dryRun := client.DryRunAll

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
		"the injector's webhook, at another Service":         injectorWebhook(func(w *admissionregistrationv1.MutatingWebhook) { w.ClientConfig.Service.Name = "hco-webhook" }),
		"the injector's webhook, elsewhere":                  webhook(netresinjector.WebhookConfigName, "default"),
		"another PriorityClass":                              &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "mine"}, Value: 1},
		"the PriorityClass, as the cluster's default":        &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: priorityclass.ObjectName}, Value: priorityclass.Value, GlobalDefault: true},
		"the PriorityClass, another value":                   &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: priorityclass.ObjectName}, Value: 7},
		"the wasp agent's binding, to another account":       binding(waspagent.ClusterRoleName, waspagent.ClusterRoleName, "hco-operator"),
		"SecurityContextConstraints of another name":         scc(t, "privileged-too", nil),
		"the wasp agent's SCC, for another account":          scc(t, waspagent.SCCName, []string{"system:serviceaccount:" + ns + ":hco-operator"}),
		"the wasp agent's SCC, for a second account":         scc(t, waspagent.SCCName, []string{waspagent.ServiceAccountUser(ns), "system:serviceaccount:default:default"}),
		"the wasp agent's SCC, for every user":               sccForGroup(t, "system:authenticated"),
		"a Deployment as the wasp agent's account":           asWasp(&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "hyperconverged-cluster-cli-download", Namespace: ns}}),
		"another DaemonSet as the wasp agent's account":      asWasp(&appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "not-wasp", Namespace: ns}}),
		"the injector's Deployment as the webhook's account": runningAs(&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: netresinjector.DeploymentName, Namespace: ns}}, "hco-webhook"),
		"the injector's Deployment as the default account":   runningAs(&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: netresinjector.DeploymentName, Namespace: ns}}, ""),
		"the CLI download as the operator's account":         runningAs(&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "hyperconverged-cluster-cli-download", Namespace: ns}}, "hco-operator"),
		"a Deployment of another name":                       runningAs(&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "miner", Namespace: ns}}, ""),
		"a DaemonSet of another name":                        runningAs(&appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "root-on-every-node", Namespace: ns}}, ""),
		"an ImageStream without the operator's label":        imageStream("golden", "default", ""),
		"an ImageStream labelled as another's":               imageStream("golden", "default", "someone-else"),
	}
	// A new policy takes effect once the API server has loaded it.
	installtest.WaitFor(t, "the policy in effect", func() error {
		err := operator.Create(ctx, &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "probe"}, Value: 1}, dryRun)
		if err == nil {
			return fmt.Errorf("another PriorityClass still taken")
		}
		return nil
	})
	for what, obj := range refused {
		err := operator.Create(ctx, obj, dryRun)
		assert.True(t, apierrors.IsForbidden(err) || apierrors.IsInvalid(err), "%s: %v", what, err)
		if err != nil {
			assert.Contains(t, err.Error(), "hco-operator-writes", what)
		}
	}
	for what, obj := range map[string]client.Object{
		"the injector's binding":         binding(netresinjector.ClusterRoleBindingName, netresinjector.ClusterRoleName, injectorSA),
		"the observability controller's": binding(observability.ClusterRoleBindingName, observability.ObjectName, observability.ObjectName),
		"the injector's webhook":         netresinjector.BuildWebhookConfiguration(owner, hcoEnv),
		"the AIE webhook's":              aie.BuildMutatingWebhookConfiguration(owner, hcoEnv),
		"the PriorityClass":              priorityclass.Build(&hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: ns}}, hco.Facts{Environment: hco.Environment{Namespace: ns}}),
		"the wasp agent's binding":       binding(waspagent.ClusterRoleName, waspagent.ClusterRoleName, waspagent.ServiceAccountName),
		"the wasp agent's SCC":           scc(t, waspagent.SCCName, nil),
		"the wasp agent's DaemonSet":     asWasp(&appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: waspagent.Component, Namespace: ns}}),
		"the injector's Deployment":      runningAs(&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: netresinjector.DeploymentName, Namespace: ns}}, netresinjector.ServiceAccountName),
		"the CLI download":               runningAs(&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "hyperconverged-cluster-cli-download", Namespace: ns}}, ""),
		"its ImageStream, anywhere":      imageStream("golden", "default", hco.ManagedByValue),
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
		assert.True(t, apierrors.IsForbidden(err) || apierrors.IsInvalid(err), "%s: %v", what, err)
		if err != nil {
			assert.Contains(t, err.Error(), "hco-operator-writes", what)
		}
	}
	unlabelled := ours.DeepCopyObject().(*unstructured.Unstructured)
	unlabelled.SetLabels(nil)
	err = operator.Update(ctx, unlabelled, dryRun)
	assert.True(t, apierrors.IsForbidden(err) || apierrors.IsInvalid(err), "take the operator's label off its ImageStream: %v", err)
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
	// Others are not bound by it.
	assert.NoError(t, env.Client.Create(ctx, binding("mine", "cluster-admin", "x"), dryRun), "the admin")
}
