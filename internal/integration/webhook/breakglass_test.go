package webhook

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/hcokit/hcokit/internal/testenv"
)

// With the webhook down, the API server refuses to delete the HyperConverged
// (failurePolicy Fail); the break-glass docs/webhook.md gives, deleting the
// ValidatingWebhookConfiguration, lets the deletion through, and the
// operator still uninstalls (its own writes never go through the webhook).
func TestBreakGlassWithTheWebhookDown(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	hc := createHC(t, nil)

	vwc := restoreValidationAtEnd(t)

	// The webhook down: its configuration points at a port nothing serves.
	for i := range vwc.Webhooks {
		if u := vwc.Webhooks[i].ClientConfig.URL; u != nil {
			parsed, err := url.Parse(*u)
			require.NoError(t, err)
			parsed.Host = "127.0.0.1:1"
			down := parsed.String()
			vwc.Webhooks[i].ClientConfig.URL = &down
		}
	}
	require.NoError(t, k.Update(ctx, vwc))
	testenv.Eventually(t, "the deletion refused while the webhook is down", func() error {
		err := k.Delete(ctx, hc.DeepCopy(), client.DryRunAll)
		if err == nil || !strings.Contains(err.Error(), "failed calling webhook") {
			return fmt.Errorf("the deletion was not refused for the webhook: %v", err)
		}
		return nil
	})

	// The break-glass: the validating configuration goes, the deletion
	// passes, the operator finalizes.
	require.NoError(t, k.Delete(ctx, vwc))
	testenv.DeleteAndWait(t, k, hc.DeepCopy())
}

// restoreValidationAtEnd returns the ValidatingWebhookConfiguration
// hco-webhook, and puts it back as it is now when the test ends, for the
// package's other tests: the test may change or delete it.
func restoreValidationAtEnd(t *testing.T) *admissionregistrationv1.ValidatingWebhookConfiguration {
	t.Helper()
	ctx := context.Background()
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	require.NoError(t, k.Get(ctx, client.ObjectKey{Name: "hco-webhook"}, vwc))
	saved := vwc.DeepCopy()
	t.Cleanup(func() {
		_ = k.Delete(ctx, &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: saved.ObjectMeta})
		restored := saved.DeepCopy()
		restored.ResourceVersion, restored.UID = "", ""
		testenv.Eventually(t, "the webhook configuration restored", func() error { return client.IgnoreAlreadyExists(k.Create(ctx, restored)) })
	})
	return vwc
}
