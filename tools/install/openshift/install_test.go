package openshift

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/rand"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/operands/clidownload"
	"github.com/hcokit/hcokit/operands/consoleplugin"
	"github.com/hcokit/hcokit/operands/dashboard"
	"github.com/hcokit/hcokit/operands/imagestream"
	"github.com/hcokit/hcokit/operands/netresinjector"
	"github.com/hcokit/hcokit/operands/quickstart"
	"github.com/hcokit/hcokit/operands/virtiowin"
	"github.com/hcokit/hcokit/operands/waspagent"
	"github.com/hcokit/hcokit/tools/install"
	"github.com/hcokit/hcokit/tools/install/internal/installtest"
)

// openShiftKinds are the kinds the operator makes on OpenShift only, with
// the HyperConverged of this test (the wasp agent's while memory is
// overcommitted; the ConsoleQuickStarts and the dashboards' ConfigMaps from
// the files given), each of which must exist once it converged.
var openShiftKinds = []schema.GroupVersionKind{
	{Group: "route.openshift.io", Version: "v1", Kind: "Route"},
	{Group: "console.openshift.io", Version: "v1", Kind: "ConsoleCLIDownload"},
	{Group: "console.openshift.io", Version: "v1", Kind: "ConsolePlugin"},
	{Group: "console.openshift.io", Version: "v1", Kind: "ConsoleQuickStart"},
	{Group: "security.openshift.io", Version: "v1", Kind: "SecurityContextConstraints"},
	{Group: "apps", Version: "v1", Kind: "DaemonSet"},
	{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "Role"},
	{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "RoleBinding"},
	{Group: "networking.k8s.io", Version: "v1", Kind: "NetworkPolicy"},
	{Group: "perses.dev", Version: "v1alpha1", Kind: "PersesDashboard"},
	{Group: "perses.dev", Version: "v1alpha1", Kind: "PersesDatasource"},
	{Group: "image.openshift.io", Version: "v1", Kind: "ImageStream"},
	{Version: "v1", Kind: "ConfigMap"},
}

var (
	ingressKind = schema.GroupVersionKind{Group: "config.openshift.io", Version: "v1", Kind: "Ingress"}
	sccKind     = schema.GroupVersionKind{Group: "security.openshift.io", Version: "v1", Kind: "SecurityContextConstraints"}
)

