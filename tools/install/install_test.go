package install

import (
	"bytes"
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/rand"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
)

const (
	hcoCRD = "hyperconvergeds.hco.kubevirt.io"
	// eventually bounds every wait: generous, as the machine may be busy;
	// the polls end as soon as the state is reached.
	eventually = 3 * time.Minute
	poll       = 200 * time.Millisecond
)

// The kinds the default install manages (hpp is opt-in,
// config/components/hpp), and the component operators, or the Deployment
// controller, report on.
var managedKinds = []schema.GroupVersionKind{
	{Group: "kubevirt.io", Version: "v1", Kind: "KubeVirt"},
	{Group: "cdi.kubevirt.io", Version: "v1beta1", Kind: "CDI"},
	{Group: "networkaddonsoperator.network.kubevirt.io", Version: "v1", Kind: "NetworkAddonsConfig"},
	{Group: "ssp.kubevirt.io", Version: "v1beta3", Kind: "SSP"},
	{Group: "migrations.kubevirt.io", Version: "v1alpha1", Kind: "MigController"},
	{Group: "filerestore.kubevirt.io", Version: "v1alpha1", Kind: "FileRestoreOperator"},
	{Group: "apps", Version: "v1", Kind: "Deployment"},
	{Version: "v1", Kind: "Service"},
	{Group: "scheduling.k8s.io", Version: "v1", Kind: "PriorityClass"},
	{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "ValidatingAdmissionPolicy"},
	{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "ValidatingAdmissionPolicyBinding"},
	// The network-resources-injector's (its Deployment and Service are above).
	{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRoleBinding"},
	{Version: "v1", Kind: "ServiceAccount"},
	{Group: "policy", Version: "v1", Kind: "PodDisruptionBudget"},
	{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "MutatingWebhookConfiguration"},
	// The AIE webhook's (the HyperConverged below carries its annotation).
	{Version: "v1", Kind: "ConfigMap"},
}

// reportsNoStatus are the managed kinds nothing reports on: they are
// available once they exist.
var reportsNoStatus = map[string]bool{
	"Service": true, "PriorityClass": true, "ValidatingAdmissionPolicy": true, "ValidatingAdmissionPolicyBinding": true,
	"ClusterRole": true, "ClusterRoleBinding": true, "ServiceAccount": true, "PodDisruptionBudget": true, "MutatingWebhookConfiguration": true,
	"ConfigMap": true,
}

// TestInstall applies the whole default kustomization (kubectl apply -k
// config) in a namespace of its own and runs hco-operator's operator and
// webhook as processes with the Deployments' own arguments and environment,
// each authenticated as its service account. The webhook creates its
// certificate and injects the CA; a HyperConverged is created, updated,
// refused, converged, served after a certificate rotation and deleted through
// them. Then the apiserver's audit log shows that no request of theirs was
// forbidden, and that every permission granted to them was used.
func TestInstall(t *testing.T) {
	env.Require(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ns := "hco-install-" + rand.String(5)
	operatorUser := "system:serviceaccount:" + ns + ":hco-operator"
	webhookUser := "system:serviceaccount:" + ns + ":hco-webhook"
	bin := buildOperator(t)
	objs := render(t, ".", ns)

	// There is no pod network: the webhooks and the conversion are reached by
	// URL on this host, and the managed certificate also names localhost.
	webhookAddr := freeAddress(t)
	_, webhookPort, _ := strings.Cut(webhookAddr, ":")
	base := "https://localhost:" + webhookPort
	applyAll(t, ctx, objs, base)

	t.Run("the operator's account cannot escalate", func(t *testing.T) {
		// Asked of the API server's authorizer as the operator's account
		// (SubjectAccessReview), under the installed RBAC: no binding of
		// another ClusterRole (cluster-admin), no ClusterRole written or
		// escalated, no other webhook configuration, admission policy or
		// PriorityClass changed or deleted (config/guard refuses the creates,
		// TestOperatorWritesAreGuarded).
		for _, a := range []authorizationv1.ResourceAttributes{
			{Verb: "bind", Group: "rbac.authorization.k8s.io", Resource: "clusterroles", Name: "cluster-admin"},
			{Verb: "escalate", Group: "rbac.authorization.k8s.io", Resource: "clusterroles", Name: "cluster-admin"},
			{Verb: "create", Group: "rbac.authorization.k8s.io", Resource: "clusterroles"},
			{Verb: "update", Group: "rbac.authorization.k8s.io", Resource: "clusterroles", Name: "virt-network-resources-injector"},
			{Verb: "update", Group: "rbac.authorization.k8s.io", Resource: "clusterrolebindings", Name: "cluster-admin"},
			{Verb: "update", Group: "admissionregistration.k8s.io", Resource: "mutatingwebhookconfigurations", Name: "other"},
			{Verb: "delete", Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicies", Name: "hco-operator-writes"},
			{Verb: "delete", Group: "scheduling.k8s.io", Resource: "priorityclasses", Name: "system-node-critical"},
			{Verb: "list", Resource: "secrets", Namespace: ns},
			{Verb: "list", Resource: "configmaps", Namespace: "kube-system"},
		} {
			sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: operatorUser,
				Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"}, ResourceAttributes: &a}}
			require.NoError(t, env.Client.Create(ctx, sar))
			assert.False(t, sar.Status.Allowed, "%s %s/%s %q in %q allowed to the operator", a.Verb, a.Group, a.Resource, a.Name, a.Namespace)
		}
		// And what it needs, by name.
		sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: operatorUser,
			ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "bind", Group: "rbac.authorization.k8s.io", Resource: "clusterroles", Name: "virt-network-resources-injector"}}}
		require.NoError(t, env.Client.Create(ctx, sar))
		assert.True(t, sar.Status.Allowed, "bind of the injector's ClusterRole")
	})

	certDir, metricsCertDir := t.TempDir(), t.TempDir()
	go playKubelet(ctx, t, client.ObjectKey{Namespace: ns, Name: "hco-webhook-cert"}, certDir)
	go playKubelet(ctx, t, client.ObjectKey{Namespace: ns, Name: "hco-metrics-cert"}, metricsCertDir)

	wc := container(t, objs, "hco-webhook")
	webhookProbes, webhookMetrics := freeAddress(t), freeAddress(t)
	webhook := start(t, "webhook", bin, withFlags(wc.Args, map[string]string{
		"kubeconfig":                kubeconfigFor(t, ctx, ns, "hco-webhook"),
		"port":                      webhookPort,
		"health-probe-bind-address": webhookProbes,
		"metrics-bind-address":      webhookMetrics,
		"cert-dir":                  certDir,
		"cert-extra-dns-names":      "localhost",
		"metrics-cert-path":         metricsCertDir,
	}), processEnv(t, wc, ns, nil))

	var secret corev1.Secret
	t.Run("the webhook creates its certificate and injects the CA", func(t *testing.T) {
		waitFor(t, "the webhook ready", func() error { webhook.running(t); return ready(webhookProbes) })
		waitFor(t, "the caBundles injected", func() error {
			if err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "hco-webhook-cert"}, &secret); err != nil {
				return err
			}
			return caBundlesAre(ctx, secret.Data["ca.crt"])
		})
		waitFor(t, "the webhook serving the Secret's certificate", func() error { return serves(base, "localhost", secret.Data["ca.crt"], secret.Data["tls.crt"]) })
	})

	// As after an upgrade from a release that stored v1beta1: the operator
	// migrates the stored versions at start (hco.MigrateStoredVersions),
	// under its RBAC.
	crd := &unstructured.Unstructured{}
	crd.SetAPIVersion("apiextensions.k8s.io/v1")
	crd.SetKind("CustomResourceDefinition")
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Name: "hyperconvergeds.hco.kubevirt.io"}, crd))
	require.NoError(t, unstructured.SetNestedStringSlice(crd.Object, []string{"v1beta1", "v1"}, "status", "storedVersions"))
	require.NoError(t, env.Client.Status().Update(ctx, crd))

	oc := container(t, objs, "hco-operator")
	operatorProbes, operatorMetrics := freeAddress(t), freeAddress(t)
	operator := start(t, "operator", bin, withFlags(oc.Args, map[string]string{
		"kubeconfig":                kubeconfigFor(t, ctx, ns, "hco-operator"),
		"health-probe-bind-address": operatorProbes,
		"metrics-bind-address":      operatorMetrics,
		"metrics-cert-path":         metricsCertDir,
	}), processEnv(t, oc, ns, map[string]string{
		// What an admin sets to serve virtctl (empty in the manifests): the
		// CLI download Deployment and Service are then managed too.
		"CLI_DOWNLOAD_IMAGE": "quay.io/hcokit/virtctl-download:test",
	}))
	waitFor(t, "the operator ready", func() error { operator.running(t); return ready(operatorProbes) })

	key := client.ObjectKey{Namespace: ns, Name: hcov1.HyperConvergedName}
	t.Run("a HyperConverged is created, updated and refused through the webhook", func(t *testing.T) {
		// With the AIE webhook (an admin's annotation; config/manager sets
		// its image), so that its objects, grants and certificate are
		// exercised too.
		hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: hcov1.HyperConvergedName,
			Annotations: map[string]string{"hco.kubevirt.io/deployAIE": "true"}}}
		require.NoError(t, env.Client.Create(ctx, hc))
		assert.Contains(t, hc.Finalizers, "kubevirt.io/hyperconverged", "added by the mutating webhook on create")

		require.NoError(t, annotate(ctx, key, hcov1.KubeVirtJSONPatchAnnotation, `[{"op":"add","path":"/spec/configuration/cpuRequest","value":"200m"}]`))
		err := annotate(ctx, key, hcov1.CDIJSONPatchAnnotation, `{"op":"add"}`)
		require.Error(t, err, "an invalid jsonpatch annotation")
		assert.Contains(t, err.Error(), `admission webhook "validate-hyperconverged.hco.kubevirt.io" denied the request`)
		assert.Contains(t, err.Error(), "not an RFC 6902 JSON patch")

		// The conversion webhook serves v1beta1 with the injected CA.
		old := &unstructured.Unstructured{}
		old.SetAPIVersion("hco.kubevirt.io/v1beta1")
		old.SetKind("HyperConverged")
		require.NoError(t, env.Client.Get(ctx, key, old))
		assert.Equal(t, "hco.kubevirt.io/v1beta1", old.GetAPIVersion())
	})

	t.Run("the operator converges it", func(t *testing.T) {
		waitFor(t, "the HyperConverged Available", func() error {
			operator.running(t)
			markOperandsAvailable(t, ctx, ns)
			hc := &hcov1.HyperConverged{}
			if err := env.Client.Get(ctx, key, hc); err != nil {
				return err
			}
			if c := meta.FindStatusCondition(hc.Status.Conditions, hcov1.ConditionAvailable); c == nil || c.Status != metav1.ConditionTrue {
				return fmt.Errorf("not Available: %v", hc.Status.Conditions)
			}
			return nil
		})
		waitFor(t, "storedVersions [v1]", func() error {
			if err := env.Client.Get(ctx, client.ObjectKeyFromObject(crd), crd); err != nil {
				return err
			}
			if stored, _, _ := unstructured.NestedStringSlice(crd.Object, "status", "storedVersions"); !slices.Equal(stored, []string{"v1"}) {
				return fmt.Errorf("storedVersions %v", stored)
			}
			return nil
		})
		kv := &unstructured.Unstructured{}
		kv.SetGroupVersionKind(managedKinds[0])
		require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "kubevirt-kubevirt-hyperconverged"}, kv))
		cpu, _, _ := unstructured.NestedString(kv.Object, "spec", "configuration", "cpuRequest")
		assert.Equal(t, "200m", cpu, "the KubeVirt CR carries the annotation's patch")
	})

	t.Run("the metrics endpoints serve the managed certificate for their Services", func(t *testing.T) {
		// What the ServiceMonitor of config/prometheus verifies: the CA of
		// hco-metrics-cert, and each Service's DNS name.
		waitFor(t, "both metrics endpoints serving hco-metrics-cert", func() error {
			var s corev1.Secret
			if err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "hco-metrics-cert"}, &s); err != nil {
				return err
			}
			if len(s.Data["ca.crt"]) == 0 {
				return fmt.Errorf("hco-metrics-cert not filled yet")
			}
			for _, m := range []struct{ addr, service string }{{operatorMetrics, "hco-operator-metrics"}, {webhookMetrics, "hco-webhook-metrics"}} {
				if err := serves(m.addr, m.service+"."+ns+".svc", s.Data["ca.crt"], s.Data["tls.crt"]); err != nil {
					return fmt.Errorf("%s: %w", m.service, err)
				}
			}
			return nil
		})
	})

	t.Run("the injector's webhook configuration trusts the injector's certificate", func(t *testing.T) {
		// The operator made the configuration; the webhook's second rotator
		// filled the injector's Secret and injected its CA, which the
		// operator keeps.
		waitFor(t, "the injector's caBundle", func() error {
			var s corev1.Secret
			if err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "virt-network-resources-injector-secret"}, &s); err != nil {
				return err
			}
			mwc := &admissionregistrationv1.MutatingWebhookConfiguration{}
			if err := env.Client.Get(ctx, client.ObjectKey{Name: "virt-network-resources-injector-config"}, mwc); err != nil {
				return err
			}
			if len(mwc.Webhooks) != 1 || len(mwc.Webhooks[0].ClientConfig.CABundle) == 0 {
				return fmt.Errorf("no caBundle yet")
			}
			return verifies(mwc.Webhooks[0].ClientConfig.CABundle, s.Data["tls.crt"], "virt-network-resources-injector-service."+ns+".svc")
		})
		secret := &corev1.Secret{}
		require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "hco-webhook-cert"}, secret))
		var own corev1.Secret
		require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "virt-network-resources-injector-secret"}, &own))
		assert.NotEqual(t, secret.Data["ca.crt"], own.Data["ca.crt"], "a CA of its own, not the webhook's")
	})

	t.Run("the AIE webhook's configuration trusts its own certificate", func(t *testing.T) {
		waitFor(t, "the AIE webhook's caBundle", func() error {
			var s corev1.Secret
			if err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "kubevirt-aie-webhook-tls"}, &s); err != nil {
				return err
			}
			mwc := &admissionregistrationv1.MutatingWebhookConfiguration{}
			if err := env.Client.Get(ctx, client.ObjectKey{Name: "kubevirt-aie-webhook"}, mwc); err != nil {
				return err
			}
			if len(mwc.Webhooks) != 1 || len(mwc.Webhooks[0].ClientConfig.CABundle) == 0 {
				return fmt.Errorf("no caBundle yet")
			}
			return verifies(mwc.Webhooks[0].ClientConfig.CABundle, s.Data["tls.crt"], "kubevirt-aie-webhook."+ns+".svc")
		})
		var injector, own corev1.Secret
		require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "virt-network-resources-injector-secret"}, &injector))
		require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "kubevirt-aie-webhook-tls"}, &own))
		assert.NotEqual(t, injector.Data["ca.crt"], own.Data["ca.crt"], "a CA of its own")
	})

	t.Run("the webhook serves the HyperConverged's TLS profile, without a restart", func(t *testing.T) {
		handshake := func(maxVersion uint16) error {
			conn, err := tls.Dial("tcp", strings.TrimPrefix(base, "https://"), &tls.Config{InsecureSkipVerify: true, MaxVersion: maxVersion}) //nolint:gosec // the protocol version is what is checked
			if err == nil {
				conn.Close()
			}
			return err
		}
		require.NoError(t, handshake(tls.VersionTLS12), "Intermediate (no profile) serves TLS 1.2")
		setProfile := func(profile string) {
			t.Helper()
			require.NoError(t, env.Client.Patch(ctx, &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: hcov1.HyperConvergedName}},
				client.RawPatch(types.MergePatchType, []byte(`{"spec":{"security":{"tlsSecurityProfile":`+profile+`}}}`))))
		}
		setProfile(`{"type":"Modern","modern":{}}`)
		waitFor(t, "Modern: a TLS 1.2 handshake refused", func() error {
			if handshake(tls.VersionTLS12) == nil {
				return fmt.Errorf("TLS 1.2 still served")
			}
			return nil
		})
		assert.NoError(t, handshake(tls.VersionTLS13), "Modern serves TLS 1.3")
		webhook.running(t)
		setProfile(`null`)
		waitFor(t, "no profile: TLS 1.2 served again", func() error { return handshake(tls.VersionTLS12) })
	})

	t.Run("the operator takes back what it manages after its labels were edited", func(t *testing.T) {
		// Without its managed-by label an object leaves the operator's cache:
		// the operator's create finds it, reads it past the cache and
		// restores it.
		const label = "app.kubernetes.io/managed-by"
		var managed []*unstructured.Unstructured
		for _, gvk := range managedKinds {
			list := &unstructured.UnstructuredList{}
			list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
			require.NoError(t, env.Client.List(ctx, list, client.MatchingLabels{label: "hco-operator"}))
			require.NotEmpty(t, list.Items, "the operator manages a %s", gvk.Kind)
			for i := range list.Items {
				o := &list.Items[i]
				require.NoError(t, env.Client.Patch(ctx, o, client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"labels":{"`+label+`":null}}}`))))
				managed = append(managed, o)
			}
		}
		for _, o := range managed {
			waitFor(t, o.GetKind()+" "+o.GetName()+" taken back", func() error {
				operator.running(t)
				got := &unstructured.Unstructured{}
				got.SetGroupVersionKind(o.GroupVersionKind())
				if err := env.Client.Get(ctx, client.ObjectKeyFromObject(o), got); err != nil {
					return err
				}
				if v := got.GetLabels()[label]; v != "hco-operator" {
					return fmt.Errorf("label %s is %q", label, v)
				}
				return nil
			})
		}
	})

	t.Run("a rotated certificate is served without a restart", func(t *testing.T) {
		oldCA := secret.Data["ca.crt"]
		// What an admin does to force a new CA: empty the Secret.
		secret.Data = nil
		require.NoError(t, env.Client.Update(ctx, &secret))
		waitFor(t, "a new CA in the Secret and the caBundles", func() error {
			if err := env.Client.Get(ctx, client.ObjectKeyFromObject(&secret), &secret); err != nil {
				return err
			}
			if len(secret.Data["ca.crt"]) == 0 || bytes.Equal(secret.Data["ca.crt"], oldCA) {
				return fmt.Errorf("no new CA yet")
			}
			return caBundlesAre(ctx, secret.Data["ca.crt"])
		})
		waitFor(t, "the webhook serving the new certificate", func() error { return serves(base, "localhost", secret.Data["ca.crt"], secret.Data["tls.crt"]) })
		webhook.running(t)
		waitFor(t, "an update admitted with the new certificate", func() error {
			return annotate(ctx, key, hcov1.KubeVirtJSONPatchAnnotation, `[{"op":"add","path":"/spec/configuration/cpuRequest","value":"300m"}]`)
		})
	})

	t.Run("the HyperConverged is deleted through them", func(t *testing.T) {
		require.NoError(t, env.Client.Delete(ctx, &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: hcov1.HyperConvergedName}}))
		waitFor(t, "the HyperConverged gone", func() error {
			operator.running(t)
			err := env.Client.Get(ctx, key, &hcov1.HyperConverged{})
			if apierrors.IsNotFound(err) {
				return nil
			}
			return fmt.Errorf("still there: %v", err)
		})
		for _, gvk := range managedKinds {
			list := &unstructured.UnstructuredList{}
			list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
			require.NoError(t, env.Client.List(ctx, list, client.MatchingLabels{"app.kubernetes.io/managed-by": "hco-operator"}))
			assert.Empty(t, list.Items, "%s left after the HyperConverged", gvk.Kind)
		}
	})

	// A scrape of each metrics endpoint, as Prometheus's would be.
	for _, m := range []struct{ name, addr string }{{"operator", operatorMetrics}, {"webhook", webhookMetrics}} {
		t.Logf("%s metrics endpoint answered a scrape with HTTP %d", m.name, scrape(m.addr, tokenFor(t, ctx, ns, "hco-operator")))
	}

	// Stop both, so that the audit log is complete, then read it.
	cancel()
	for _, p := range []*process{operator, webhook} {
		_ = p.cmd.Process.Signal(os.Interrupt)
		<-p.done
		p.done <- nil
	}
	t.Run("least privilege: every request allowed, every permission used", func(t *testing.T) {
		for _, sa := range []struct{ name, user string }{{"hco-operator", operatorUser}, {"hco-webhook", webhookUser}} {
			reqs := requestsOf(t, env.AuditLog, sa.user)
			require.NotEmpty(t, reqs, sa.name)
			t.Logf("requests of %s:\n%s", sa.name, summary(reqs))
			for _, r := range reqs {
				assert.False(t, r.forbidden, "%s was refused: %s (a missing permission)", sa.name, r)
			}
			for _, g := range grantsOf(t, objs, ns, sa.name) {
				if why, ok := neededUnexercised(sa.name, g); ok {
					t.Logf("%s is granted %s, not used in this run: %s", sa.name, g, why)
					continue
				}
				assert.True(t, g.usedBy(reqs), "%s is granted %s, which it never used (least privilege)", sa.name, g)
			}
		}
	})
}

// applyAll applies objs as kubectl apply --server-side would, with the
// webhooks and the conversion pointed at base instead of the Service, and
// removes them at cleanup.
func applyAll(t *testing.T, ctx context.Context, objs []*unstructured.Unstructured, base string) {
	t.Helper()
	// Namespaces first, as kubectl orders them.
	objs = slices.Clone(objs)
	slices.SortStableFunc(objs, func(a, b *unstructured.Unstructured) int {
		first := func(u *unstructured.Unstructured) int {
			if u.GetKind() == "Namespace" {
				return 0
			}
			return 1
		}
		return cmp.Compare(first(a), first(b))
	})
	for _, u := range objs {
		u = u.DeepCopy()
		switch u.GetKind() {
		case "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration":
			hooks, _, _ := unstructured.NestedSlice(u.Object, "webhooks")
			for _, h := range hooks {
				toURL(t, h.(map[string]any)["clientConfig"].(map[string]any), base)
			}
			require.NoError(t, unstructured.SetNestedSlice(u.Object, hooks, "webhooks"))
		case "CustomResourceDefinition":
			cc, ok, _ := unstructured.NestedMap(u.Object, "spec", "conversion", "webhook", "clientConfig")
			require.True(t, ok, "the CRD's conversion webhook")
			toURL(t, cc, base)
			require.NoError(t, unstructured.SetNestedMap(u.Object, cc, "spec", "conversion", "webhook", "clientConfig"))
		}
		require.NoError(t, env.Client.Patch(ctx, u, client.Apply, client.FieldOwner("install-test"), client.ForceOwnership), "%s %s", u.GetKind(), u.GetName())
		if u.GetKind() == "Namespace" {
			continue // envtest runs no namespace controller: a deleted one never goes
		}
		t.Cleanup(func() {
			err := env.Client.Delete(context.Background(), u)
			if err != nil && !apierrors.IsNotFound(err) {
				t.Errorf("cleanup: delete %s %s: %v", u.GetKind(), u.GetName(), err)
			}
			if u.GetKind() == "CustomResourceDefinition" {
				// The next run applies it again: wait until it is gone.
				waitFor(t, "the CRD deleted", func() error {
					if err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(u), &apiextensionsv1.CustomResourceDefinition{}); !apierrors.IsNotFound(err) {
						return fmt.Errorf("still there: %v", err)
					}
					return nil
				})
			}
		})
	}
	waitFor(t, "the HyperConverged CRD established", func() error {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := env.Client.Get(ctx, client.ObjectKey{Name: hcoCRD}, crd); err != nil {
			return err
		}
		for _, c := range crd.Status.Conditions {
			if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
				return nil
			}
		}
		return fmt.Errorf("not established")
	})
}

// toURL points a webhook clientConfig with a service at the same path under base.
func toURL(t *testing.T, cc map[string]any, base string) {
	t.Helper()
	svc, ok := cc["service"].(map[string]any)
	require.True(t, ok, "clientConfig without a service: %v", cc)
	path, _ := svc["path"].(string)
	delete(cc, "service")
	cc["url"] = base + path
}

// playKubelet projects the Secret's certificate into dir whenever it
// changes, as the kubelet does for a Secret volume: the files are symlinks
// into a directory that is swapped atomically, so that a reader never sees
// a certificate with another one's key. It runs until ctx ends.
func playKubelet(ctx context.Context, t *testing.T, key client.ObjectKey, dir string) {
	var last []byte
	for n := 0; ctx.Err() == nil; {
		var s corev1.Secret
		if err := env.Client.Get(ctx, key, &s); err == nil && len(s.Data["tls.crt"]) > 0 && !bytes.Equal(s.Data["tls.crt"], last) {
			n++
			if err := project(dir, fmt.Sprintf("..%d", n), s.Data); err != nil {
				t.Errorf("project Secret %s into %s: %v", key, dir, err)
				return
			}
			last = s.Data["tls.crt"]
		}
		select {
		case <-ctx.Done():
		case <-time.After(poll):
		}
	}
}

// project writes data into dir/version and points dir/..data at it.
func project(dir, version string, data map[string][]byte) error {
	if err := os.Mkdir(filepath.Join(dir, version), 0o700); err != nil {
		return err
	}
	for _, name := range []string{"tls.crt", "tls.key"} {
		if err := os.WriteFile(filepath.Join(dir, version, name), data[name], 0o600); err != nil {
			return err
		}
		link := filepath.Join(dir, name)
		if _, err := os.Lstat(link); os.IsNotExist(err) {
			if err := os.Symlink(filepath.Join("..data", name), link); err != nil {
				return err
			}
		}
	}
	tmp := filepath.Join(dir, "..data_tmp")
	if err := os.Symlink(version, tmp); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, "..data"))
}

// caBundlesAre checks the caBundle of both webhook configurations and of
// the CRD's conversion.
func caBundlesAre(ctx context.Context, ca []byte) error {
	if len(ca) == 0 {
		return fmt.Errorf("no CA in the Secret yet")
	}
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	if err := env.Client.Get(ctx, client.ObjectKey{Name: "hco-webhook"}, vwc); err != nil {
		return err
	}
	mwc := &admissionregistrationv1.MutatingWebhookConfiguration{}
	if err := env.Client.Get(ctx, client.ObjectKey{Name: "hco-webhook"}, mwc); err != nil {
		return err
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := env.Client.Get(ctx, client.ObjectKey{Name: hcoCRD}, crd); err != nil {
		return err
	}
	bundles := map[string][]byte{"conversion of " + hcoCRD: crd.Spec.Conversion.Webhook.ClientConfig.CABundle}
	for _, w := range vwc.Webhooks {
		bundles["validating "+w.Name] = w.ClientConfig.CABundle
	}
	for _, w := range mwc.Webhooks {
		bundles["mutating "+w.Name] = w.ClientConfig.CABundle
	}
	for where, b := range bundles {
		if !bytes.Equal(b, ca) {
			return fmt.Errorf("caBundle of %s is not the Secret's CA", where)
		}
	}
	return nil
}

// serves checks that the webhook at base presents cert, trusted by ca.
func serves(base, serverName string, ca, cert []byte) error {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		return fmt.Errorf("no CA")
	}
	conn, err := tls.Dial("tcp", strings.TrimPrefix(base, "https://"), &tls.Config{RootCAs: pool, ServerName: serverName, MinVersion: tls.VersionTLS12})
	if err != nil {
		return err
	}
	defer conn.Close()
	block, _ := pem.Decode(cert)
	if block == nil {
		return fmt.Errorf("no certificate in the Secret")
	}
	if got := conn.ConnectionState().PeerCertificates[0].Raw; !bytes.Equal(got, block.Bytes) {
		return fmt.Errorf("serves another certificate than the Secret's")
	}
	return nil
}

// verifies checks that the PEM certificate cert chains to the PEM CA ca
// and names dnsName.
func verifies(ca, cert []byte, dnsName string) error {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		return fmt.Errorf("no CA in the caBundle")
	}
	block, _ := pem.Decode(cert)
	if block == nil {
		return fmt.Errorf("no certificate in the Secret")
	}
	c, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return err
	}
	_, err = c.Verify(x509.VerifyOptions{Roots: pool, DNSName: dnsName})
	return err
}

// annotate sets one annotation of the HyperConverged key, retrying conflicts.
func annotate(ctx context.Context, key client.ObjectKey, name, value string) error {
	for {
		hc := &hcov1.HyperConverged{}
		if err := env.Client.Get(ctx, key, hc); err != nil {
			return err
		}
		if hc.Annotations == nil {
			hc.Annotations = map[string]string{}
		}
		hc.Annotations[name] = value
		err := env.Client.Update(ctx, hc)
		if !apierrors.IsConflict(err) {
			return err
		}
	}
}

// markOperandsAvailable plays the component operators and the Deployment
// controller: every managed object without conditions is reported
// Available, not progressing, not degraded.
func markOperandsAvailable(t *testing.T, ctx context.Context, ns string) {
	t.Helper()
	now := time.Now().UTC().Format(time.RFC3339)
	healthy := []any{
		map[string]any{"type": "Available", "status": "True", "reason": "Simulated", "message": "", "lastTransitionTime": now},
		map[string]any{"type": "Progressing", "status": "False", "reason": "Simulated", "message": "", "lastTransitionTime": now},
		map[string]any{"type": "Degraded", "status": "False", "reason": "Simulated", "message": "", "lastTransitionTime": now},
	}
	rolledOut := []any{
		map[string]any{"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable", "message": "", "lastTransitionTime": now, "lastUpdateTime": now},
		map[string]any{"type": "Progressing", "status": "True", "reason": "NewReplicaSetAvailable", "message": "", "lastTransitionTime": now, "lastUpdateTime": now},
	}
	for _, gvk := range managedKinds {
		if reportsNoStatus[gvk.Kind] {
			continue
		}
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		require.NoError(t, env.Client.List(ctx, list, client.MatchingLabels{"app.kubernetes.io/managed-by": "hco-operator"}))
		for i := range list.Items {
			o := &list.Items[i]
			if c, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions"); len(c) > 0 {
				continue
			}
			conds := healthy
			if gvk.Kind == "Deployment" {
				conds = rolledOut
				require.NoError(t, unstructured.SetNestedField(o.Object, o.GetGeneration(), "status", "observedGeneration"))
				// Every replica ready (what the injector's status reads).
				replicas, _, _ := unstructured.NestedInt64(o.Object, "spec", "replicas")
				for _, f := range []string{"replicas", "readyReplicas", "availableReplicas", "updatedReplicas"} {
					require.NoError(t, unstructured.SetNestedField(o.Object, replicas, "status", f))
				}
			}
			require.NoError(t, unstructured.SetNestedSlice(o.Object, conds, "status", "conditions"))
			if err := env.Client.Status().Update(ctx, o); err != nil && !apierrors.IsConflict(err) {
				require.NoError(t, err, "mark %s %s Available", gvk.Kind, o.GetName())
			}
		}
	}
}

// waitFor polls check until it passes, failing the test with its last error
// after the generous bound.
func waitFor(t *testing.T, what string, check func() error) {
	t.Helper()
	var err error
	for deadline := time.Now().Add(eventually); time.Now().Before(deadline); time.Sleep(poll) {
		if err = check(); err == nil {
			return
		}
	}
	t.Fatalf("%s: not after %s: %v", what, eventually, err)
}
