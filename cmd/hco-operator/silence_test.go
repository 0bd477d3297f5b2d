package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"

	"github.com/hcokit/hcokit/alertsilence"
)

// On OpenShift, the operator keeps upstream's silence in the platform's
// Alertmanager, with its own token (the file, which rotates); elsewhere, or
// with --alertmanager-url="", it keeps none.
func TestSilenceKeeperOnOpenShiftOnly(t *testing.T) {
	getenv := func(string) string { return "" }
	cfg := &rest.Config{BearerToken: "t", BearerTokenFile: "/var/run/secrets/kubernetes.io/serviceaccount/token"}
	c, _, _, err := parse(nil, getenv)
	require.NoError(t, err)
	assert.Nil(t, silenceKeeper(c.silence, false, cfg), "not on plain Kubernetes")
	k := silenceKeeper(c.silence, true, cfg)
	require.NotNil(t, k)
	assert.Equal(t, alertsilence.OpenShiftURL, k.URL)
	assert.Equal(t, alertsilence.ServiceCAFile, k.CAFile)
	assert.Equal(t, "t", k.Token)
	assert.Equal(t, cfg.BearerTokenFile, k.TokenFile)
	assert.Equal(t, []alertsilence.Silence{alertsilence.PodDisruptionBudgetAtLimit()}, k.Silences)

	c, _, _, err = parse([]string{"--alertmanager-url=https://am.example:9095", "--alertmanager-ca-file="}, getenv)
	require.NoError(t, err)
	k = silenceKeeper(c.silence, true, cfg)
	require.NotNil(t, k)
	assert.Equal(t, "https://am.example:9095", k.URL)
	assert.Empty(t, k.CAFile)

	c, _, _, err = parse([]string{"--alertmanager-url="}, getenv)
	require.NoError(t, err)
	assert.Nil(t, silenceKeeper(c.silence, true, cfg))
}