// The wasp agent's cluster-scoped objects, which follow the overcommit.
var waspObjects = []struct {
	gvk  schema.GroupVersionKind
	name string
}{
	{sccKind, waspagent.SCCName},
	{schema.GroupVersionKind{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRoleBinding"}, waspagent.ClusterRoleName},
}

// The upstream test content of the console modules (the stock image has
// none), given to the operator as its flags name them, so that the
// ConsoleQuickStarts and the dashboards in openshift-config-managed are
// made, under config/openshift's Role.
const (
	quickStartDir  = "operands/quickstart/testdata/upstream-03da3cf/" + quickstart.Dir
	dashboardDir   = "operands/dashboard/testdata/upstream-03da3cf/" + dashboard.Dir
	imageStreamDir = "operands/imagestream/testdata/upstream-03da3cf/" + imagestream.Dir
	// imageStreamNamespace is the namespace of upstream's test stream.
	imageStreamNamespace = "test-image-stream-ns"
)

// TestOpenShiftInstall applies the whole default kustomization and
// config/openshift on a control plane that serves OpenShift's APIs, with
// the platform's configuration objects an OpenShift cluster has (the
// Ingress, Network, DNS, APIServer and Console configurations "cluster"),
// and runs hco-operator's operator and webhook as processes with the
// Deployments' own arguments and environment, the OpenShift modules' images
// set, each authenticated as its service account. A HyperConverged with
// memory overcommitted converges (every OpenShift object made, the console
// plugin enabled in the Console configuration, the download's route
// published in the Ingress configuration's status), is edited (objects taken
// back after their label was edited, the plugin put back in the console,
// the wasp agent removed and made again with the overcommit) and deleted
// (everything removed, the console and the Ingress status given back).
// Then the apiserver's audit log shows that no request of theirs was
// refused, and that every grant the install on plain Kubernetes leaves
// unused because that cluster is not OpenShift, and every grant of
// config/openshift, was used here but for the few named in
// unexercisedOnOpenShift.
func TestOpenShiftInstall(t *testing.T) {
	env.Require(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ns := "hco-openshift-" + rand.String(5)
	operatorUser := "system:serviceaccount:" + ns + ":hco-operator"
	webhookUser := "system:serviceaccount:" + ns + ":hco-webhook"
	bin := installtest.BuildOperator(t)
	objs, err := install.Render(configRoot(), "default", install.Edit{Namespace: ns})
	require.NoError(t, err)
	openShiftObjs := openShiftConfig(t, ns)
	platform(t, ctx)

	webhookAddr := installtest.FreeAddress(t)
	_, webhookPort, _ := strings.Cut(webhookAddr, ":")
	base := "https://localhost:" + webhookPort
	// What an admin or a distribution sets (empty in the manifests): the
	// images of the modules that deploy on OpenShift.
	installtest.SetEnv(t, objs, "hco-operator", map[string]string{
		"CLI_DOWNLOAD_IMAGE":      "quay.io/kubevirt/virt-artifacts-server:test",
		"KV_CONSOLE_PLUGIN_IMAGE": "quay.io/kubevirt-ui/kubevirt-plugin:test",
		"KV_CONSOLE_PROXY_IMAGE":  "quay.io/kubevirt-ui/kubevirt-apiserver-proxy:test",
		"VIRTIOWIN_CONTAINER":     "quay.io/kubevirt/virtio-container-disk:test",
		"WASP_AGENT_IMAGE":        "quay.io/openshift-virtualization/wasp-agent:test",
	})
	installtest.ApplyAll(t, ctx, env.Client, append(slices.Clone(objs), openShiftObjs...), base)

	certDir, metricsCertDir := t.TempDir(), t.TempDir()
	go installtest.PlayKubelet(ctx, t, env.Client, client.ObjectKey{Namespace: ns, Name: "hco-webhook-cert"}, certDir)
	go installtest.PlayKubelet(ctx, t, env.Client, client.ObjectKey{Namespace: ns, Name: "hco-metrics-cert"}, metricsCertDir)

	// The webhook as the OpenShift install runs it (ssp-operator's
	// certificate too).
	wc := installtest.Container(t, append(slices.Clone(openShiftObjs), objs...), "hco-webhook")
	webhookProbes := installtest.FreeAddress(t)
	webhook := installtest.Start(t, "webhook", bin, installtest.WithFlags(wc.Args, map[string]string{
		"kubeconfig":                installtest.Kubeconfig(t, ctx, env, ns, "hco-webhook"),
		"port":                      webhookPort,
		"health-probe-bind-address": webhookProbes,
		"metrics-bind-address":      installtest.FreeAddress(t),
		"cert-dir":                  certDir,
		"cert-extra-dns-names":      "localhost",
		"metrics-cert-path":         metricsCertDir,
	}), installtest.ProcessEnv(t, wc, ns, nil))
	installtest.WaitFor(t, "the webhook ready", func() error { webhook.Running(t); return installtest.Ready(webhookProbes) })

	t.Run("ssp-operator's webhook configuration trusts its own certificate", func(t *testing.T) {
		// A component operator of the OpenShift install only: its Secret
		// (created empty by the overlay) filled with a CA of its own, the CA
		// injected into vssp.kb.io, as cert-manager does in upstream's
		// install.
		installtest.WaitFor(t, "ssp-operator's caBundle", func() error {
			var s corev1.Secret
			if err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "ssp-operator-service-cert"}, &s); err != nil {
				return err
			}
			vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{}
			if err := env.Client.Get(ctx, client.ObjectKey{Name: "vssp.kb.io"}, vwc); err != nil {
				return err
			}
			if len(vwc.Webhooks) != 2 {
				return fmt.Errorf("vssp.kb.io has %d webhooks, want upstream's 2 (v1beta2, v1beta3)", len(vwc.Webhooks))
			}
			for _, w := range vwc.Webhooks {
				if len(w.ClientConfig.CABundle) == 0 {
					return fmt.Errorf("%s: no caBundle yet", w.Name)
				}
				if err := installtest.Verifies(w.ClientConfig.CABundle, s.Data["tls.crt"], "ssp-operator-service."+ns+".svc"); err != nil {
					return err
				}
			}
			return nil
		})
	})

	oc := installtest.Container(t, objs, "hco-operator")
	operatorProbes := installtest.FreeAddress(t)
	operator := installtest.Start(t, "operator", bin, installtest.WithFlags(oc.Args, map[string]string{
		"kubeconfig":                installtest.Kubeconfig(t, ctx, env, ns, "hco-operator"),
		"health-probe-bind-address": operatorProbes,
		"metrics-bind-address":      installtest.FreeAddress(t),
		"metrics-cert-path":         metricsCertDir,
		"quickstart-dir":            filepath.Join(root, quickStartDir),
		"dashboard-dir":             filepath.Join(root, dashboardDir),
		"imagestream-dir":           filepath.Join(root, imageStreamDir),
	}), installtest.ProcessEnv(t, oc, ns, nil))
	installtest.WaitFor(t, "the operator ready", func() error { operator.Running(t); return installtest.Ready(operatorProbes) })

	key := client.ObjectKey{Namespace: ns, Name: hcov1.HyperConvergedName}
	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: hcov1.HyperConvergedName}}
	hc.Spec.Virtualization.HigherWorkloadDensity = &hcov1.HigherWorkloadDensityConfiguration{MemoryOvercommitPercentage: 150}
	// Through the webhooks, once they serve the injected CA.
	installtest.WaitFor(t, "the HyperConverged created", func() error { webhook.Running(t); return env.Client.Create(ctx, hc.DeepCopy()) })

	t.Run("the operator converges it with its OpenShift objects", func(t *testing.T) {
		installtest.WaitFor(t, "the HyperConverged Available", func() error {
			operator.Running(t)
			installtest.MarkAvailable(t, ctx, env.Client, installtest.ManagedKinds)
			got := &hcov1.HyperConverged{}
			if err := env.Client.Get(ctx, key, got); err != nil {
				return err
			}
			if c := meta.FindStatusCondition(got.Status.Conditions, hcov1.ConditionAvailable); c == nil || c.Status != metav1.ConditionTrue {
				return fmt.Errorf("not Available: %v", got.Status.Conditions)
			}
			return nil
		})
		for _, gvk := range openShiftKinds {
			installtest.WaitFor(t, "a "+gvk.Kind+" made", func() error {
				if n := managed(t, ctx, gvk); n == 0 {
					return fmt.Errorf("none")
				}
				return nil
			})
		}
		expectWasp(t, ctx, true)
		for _, cm := range []client.ObjectKey{{Namespace: ns, Name: virtiowin.ObjectName}, {Namespace: ns, Name: consoleplugin.FeaturesConfigMap}} {
			require.NoError(t, env.Client.Get(ctx, cm, &corev1.ConfigMap{}), "ConfigMap %s", cm)
		}
		dashboards := &corev1.ConfigMapList{}
		require.NoError(t, env.Client.List(ctx, dashboards, client.InNamespace(dashboard.Namespace), client.MatchingLabels{installtest.ManagedBy: "hco-operator"}))
		assert.NotEmpty(t, dashboards.Items, "the dashboards in %s", dashboard.Namespace)
		expectConsolePlugins(t, ctx, "monitoring-plugin", consoleplugin.PluginName)
		expectDownloadRoute(t, ctx, ns, true)

		// The injector's certificate is the platform's service CA's, as
		// upstream's: asked for on its Service and webhook configuration;
		// the install ships no Secret for it and the webhook's rotator keeps
		// none (the service CA operator makes and fills it).
		svc := &corev1.Service{}
		require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: netresinjector.ServiceName}, svc))
		assert.Equal(t, netresinjector.SecretName, svc.Annotations[netresinjector.ServingCertAnnotation])
		mwc := &admissionregistrationv1.MutatingWebhookConfiguration{}
		require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Name: netresinjector.WebhookConfigName}, mwc))
		assert.Equal(t, "true", mwc.Annotations[netresinjector.InjectCABundleAnnotation])
		overlay, err := install.Render(configRoot(), "overlays/openshift", install.Edit{})
		require.NoError(t, err)
		for _, o := range overlay {
			assert.False(t, o.GetKind() == "Secret" && o.GetName() == netresinjector.SecretName, "the OpenShift install ships no injector Secret")
		}
		assert.Contains(t, wc.Args, "--injector-cert-secret=")
	})

	t.Run("it takes back what an admin edited", func(t *testing.T) {
		// The wasp agent's ClusterRoleBinding with the others'.
		installtest.ExpectTakenBack(t, ctx, env.Client, append(slices.Clone(openShiftKinds), schema.GroupVersionKind{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRoleBinding"}), operator.Running)
		setConsolePlugins(t, ctx, "monitoring-plugin")
		expectConsolePlugins(t, ctx, "monitoring-plugin", consoleplugin.PluginName)
	})

	t.Run("the wasp agent follows the overcommit", func(t *testing.T) {
		setOvercommit(t, ctx, key, 100)
		expectWasp(t, ctx, false)
		setOvercommit(t, ctx, key, 150)
		expectWasp(t, ctx, true)
	})

	t.Run("the HyperConverged is deleted with all it made", func(t *testing.T) {
		require.NoError(t, env.Client.Delete(ctx, hc.DeepCopy()))
		installtest.WaitFor(t, "the HyperConverged gone", func() error {
			operator.Running(t)
			if err := env.Client.Get(ctx, key, &hcov1.HyperConverged{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("still there: %v", err)
			}
			return nil
		})
		installtest.ExpectNoneLeft(t, ctx, env.Client, append(slices.Clone(installtest.ManagedKinds), openShiftKinds...))
		expectWasp(t, ctx, false)
		expectConsolePlugins(t, ctx, "monitoring-plugin")
		expectDownloadRoute(t, ctx, ns, false)
	})

	// Stop both, so that the audit log is complete, then read it.
	cancel()
	operator.Stop()
	webhook.Stop()
	t.Run("least privilege on OpenShift: every request allowed, every OpenShift grant used", func(t *testing.T) {
		var required int
		for _, sa := range []struct{ name, user string }{{"hco-operator", operatorUser}, {"hco-webhook", webhookUser}} {
			reqs := installtest.RequestsOf(t, env.AuditLog, sa.user)
			require.NotEmpty(t, reqs, sa.name)
			t.Logf("requests of %s:\n%s", sa.name, installtest.Summary(reqs))
			for _, r := range reqs {
				assert.False(t, r.Forbidden, "%s was refused: %s (a missing permission)", sa.name, r)
				assert.NotContains(t, []int{403, 422}, r.Code, "%s: %s answered %d: %s", sa.name, r, r.Code, r.Message)
			}
			openShiftGrants := installtest.GrantsOf(t, openShiftObjs, ns, sa.name)
			for _, g := range installtest.GrantsOf(t, append(slices.Clone(objs), openShiftObjs...), ns, sa.name) {
				u, ok := installtest.UnexercisedOnKubernetes(sa.name, g)
				if !(ok && u.OpenShift) && !slices.ContainsFunc(openShiftGrants, func(o installtest.Grant) bool { return o.String() == g.String() }) {
					continue // TestInstall's to check
				}
				required++
				used := g.UsedBy(reqs)
				if why, ok := unexercisedOnOpenShift(sa.name, g); ok {
					assert.False(t, used, "%s is granted %s, listed as unexercised on OpenShift (%s) but used: take it off the list", sa.name, g, why)
					t.Logf("%s is granted %s, not used in this run: %s", sa.name, g, why)
					continue
				}
				assert.True(t, used, "%s is granted %s, which it never used on OpenShift (least privilege)", sa.name, g)
			}
		}
		require.NotZero(t, required, "grants needed on OpenShift only")
		t.Logf("%d grants needed on OpenShift only checked", required)
	})
}

// unexercisedOnOpenShift names the OpenShift grants this test does not
// use, and why.
func unexercisedOnOpenShift(sa string, g installtest.Grant) (string, bool) {
	switch {
	case sa == "hco-operator" && g.Group == "monitoring.coreos.com" && g.Resource == "alertmanagers/api":
		return "not an API server request: the platform's Alertmanager proxy asks it (a SubjectAccessReview of its own) of the operator's token; alertsilence's tests check it behind such a proxy", true
	}
	return "", false
}

// openShiftConfig renders the OpenShift install (config/overlays/openshift)
// for an install in namespace ns, as docs/install.md says an admin does (the
// namespace's name, the binding's subject), and returns what it adds to or
// changes in config/default's objects: ssp-operator, config/openshift,
// config/prometheus and the ssp certificate's objects, and the Namespace and
// the webhook's Deployment as the overlay patches them. It leaves out the
// objects whose kinds the test cluster does not serve: the PrometheusRules
// and ServiceMonitor (monitoring.coreos.com), the platform's monitoring not
// being played here.
func openShiftConfig(t *testing.T, ns string) []*unstructured.Unstructured {
	t.Helper()
	rendered, err := install.Render(configRoot(), "overlays/openshift", install.Edit{})
	require.NoError(t, err)
	base, err := install.Render(configRoot(), "default", install.Edit{})
	require.NoError(t, err)
	inBase := map[string]*unstructured.Unstructured{}
	for _, u := range base {
		inBase[u.GetKind()+"/"+u.GetNamespace()+"/"+u.GetName()] = u
	}
	var out []*unstructured.Unstructured
	for _, u := range rendered {
		if b, ok := inBase[u.GetKind()+"/"+u.GetNamespace()+"/"+u.GetName()]; ok && equality.Semantic.DeepEqual(b.Object, u.Object) {
			continue // config/default's, rendered for ns by the caller
		}
		gvk := u.GroupVersionKind()
		if _, err := env.Client.RESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version); meta.IsNoMatchError(err) {
			require.Equal(t, "monitoring.coreos.com", gvk.Group, "only the monitoring kinds are not served here")
			t.Logf("config/overlays/openshift: %s %s left out: its kind is not served here", gvk.Kind, u.GetName())
			continue
		}
		if u.GetKind() == "Namespace" && u.GetName() == hcov1.DefaultNamespace {
			u.SetName(ns)
		}
		if u.GetNamespace() == hcov1.DefaultNamespace {
			u.SetNamespace(ns)
		}
		if subjects, ok, _ := unstructured.NestedSlice(u.Object, "subjects"); ok {
			for _, s := range subjects {
				if s := s.(map[string]any); s["namespace"] == hcov1.DefaultNamespace {
					s["namespace"] = ns
				}
			}
			require.NoError(t, unstructured.SetNestedSlice(u.Object, subjects, "subjects"))
		}
		if hooks, ok, _ := unstructured.NestedSlice(u.Object, "webhooks"); ok {
			for _, h := range hooks {
				if svc, _ := h.(map[string]any)["clientConfig"].(map[string]any)["service"].(map[string]any); svc != nil && svc["namespace"] == hcov1.DefaultNamespace {
					svc["namespace"] = ns
				}
			}
			require.NoError(t, unstructured.SetNestedSlice(u.Object, hooks, "webhooks"))
		}
		out = append(out, u)
	}
	require.NotEmpty(t, out)
	return out
}

// platform makes what an OpenShift cluster has before the install: the
// namespaces config/openshift's Roles go in, and the configurations
// "cluster" the operator reads its platform facts from (the ingress domain,
// the IP stack, the base DNS domain, the TLS profile) and writes to (the
// console's plugins, the ingress' component routes). They are deleted at
// cleanup.
func platform(t *testing.T, ctx context.Context) {
	t.Helper()
	for _, name := range []string{dashboard.Namespace, "openshift-monitoring", imageStreamNamespace} {
		err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})
		if !apierrors.IsAlreadyExists(err) {
			require.NoError(t, err, "namespace %s", name)
		}
	}
	config := func(kind string) schema.GroupVersionKind {
		return schema.GroupVersionKind{Group: "config.openshift.io", Version: "v1", Kind: kind}
	}
	for _, c := range []struct {
		gvk          schema.GroupVersionKind
		spec, status map[string]any
	}{
		{ingressKind, map[string]any{"domain": "apps.example.com"}, nil},
		{config("Network"), map[string]any{}, map[string]any{"clusterNetwork": []any{map[string]any{"cidr": "10.128.0.0/14", "hostPrefix": int64(23)}}}},
		{config("DNS"), map[string]any{"baseDomain": "example.com"}, nil},
		{config("APIServer"), map[string]any{}, nil},
		{consoleplugin.ConsoleConfigKind, map[string]any{"managementState": "Managed", "plugins": []any{"monitoring-plugin"}}, nil},
	} {
		// The status goes with the object where the CRD has no status
		// subresource (the Network's), through it where it has one.
		u := &unstructured.Unstructured{Object: map[string]any{"spec": c.spec}}
		if c.status != nil {
			u.Object["status"] = c.status
		}
		u.SetGroupVersionKind(c.gvk)
		u.SetName(hco.ClusterConfigName)
		require.NoError(t, env.Client.Create(ctx, u), "%s %s", c.gvk.Kind, hco.ClusterConfigName)
		t.Cleanup(func() {
			if err := env.Client.Delete(context.Background(), u); err != nil && !apierrors.IsNotFound(err) {
				t.Errorf("cleanup: delete %s %s: %v", u.GetKind(), u.GetName(), err)
			}
		})
		if c.status != nil {
			u.Object["status"] = c.status
			if err := env.Client.Status().Update(ctx, u); !apierrors.IsNotFound(err) {
				require.NoError(t, err, "%s status", c.gvk.Kind)
			}
		}
	}
}

