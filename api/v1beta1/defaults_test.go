package v1beta1_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"sigs.k8s.io/yaml"

	"github.com/hcokit/hcokit/api/v1beta1"
)

// crdSchema loads the generated CRD's structural schema, the same one the
// API server defaults with.
func crdSchema(t *testing.T) *structuralschema.Structural {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "config", "crd", "bases", "hco.kubevirt.io_hyperconvergeds.yaml"))
	require.NoError(t, err)
	var crd apiextensionsv1.CustomResourceDefinition
	require.NoError(t, yaml.UnmarshalStrict(raw, &crd))
	require.Len(t, crd.Spec.Versions, 1)
	var internal apiextensions.JSONSchemaProps
	require.NoError(t, apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(crd.Spec.Versions[0].Schema.OpenAPIV3Schema, &internal, nil))
	s, err := structuralschema.NewStructural(&internal)
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
	assert.False(t, *hc.Spec.FeatureGates.WithHostPassthroughCPU)
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
