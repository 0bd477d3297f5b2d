package webhook

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/internal/testenv"
	"github.com/hcokit/hcokit/internal/upstreamtest"
)

// A HyperConverged stored as v1beta1 by upstream 1.18.1 (its
// deploy/hco.cr.yaml at tag v1.18.1, written as v1beta1 while the CRD
// stores v1beta1, as 1.18's CRD does) reads as v1 through hcokit's
// conversion as upstream 1.20 (03da3cf) reads it: upstream's own
// conversion of the same object is testdata/upstream-03da3cf-reads-1.18.1.json
// (captured by capture_stored118_test.go.txt, run in upstream's tree). The
// deprecated gates are upstream's v1 fields (disableMDevConfiguration:
// false is mediatedDevicesConfiguration.enabled: true, persistentReservation:
// false is persistentReservationConfiguration.enabled: false), none is a v1
// gate, nor is the discontinued videoConfig, and the rest of the spec is
// upstream's too, but for what v1Differences names.
func TestStoredByUpstream118ReadsAsUpstream120(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	const other = "stored-by-118"
	testenv.EnsureNamespace(t, k, other)

	raw, err := os.ReadFile("testdata/upstream-1.18.1-hco.cr.yaml")
	require.NoError(t, err)
	sample := &unstructured.Unstructured{}
	require.NoError(t, yaml.Unmarshal(raw, &sample.Object))
	require.Equal(t, "hco.kubevirt.io/v1beta1", sample.GetAPIVersion())

	var upstream struct {
		Spec map[string]any `json:"spec"`
	}
	raw, err = os.ReadFile("testdata/upstream-03da3cf-reads-1.18.1.json")
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &upstream))

	// Outside the operator's namespace: the validating webhook, which
	// refuses it there, is off meanwhile.
	vwc := restoreValidationAtEnd(t)
	require.NoError(t, k.Delete(ctx, vwc))
	name := createStoredAsV1beta1(t, other, func(name string) client.Object {
		hc := sample.DeepCopy()
		hc.SetNamespace(other)
		hc.SetName(name)
		return hc
	})

	hub := &unstructured.Unstructured{}
	hub.SetAPIVersion("hco.kubevirt.io/v1")
	hub.SetKind("HyperConverged")
	require.NoError(t, k.Get(ctx, client.ObjectKey{Namespace: other, Name: name}, hub))
	stored, err := env.StoredAPIVersion("hco.kubevirt.io", "hyperconvergeds", other, name)
	require.NoError(t, err)
	require.Equal(t, "hco.kubevirt.io/v1beta1", stored, "read through the conversion, as stored by 1.18")

	got, _ := hub.Object["spec"].(map[string]any)
	assert.Equal(t, true, at(got, "virtualization", "mediatedDevicesConfiguration", "enabled"))
	assert.Equal(t, false, at(got, "storage", "persistentReservationConfiguration", "enabled"))
	assert.Equal(t, []any{map[string]any{"name": "declarativeHotplugVolumes", "state": "Disabled"}}, got["featureGates"],
		"no deprecated or discontinued gate (disableMDevConfiguration, persistentReservation, videoConfig) in v1's list")

	// An API server shows the conversion's output with the v1 CRD's
	// defaults filled in: hcokit's here (hcov1.Default), which are
	// upstream's but for the seed's values (api/upstream_test lists them;
	// of those, 1.18's sample leaves only bandwidthPerMigration unset).
	var want hcov1.HyperConverged
	raw, err = json.Marshal(map[string]any{"spec": upstream.Spec})
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &want))
	hcov1.Default(&want)
	wantSpec := withoutNulls(upstreamtest.JSON(t, want.Spec)).(map[string]any)
	gotSpec := withoutNulls(upstreamtest.JSON(t, got)).(map[string]any)
	for path := range v1Differences {
		keys := strings.Split(path, ".")
		assert.NotEqual(t, at(wantSpec, keys...), at(gotSpec, keys...), "listed difference %s no longer differs: remove it", path)
		drop(wantSpec, path)
		drop(gotSpec, path)
	}
	assert.Equal(t, wantSpec, gotSpec, "the v1 spec upstream 1.20 reads, but for v1Differences")
}

// v1Differences are the paths of the v1 spec where hcokit's read of 1.18's
// object differs from upstream 1.20's, with the reason.
var v1Differences = map[string]string{
	"virtualization.ksmConfiguration": "{} written by the mutating webhook at create (hcokit's here, which wrote the object; upstream's writes the same at creation)",
}

// at is the value at a path of m (nil where there is none).
func at(m map[string]any, path ...string) any {
	var v any = m
	for _, k := range path {
		obj, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = obj[k]
	}
	return v
}

// drop deletes the member at a dotted path of m.
func drop(m map[string]any, path string) {
	head, rest, nested := strings.Cut(path, ".")
	if !nested {
		delete(m, head)
		return
	}
	if sub, ok := m[head].(map[string]any); ok {
		drop(sub, rest)
	}
}

// withoutNulls is v without null members (a Go type's null and an absent
// member read the same).
func withoutNulls(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if e != nil {
				out[k] = withoutNulls(e)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = withoutNulls(e)
		}
		return out
	}
	return v
}