// managed counts the objects of gvk the operator labels as its own.
func managed(t *testing.T, ctx context.Context, gvk schema.GroupVersionKind) int {
	t.Helper()
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	require.NoError(t, env.Client.List(ctx, list, client.MatchingLabels{installtest.ManagedBy: "hco-operator"}))
	return len(list.Items)
}

// expectWasp waits until the wasp agent's cluster-scoped objects exist, or
// are gone.
func expectWasp(t *testing.T, ctx context.Context, exist bool) {
	t.Helper()
	for _, o := range waspObjects {
		installtest.WaitFor(t, fmt.Sprintf("%s %s there: %v", o.gvk.Kind, o.name, exist), func() error {
			u := &unstructured.Unstructured{}
			u.SetGroupVersionKind(o.gvk)
			err := env.Client.Get(ctx, client.ObjectKey{Name: o.name}, u)
			switch {
			case exist && err == nil, !exist && apierrors.IsNotFound(err):
				return nil
			case err != nil && !apierrors.IsNotFound(err):
				return err
			}
			return fmt.Errorf("not yet")
		})
	}
}

// setOvercommit sets the HyperConverged's memory overcommit, retrying conflicts.
func setOvercommit(t *testing.T, ctx context.Context, key client.ObjectKey, percent int) {
	t.Helper()
	installtest.WaitFor(t, fmt.Sprintf("the overcommit set to %d", percent), func() error {
		hc := &hcov1.HyperConverged{}
		if err := env.Client.Get(ctx, key, hc); err != nil {
			return err
		}
		hc.Spec.Virtualization.HigherWorkloadDensity = &hcov1.HigherWorkloadDensityConfiguration{MemoryOvercommitPercentage: percent}
		return env.Client.Update(ctx, hc)
	})
}

