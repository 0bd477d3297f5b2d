package v1beta1_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"

	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/internal/crdschema"
)

// crdSchema loads the generated CRD's v1beta1 structural schema, the same
// one the API server defaults v1beta1 requests with.
func crdSchema(t *testing.T) *structuralschema.Structural {
	t.Helper()
	s, err := crdschema.HyperConverged("v1beta1")
	require.NoError(t, err)
	return s
}

// TestGoDefaultsMatchCRDDefaults proves that Default fills exactly what the
// API server's structural defaulting fills, for a range of partial objects.
func TestGoDefaultsMatchCRDDefaults(t *testing.T) {
	s := crdSchema(t)
	inputs := map[string]string{
		"empty":                  `{}`,
		"empty spec":             `{"spec": {}}`,
		"partial live migration": `{"spec": {"liveMigrationConfig": {"bandwidthPerMigration": "128Mi", "allowPostCopy": true}}}`,
		"partial cert config":    `{"spec": {"certConfig": {"ca": {"duration": "72h0m0s"}, "server": {}}}}`,
		"explicit empty methods": `{"spec": {"workloadUpdateStrategy": {"workloadUpdateMethods": []}}}`,
		"resource requirements":  `{"spec": {"resourceRequirements": {"vmiCPUAllocationRatio": 4}}}`,
		"gates and uninstall":    `{"spec": {"featureGates": {"downwardMetrics": true}, "uninstallStrategy": "RemoveWorkloads"}}`,
		"hostpath provisioner":   `{"spec": {"hostpathProvisioner": {"storagePools": [{"name": "local", "path": "/var/hpp"}]}}}`,
		"upstream-only fields": `{"spec": {"virtualMachineOptions": {"disableSerialConsoleLog": true}, "higherWorkloadDensity": {},
			"applicationAwareConfig": {"namespaceSelector": {}}, "enableCommonBootImageImport": false}}`,
		"seed placement": `{"spec": {"infra": {"nodePlacement": {"nodeSelector": {"nodeType": "infra"}}},
			"workloads": {"nodePlacement": {"nodeSelector": {"nodeType": "nested-virtualization"}}}}}`,
	}
	for name, in := range inputs {
		t.Run(name, func(t *testing.T) {
			var u map[string]any
			require.NoError(t, json.Unmarshal([]byte(in), &u))
			structuraldefaulting.Default(u, s)
			var byServer v1beta1.HyperConverged
			b, err := json.Marshal(u)
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(b, &byServer))

			var byGo v1beta1.HyperConverged
			require.NoError(t, json.Unmarshal([]byte(in), &byGo))
			v1beta1.Default(&byGo)

			assert.Equal(t, byServer, byGo)

			// Every value the server filled in survives the Go type: a
			// default the type dropped (an omitempty false) would make each
			// update through it change the stored object.
			// infra and workloads are structs, as upstream's, so the type
			// writes an absent one back as {}: the one addition allowed.
			filled, err := json.Marshal(u["spec"])
			require.NoError(t, err)
			var again map[string]any
			b, err = json.Marshal(&byServer.Spec)
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(b, &again))
			for _, group := range []string{"infra", "workloads"} {
				if g, ok := again[group].(map[string]any); ok && len(g) == 0 && !strings.Contains(string(filled), `"`+group+`"`) {
					delete(again, group)
				}
			}
			againJSON, err := json.Marshal(again)
			require.NoError(t, err)
			assert.JSONEq(t, string(filled), string(againJSON))
		})
	}
}

func TestSeedLiveMigrationDefaults(t *testing.T) {
	var hc v1beta1.HyperConverged
	v1beta1.Default(&hc)
	lm := hc.Spec.LiveMigrationConfig
	assert.Equal(t, "64Mi", *lm.BandwidthPerMigration)
	assert.Equal(t, int64(800), *lm.CompletionTimeoutPerGiB)
	assert.Equal(t, uint32(5), *lm.ParallelMigrationsPerCluster)
	assert.Equal(t, uint32(2), *lm.ParallelOutboundMigrationsPerNode)
	assert.Equal(t, int64(150), *lm.ProgressTimeout)
	assert.Equal(t, v1beta1.UninstallStrategyBlockUninstallIfWorkloadsExist, hc.Spec.UninstallStrategy)
	assert.Nil(t, hc.Spec.FeatureGates.WithHostPassthroughCPU, "a deprecated gate has no default, as upstream")
	assert.True(t, *hc.Spec.FeatureGates.DecentralizedLiveMigration, "upstream's beta gates default to on")
	assert.True(t, *hc.Spec.FeatureGates.DeclarativeHotplugVolumes)
}

func TestDefaultKeepsSetFields(t *testing.T) {
	hc := v1beta1.HyperConverged{Spec: v1beta1.HyperConvergedSpec{
		UninstallStrategy:   v1beta1.UninstallStrategyRemoveWorkloads,
		LiveMigrationConfig: v1beta1.LiveMigrationConfigurations{ProgressTimeout: ptr(int64(30))},
	}}
	v1beta1.Default(&hc)
	assert.Equal(t, v1beta1.UninstallStrategyRemoveWorkloads, hc.Spec.UninstallStrategy)
	assert.Equal(t, int64(30), *hc.Spec.LiveMigrationConfig.ProgressTimeout)
}

func ptr[T any](v T) *T { return &v }
