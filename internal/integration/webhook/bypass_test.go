package webhook

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/hcokit/hcokit/api/v1beta1"
)

// as returns a client that acts as user (with the rights of system:masters,
// so that only admission tells the users apart).
func as(t *testing.T, user string) client.Client {
	t.Helper()
	cfg := rest.CopyConfig(env.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: []string{"system:masters"}}
	c, err := client.New(cfg, client.Options{Scheme: env.Scheme})
	require.NoError(t, err)
	return c
}

// The operator's own service account, in the namespace of the HyperConverged,
// is not sent to the webhook (config/webhook matchConditions), so that an
// uninstall can finish while the webhook is down; a service account of the
// same name in another namespace is.
func TestOnlyTheOperatorsServiceAccountBypassesTheWebhook(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	second := func(hc *v1beta1.HyperConverged) { hc.Name = "second" }
	want := denial(`metadata.name: Invalid value: "second": the HyperConverged is a singleton; name it "kubevirt-hyperconverged"`)

	err := as(t, "system:serviceaccount:elsewhere:hco-operator").Create(ctx, newHC(second))
	assert.Equal(t, want, errText(err), "a namesake in another namespace")
	err = as(t, "system:serviceaccount:"+ns+":other").Create(ctx, newHC(second))
	assert.Equal(t, want, errText(err), "another service account of the operator namespace")

	hc := newHC(second)
	require.NoError(t, as(t, "system:serviceaccount:"+ns+":hco-operator").Create(ctx, hc), "the operator's service account")
	deleteHC(t, hc)
}