// setConsolePlugins sets the Console configuration's spec.plugins as an
// admin would.
func setConsolePlugins(t *testing.T, ctx context.Context, plugins ...string) {
	t.Helper()
	installtest.WaitFor(t, "the Console configuration's plugins set", func() error {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(consoleplugin.ConsoleConfigKind)
		if err := env.Client.Get(ctx, client.ObjectKey{Name: hco.ClusterConfigName}, u); err != nil {
			return err
		}
		if err := unstructured.SetNestedStringSlice(u.Object, plugins, "spec", "plugins"); err != nil {
			return err
		}
		return env.Client.Update(ctx, u)
	})
}

// expectConsolePlugins waits until the Console configuration's
// spec.plugins are want.
func expectConsolePlugins(t *testing.T, ctx context.Context, want ...string) {
	t.Helper()
	installtest.WaitFor(t, fmt.Sprintf("the console's plugins %v", want), func() error {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(consoleplugin.ConsoleConfigKind)
		if err := env.Client.Get(ctx, client.ObjectKey{Name: hco.ClusterConfigName}, u); err != nil {
			return err
		}
		if got, _, _ := unstructured.NestedStringSlice(u.Object, "spec", "plugins"); !slices.Equal(got, want) {
			return fmt.Errorf("plugins %v", got)
		}
		return nil
	})
}

// expectDownloadRoute waits until the Ingress configuration's status has,
// or has not, the virtctl download's component route of namespace ns.
func expectDownloadRoute(t *testing.T, ctx context.Context, ns string, present bool) {
	t.Helper()
	installtest.WaitFor(t, fmt.Sprintf("the download's component route published: %v", present), func() error {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(ingressKind)
		if err := env.Client.Get(ctx, client.ObjectKey{Name: hco.ClusterConfigName}, u); err != nil {
			return err
		}
		routes, _, _ := unstructured.NestedSlice(u.Object, "status", "componentRoutes")
		found := slices.ContainsFunc(routes, func(r any) bool {
			m, _ := r.(map[string]any)
			return m["name"] == clidownload.ComponentRoute && m["namespace"] == ns
		})
		if found != present {
			return fmt.Errorf("status.componentRoutes %v", routes)
		}
		return nil
	})
}
