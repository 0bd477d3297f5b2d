package v1_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"

	v1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/internal/crdschema"
)

// crdSchema loads the generated CRD's v1beta1 structural schema, the same
// one the API server defaults v1beta1 requests with.
func crdSchema(t *testing.T) *structuralschema.Structural {
	t.Helper()
	s, err := crdschema.HyperConverged("v1")
	require.NoError(t, err)
	return s
}

// TestGoDefaultsMatchCRDDefaults proves that Default fills what the API
// server's structural defaulting fills, for a range of partial objects. The
// CRD writes upstream's defaults at upstream's levels (a group's default
// object applies only when the group is absent), and a Go struct cannot tell
// an absent group from an empty one: Default fills as for an absent group.
// goOnly lists, per input, the fields Default fills that the server leaves
// unset; every translator reads each of them unset as that same default.
func TestGoDefaultsMatchCRDDefaults(t *testing.T) {
	s := crdSchema(t)
	const (
		commonImages = "workloadSources.enableCommonBootImageImport" // nil reads as true (ssp)
		aaq          = "deployment.applicationAwareConfig"           // nil reads as disabled (aaq)
	)
	inputs := map[string]struct {
		json   string
		goOnly []string
	}{
		"empty":                  {json: `{}`},
		"empty spec":             {json: `{"spec": {}}`, goOnly: []string{commonImages}},
		"partial live migration": {json: `{"spec": {"virtualization": {"liveMigrationConfig": {"bandwidthPerMigration": "128Mi", "allowPostCopy": true}}}}`, goOnly: []string{commonImages}},
		"partial cert config":    {json: `{"spec": {"security": {"certConfig": {"ca": {"duration": "72h0m0s"}, "server": {}}}}}`, goOnly: []string{commonImages}},
		"explicit empty methods": {json: `{"spec": {"virtualization": {"workloadUpdateStrategy": {"workloadUpdateMethods": []}}}}`, goOnly: []string{commonImages}},
		"cpu allocation ratio":   {json: `{"spec": {"virtualization": {"vmiCPUAllocationRatio": 4}}}`, goOnly: []string{commonImages}},
		"gates and uninstall":    {json: `{"spec": {"featureGates": [{"name": "downwardMetrics"}], "deployment": {"uninstallStrategy": "RemoveWorkloads"}}}`, goOnly: []string{commonImages, aaq}},
		"hostpath provisioner":   {json: `{"spec": {"storage": {"hostpathProvisioner": {"storagePools": [{"name": "local", "path": "/var/hpp"}]}}}}`, goOnly: []string{commonImages}},
		"upstream-only fields": {json: `{"spec": {"virtualization": {"virtualMachineOptions": {"disableSerialConsoleLog": true}, "higherWorkloadDensity": {}},
			"deployment": {"applicationAwareConfig": {"namespaceSelector": {}}}, "workloadSources": {"enableCommonBootImageImport": false}}}`},
		"seed placement": {json: `{"spec": {"deployment": {"nodePlacements": {"infra": {"nodeSelector": {"nodeType": "infra"}},
			"workload": {"nodeSelector": {"nodeType": "nested-virtualization"}}}}}}`, goOnly: []string{commonImages, aaq}},
	}
	for name, in := range inputs {
		t.Run(name, func(t *testing.T) {
			var u map[string]any
			require.NoError(t, json.Unmarshal([]byte(in.json), &u))
			structuraldefaulting.Default(u, s)
			var byServer v1.HyperConverged
			b, err := json.Marshal(u)
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(b, &byServer))

			var byGo v1.HyperConverged
			require.NoError(t, json.Unmarshal([]byte(in.json), &byGo))
			v1.Default(&byGo)

			// What Default fills beyond the server, removed, leaves the
			// server's object exactly.
			goSpec := toMap(t, &byGo.Spec)
			for _, path := range in.goOnly {
				assert.True(t, removePath(goSpec, path), "Default no longer fills %s beyond the server: drop it from goOnly", path)
			}
			assert.Equal(t, toMap(t, &byServer.Spec), goSpec)

			// Every value the server filled in survives the Go type: a
			// default the type dropped (an omitempty false) would make each
			// update through it change the stored object.
			// WorkloadSources is a struct, as upstream's, so the type writes
			// an absent group back as {}: the one addition allowed.
			filled, err := json.Marshal(u["spec"])
			require.NoError(t, err)
			again := toMap(t, &byServer.Spec)
			if ws, ok := again["workloadSources"].(map[string]any); ok && len(ws) == 0 && !strings.Contains(string(filled), `"workloadSources"`) {
				delete(again, "workloadSources")
			}
			againJSON, err := json.Marshal(again)
			require.NoError(t, err)
			assert.JSONEq(t, string(filled), string(againJSON))
		})
	}
}

func toMap(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	return m
}

// removePath deletes the member at a dotted path; it reports whether the
// member was there.
func removePath(m map[string]any, path string) bool {
	head, rest, nested := strings.Cut(path, ".")
	if !nested {
		_, ok := m[head]
		delete(m, head)
		return ok
	}
	child, ok := m[head].(map[string]any)
	return ok && removePath(child, rest)
}

func TestSeedLiveMigrationDefaults(t *testing.T) {
	var hc v1.HyperConverged
	v1.Default(&hc)
	lm := hc.Spec.Virtualization.LiveMigrationConfig
	assert.Equal(t, "64Mi", *lm.BandwidthPerMigration)
	assert.Equal(t, int64(800), *lm.CompletionTimeoutPerGiB)
	assert.Equal(t, uint32(5), *lm.ParallelMigrationsPerCluster)
	assert.Equal(t, uint32(2), *lm.ParallelOutboundMigrationsPerNode)
	assert.Equal(t, int64(150), *lm.ProgressTimeout)
	assert.Equal(t, v1.UninstallStrategyBlockUninstallIfWorkloadsExist, hc.Spec.Deployment.UninstallStrategy)
	assert.False(t, hc.Spec.FeatureGates.Enabled("withHostPassthroughCPU"))
}

func TestDefaultKeepsSetFields(t *testing.T) {
	hc := v1.HyperConverged{Spec: v1.HyperConvergedSpec{
		Deployment:     v1.DeploymentConfig{UninstallStrategy: v1.UninstallStrategyRemoveWorkloads},
		Virtualization: v1.VirtualizationConfig{LiveMigrationConfig: v1.LiveMigrationConfigurations{ProgressTimeout: ptr(int64(30))}},
	}}
	v1.Default(&hc)
	assert.Equal(t, v1.UninstallStrategyRemoveWorkloads, hc.Spec.Deployment.UninstallStrategy)
	assert.Equal(t, int64(30), *hc.Spec.Virtualization.LiveMigrationConfig.ProgressTimeout)
}

func ptr[T any](v T) *T { return &v }
