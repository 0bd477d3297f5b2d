package install

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"slices"
	"strings"
	"testing"

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
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/rand"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/tools/install/internal/installtest"
)

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
	bin := installtest.BuildOperator(t)
	objs := render(t, "default", ns)

	// There is no pod network: the webhooks and the conversion are reached by
	// URL on this host, and the managed certificate also names localhost.
	webhookAddr := installtest.FreeAddress(t)
	_, webhookPort, _ := strings.Cut(webhookAddr, ":")
	base := "https://localhost:" + webhookPort
	// What an admin sets to serve virtctl (empty in the manifests): the CLI
	// download Deployment and Service are then managed too.
	installtest.SetEnv(t, objs, "hco-operator", map[string]string{"CLI_DOWNLOAD_IMAGE": "quay.io/hcokit/virtctl-download:test"})
	installtest.ApplyAll(t, ctx, env.Client, objs, base)

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
	go installtest.PlayKubelet(ctx, t, env.Client, client.ObjectKey{Namespace: ns, Name: "hco-webhook-cert"}, certDir)
	go installtest.PlayKubelet(ctx, t, env.Client, client.ObjectKey{Namespace: ns, Name: "hco-metrics-cert"}, metricsCertDir)

	wc := installtest.Container(t, objs, "hco-webhook")
	webhookProbes, webhookMetrics := installtest.FreeAddress(t), installtest.FreeAddress(t)
	webhook := installtest.Start(t, "webhook", bin, installtest.WithFlags(wc.Args, map[string]string{
		"kubeconfig":                installtest.Kubeconfig(t, ctx, env, ns, "hco-webhook"),
		"port":                      webhookPort,
		"health-probe-bind-address": webhookProbes,
		"metrics-bind-address":      webhookMetrics,
		"cert-dir":                  certDir,
		"cert-extra-dns-names":      "localhost",
		"metrics-cert-path":         metricsCertDir,
	}), installtest.ProcessEnv(t, wc, ns, nil))

	var secret corev1.Secret
	t.Run("the webhook creates its certificate and injects the CA", func(t *testing.T) {
		installtest.WaitFor(t, "the webhook ready", func() error { webhook.Running(t); return installtest.Ready(webhookProbes) })
		installtest.WaitFor(t, "the caBundles injected", func() error {
			if err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "hco-webhook-cert"}, &secret); err != nil {
				return err
			}
			return caBundlesAre(ctx, secret.Data["ca.crt"])
		})
		installtest.WaitFor(t, "the webhook serving the Secret's certificate", func() error { return serves(base, "localhost", secret.Data["ca.crt"], secret.Data["tls.crt"]) })
	})

	// As after an upgrade from a release that stored v1beta1: the operator
	// migrates the stored versions at start (storedversions.MigrateStoredVersions),
	// under its RBAC.
	crd := &unstructured.Unstructured{}
	crd.SetAPIVersion("apiextensions.k8s.io/v1")
	crd.SetKind("CustomResourceDefinition")
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Name: "hyperconvergeds.hco.kubevirt.io"}, crd))
	require.NoError(t, unstructured.SetNestedStringSlice(crd.Object, []string{"v1beta1", "v1"}, "status", "storedVersions"))
	require.NoError(t, env.Client.Status().Update(ctx, crd))

	oc := installtest.Container(t, objs, "hco-operator")
	operatorProbes, operatorMetrics := installtest.FreeAddress(t), installtest.FreeAddress(t)
	operator := installtest.Start(t, "operator", bin, installtest.WithFlags(oc.Args, map[string]string{
		"kubeconfig":                installtest.Kubeconfig(t, ctx, env, ns, "hco-operator"),
		"health-probe-bind-address": operatorProbes,
		"metrics-bind-address":      operatorMetrics,
		"metrics-cert-path":         metricsCertDir,
	}), installtest.ProcessEnv(t, oc, ns, nil))
	installtest.WaitFor(t, "the operator ready", func() error { operator.Running(t); return installtest.Ready(operatorProbes) })

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
		installtest.WaitFor(t, "the HyperConverged Available", func() error {
			operator.Running(t)
			installtest.MarkAvailable(t, ctx, env.Client, installtest.ManagedKinds)
			hc := &hcov1.HyperConverged{}
			if err := env.Client.Get(ctx, key, hc); err != nil {
				return err
			}
			if c := meta.FindStatusCondition(hc.Status.Conditions, hcov1.ConditionAvailable); c == nil || c.Status != metav1.ConditionTrue {
				return fmt.Errorf("not Available: %v", hc.Status.Conditions)
			}
			return nil
		})
		installtest.WaitFor(t, "storedVersions [v1]", func() error {
			if err := env.Client.Get(ctx, client.ObjectKeyFromObject(crd), crd); err != nil {
				return err
			}
			if stored, _, _ := unstructured.NestedStringSlice(crd.Object, "status", "storedVersions"); !slices.Equal(stored, []string{"v1"}) {
				return fmt.Errorf("storedVersions %v", stored)
			}
			return nil
		})
		kv := &unstructured.Unstructured{}
		kv.SetGroupVersionKind(installtest.ManagedKinds[0])
		require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "kubevirt-kubevirt-hyperconverged"}, kv))
		cpu, _, _ := unstructured.NestedString(kv.Object, "spec", "configuration", "cpuRequest")
		assert.Equal(t, "200m", cpu, "the KubeVirt CR carries the annotation's patch")
	})

	t.Run("the metrics endpoints serve the managed certificate for their Services", func(t *testing.T) {
		// What the ServiceMonitors of config/prometheus verify: the CA of
		// hco-metrics-cert, and each Service's DNS name.
		installtest.WaitFor(t, "both metrics endpoints serving hco-metrics-cert", func() error {
			var s corev1.Secret
			if err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "hco-metrics-cert"}, &s); err != nil {
				return err
			}
			if len(s.Data["ca.crt"]) == 0 {
				return fmt.Errorf("hco-metrics-cert not filled yet")
			}
			for _, m := range []struct{ addr, service string }{{operatorMetrics, "kubevirt-hyperconverged-operator-metrics"}, {webhookMetrics, "hyperconverged-cluster-webhook-operator-metrics"}} {
				if err := serves(m.addr, m.service+"."+ns+".svc", s.Data["ca.crt"], s.Data["tls.crt"]); err != nil {
					return fmt.Errorf("%s: %w", m.service, err)
				}
			}
			return nil
		})
	})

	// A webhook whose certificate a rotator of the webhook keeps: its Secret
	// filled with a CA of its own (not the webhook's) and a serving
	// certificate for its Service, and that CA injected into its
	// configuration (caBundle reads it).
	trustsItsOwnCertificate := func(t *testing.T, secretName, service string, caBundle func() ([]byte, error)) {
		t.Helper()
		var own corev1.Secret
		installtest.WaitFor(t, secretName+"'s CA injected", func() error {
			if err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: secretName}, &own); err != nil {
				return err
			}
			ca, err := caBundle()
			if err != nil {
				return err
			}
			if len(ca) == 0 {
				return fmt.Errorf("no caBundle yet")
			}
			return installtest.Verifies(ca, own.Data["tls.crt"], service+"."+ns+".svc")
		})
		var webhook corev1.Secret
		require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "hco-webhook-cert"}, &webhook))
		assert.NotEqual(t, webhook.Data["ca.crt"], own.Data["ca.crt"], "a CA of its own, not the webhook's")
		assert.NotEmpty(t, own.Data["tls.key"], "the key its pod mounts")
	}
	mutating := func(name string) func() ([]byte, error) {
		return func() ([]byte, error) {
			mwc := &admissionregistrationv1.MutatingWebhookConfiguration{}
			if err := env.Client.Get(ctx, client.ObjectKey{Name: name}, mwc); err != nil || len(mwc.Webhooks) != 1 {
				return nil, fmt.Errorf("%s: %v, %d webhooks", name, err, len(mwc.Webhooks))
			}
			return mwc.Webhooks[0].ClientConfig.CABundle, nil
		}
	}

	t.Run("the injector's webhook configuration trusts the injector's certificate", func(t *testing.T) {
		// The operator made the configuration; the webhook's second rotator
		// filled the injector's Secret and injected its CA, which the
		// operator keeps.
		trustsItsOwnCertificate(t, "virt-network-resources-injector-secret", "virt-network-resources-injector-service", mutating("virt-network-resources-injector-config"))
	})

	t.Run("the AIE webhook's configuration trusts its own certificate", func(t *testing.T) {
		trustsItsOwnCertificate(t, "kubevirt-aie-webhook-tls", "kubevirt-aie-webhook", mutating("kubevirt-aie-webhook"))
	})

	t.Run("hostpath-provisioner-operator's webhook configuration trusts its own certificate", func(t *testing.T) {
		// A component operator's webhook: the install ships its
		// configuration and an empty Secret, as cert-manager's are in
		// upstream's install.
		trustsItsOwnCertificate(t, "hostpath-provisioner-operator-webhook-service-cert", "hostpath-provisioner-operator-service", func() ([]byte, error) {
			vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{}
			if err := env.Client.Get(ctx, client.ObjectKey{Name: "hostpathprovisioner.kubevirt.io"}, vwc); err != nil || len(vwc.Webhooks) != 1 {
				return nil, fmt.Errorf("hostpathprovisioner.kubevirt.io: %v, %d webhooks", err, len(vwc.Webhooks))
			}
			return vwc.Webhooks[0].ClientConfig.CABundle, nil
		})
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
		installtest.WaitFor(t, "Modern: a TLS 1.2 handshake refused", func() error {
			if handshake(tls.VersionTLS12) == nil {
				return fmt.Errorf("TLS 1.2 still served")
			}
			return nil
		})
		assert.NoError(t, handshake(tls.VersionTLS13), "Modern serves TLS 1.3")
		webhook.Running(t)
		setProfile(`null`)
		installtest.WaitFor(t, "no profile: TLS 1.2 served again", func() error { return handshake(tls.VersionTLS12) })
	})

	t.Run("the operator takes back what it manages after its labels were edited", func(t *testing.T) {
		// Without its managed-by label an object leaves the operator's cache:
		// the operator's create finds it, reads it past the cache and
		// restores it.
		installtest.ExpectTakenBack(t, ctx, env.Client, installtest.ManagedKinds, operator.Running)
	})

	t.Run("a rotated certificate is served without a restart", func(t *testing.T) {
		oldCA := secret.Data["ca.crt"]
		// What an admin does to force a new CA: empty the Secret.
		secret.Data = nil
		require.NoError(t, env.Client.Update(ctx, &secret))
		installtest.WaitFor(t, "a new CA in the Secret and the caBundles", func() error {
			if err := env.Client.Get(ctx, client.ObjectKeyFromObject(&secret), &secret); err != nil {
				return err
			}
			if len(secret.Data["ca.crt"]) == 0 || bytes.Equal(secret.Data["ca.crt"], oldCA) {
				return fmt.Errorf("no new CA yet")
			}
			return caBundlesAre(ctx, secret.Data["ca.crt"])
		})
		installtest.WaitFor(t, "the webhook serving the new certificate", func() error { return serves(base, "localhost", secret.Data["ca.crt"], secret.Data["tls.crt"]) })
		webhook.Running(t)
		installtest.WaitFor(t, "an update admitted with the new certificate", func() error {
			return annotate(ctx, key, hcov1.KubeVirtJSONPatchAnnotation, `[{"op":"add","path":"/spec/configuration/cpuRequest","value":"300m"}]`)
		})
	})

	t.Run("the HyperConverged is deleted through them", func(t *testing.T) {
		require.NoError(t, env.Client.Delete(ctx, &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: hcov1.HyperConvergedName}}))
		installtest.WaitFor(t, "the HyperConverged gone", func() error {
			operator.Running(t)
			err := env.Client.Get(ctx, key, &hcov1.HyperConverged{})
			if apierrors.IsNotFound(err) {
				return nil
			}
			return fmt.Errorf("still there: %v", err)
		})
		installtest.ExpectNoneLeft(t, ctx, env.Client, installtest.ManagedKinds)
	})

	// A scrape of each metrics endpoint, as Prometheus's would be.
	for _, m := range []struct{ name, addr string }{{"operator", operatorMetrics}, {"webhook", webhookMetrics}} {
		t.Logf("%s metrics endpoint answered a scrape with HTTP %d", m.name, installtest.Scrape(m.addr, installtest.Token(t, ctx, env, ns, "hco-operator")))
	}

	// Stop both, so that the audit log is complete, then read it.
	cancel()
	operator.Stop()
	webhook.Stop()
	t.Run("least privilege: every request allowed, every permission used", func(t *testing.T) {
		for _, sa := range []struct{ name, user string }{{"hco-operator", operatorUser}, {"hco-webhook", webhookUser}} {
			reqs := installtest.RequestsOf(t, env.AuditLog, sa.user)
			require.NotEmpty(t, reqs, sa.name)
			t.Logf("requests of %s:\n%s", sa.name, installtest.Summary(reqs))
			for _, r := range reqs {
				assert.False(t, r.Forbidden, "%s was refused: %s (a missing permission)", sa.name, r)
			}
			for _, g := range installtest.GrantsOf(t, objs, ns, sa.name) {
				if u, ok := installtest.UnexercisedOnKubernetes(sa.name, g); ok {
					t.Logf("%s is granted %s, not used in this run: %s", sa.name, g, u.Why)
					continue
				}
				assert.True(t, g.UsedBy(reqs), "%s is granted %s, which it never used (least privilege)", sa.name, g)
			}
		}
	})
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
	if err := env.Client.Get(ctx, client.ObjectKey{Name: installtest.HCOCRD}, crd); err != nil {
		return err
	}
	bundles := map[string][]byte{"conversion of " + installtest.HCOCRD: crd.Spec.Conversion.Webhook.ClientConfig.CABundle}
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
