package v1beta1_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/internal/upstreamtest"
)

// deprecatedGatePaths are where the deprecated v1beta1 gates that v1 made
// fields live in each version, and the v1 gate list (which they never join
// but follow where listed).
var deprecatedGatePaths = map[string][]string{
	"v1": {
		"spec.featureGates",
		"spec.virtualization.mediatedDevicesConfiguration.enabled",
		"spec.storage.persistentReservationConfiguration.enabled",
		"spec.workloadSources.enableMultiArchBootImageImport",
	},
	"v1beta1": {
		"spec.featureGates.disableMDevConfiguration",
		"spec.featureGates.persistentReservation",
		"spec.featureGates.enableMultiArchBootImageImport",
	},
}

// TestConvertDeprecatedGatesAsUpstream: for each object of upstream's
// capture (api/testdata/upstream-03da3cf/conversion-deprecated-gates.json,
// its conversion run at 03da3cf), hcokit's conversion to the other version
// and back gives what upstream's gives at deprecatedGatePaths: a v1beta1
// disableMDevConfiguration is v1's mediatedDevicesConfiguration.enabled
// negated, persistentReservation is persistentReservationConfiguration.enabled,
// enableMultiArchBootImageImport is workloadSources' field; none is added to
// v1's gate list, and one listed there follows the v1beta1 gate.
func TestConvertDeprecatedGatesAsUpstream(t *testing.T) {
	raw, err := os.ReadFile("../testdata/upstream-03da3cf/conversion-deprecated-gates.json")
	require.NoError(t, err)
	var cases []struct {
		Name, From      string
		In              json.RawMessage
		Converted, Back map[string]any
	}
	require.NoError(t, json.Unmarshal(raw, &cases))
	require.NotEmpty(t, cases)
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			var converted, back any
			switch c.From {
			case "v1beta1":
				var in v1beta1.HyperConverged
				require.NoError(t, json.Unmarshal(c.In, &in))
				var hub hcov1.HyperConverged
				require.NoError(t, in.DeepCopy().ConvertTo(&hub))
				var out v1beta1.HyperConverged
				require.NoError(t, out.ConvertFrom(hub.DeepCopy()))
				converted, back = &hub, &out
			case "v1":
				var in hcov1.HyperConverged
				require.NoError(t, json.Unmarshal(c.In, &in))
				var old v1beta1.HyperConverged
				require.NoError(t, old.ConvertFrom(in.DeepCopy()))
				var out hcov1.HyperConverged
				require.NoError(t, old.DeepCopy().ConvertTo(&out))
				converted, back = &old, &out
			default:
				t.Fatalf("from %q", c.From)
			}
			// An entry of v1's list without a state is Enabled; hcokit keeps
			// it as written, upstream's round trip writes the state out.
			to := map[string]string{"v1": "v1beta1", "v1beta1": "v1"}[c.From]
			for _, p := range deprecatedGatePaths[to] {
				assert.Equal(t, at(c.Converted, p), at(upstreamtest.JSON(t, converted), p), "converted to %s: %s", to, p)
			}
			for _, p := range deprecatedGatePaths[c.From] {
				assert.Equal(t, at(c.Back, p), at(upstreamtest.JSON(t, back), p), "and back to %s: %s", c.From, p)
			}
		})
	}
}

// at is the value at a dotted path of m; nil where there is none (null and
// absent are one), and a gate list's entries with their state stated.
func at(m map[string]any, path string) any {
	var v any = m
	for _, k := range strings.Split(path, ".") {
		obj, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = obj[k]
	}
	if list, ok := v.([]any); ok && path == "spec.featureGates" {
		for _, e := range list {
			if g, ok := e.(map[string]any); ok && g["state"] == nil {
				g["state"] = string(hcov1.FeatureGateEnabled)
			}
		}
	}
	return v
}
