package integration

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/util/retry"
	kvv1 "kubevirt.io/api/core/v1"
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	sspv1beta3 "kubevirt.io/ssp-operator/api/v1beta3"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/internal/testenv"
	cnaov1 "github.com/hcokit/hcokit/operands/cnao/api/v1"
)

// TestConversionThroughTheAPIServer: with the conversion webhook registered
// over TLS, an object written in either version reads the same in both, and
// an update through one version keeps what only the other one holds.
func TestConversionThroughTheAPIServer(t *testing.T) {
	env.Require(t)
	ctx := context.Background()

	t.Run("v1beta1 written, read as v1 and as v1beta1", func(t *testing.T) {
		old := &v1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: "conv-v1beta1", Namespace: "default"}}
		old.Spec.Infra.NodePlacement = &v1beta1.NodePlacement{NodeSelector: map[string]string{"nodeType": "infra"}}
		old.Spec.FeatureGates.WithHostPassthroughCPU = ptrTo(true)
		old.Spec.FeatureGates.Others = map[string]bool{"futureGate": true}
		old.Spec.ObsoleteCPUs = &v1beta1.HyperConvergedObsoleteCPUs{MinCPUModel: "Haswell", CPUModels: []string{"Nehalem"}}
		old.Spec.PermittedHostDevices = &v1beta1.PermittedHostDevices{PciHostDevices: []v1beta1.PciHostDevice{
			{PCIVendorSelector: "10DE:1EB8", ResourceName: "nvidia.com/T4"},
		}}
		require.NoError(t, k.Create(ctx, old))
		t.Cleanup(func() { _ = k.Delete(context.Background(), old) })
		key := client.ObjectKeyFromObject(old)

		var hub hcov1.HyperConverged
		require.NoError(t, k.Get(ctx, key, &hub))
		assert.Equal(t, "infra", hub.Spec.InfraPlacement().NodeSelector["nodeType"])
		assert.True(t, hub.Spec.FeatureGates.Enabled("withHostPassthroughCPU"))
		_, listed := hub.Spec.FeatureGates.Lookup("futureGate")
		assert.True(t, listed, "a gate v1beta1 has no field for is kept")
		assert.Equal(t, []string{"Nehalem"}, hub.Spec.Virtualization.ObsoleteCPUModels)
		assert.Equal(t, "10DE:1EB8", hub.Spec.Virtualization.PermittedHostDevices.PciHostDevices[0].PCIDeviceSelector)
		assert.Equal(t, int64(800), *hub.Spec.Virtualization.LiveMigrationConfig.CompletionTimeoutPerGiB)

		var back v1beta1.HyperConverged
		require.NoError(t, k.Get(ctx, key, &back))
		assert.Equal(t, "Haswell", back.Spec.ObsoleteCPUs.MinCPUModel, "a field v1 lacks survives")
		assert.Equal(t, "10DE:1EB8", back.Spec.PermittedHostDevices.PciHostDevices[0].PCIVendorSelector, "so does the spelling")
		assert.Equal(t, map[string]bool{"futureGate": true}, back.Spec.FeatureGates.Others)
		assert.NotContains(t, back.Annotations, v1beta1.FieldsAnnotation)

		// Updates through v1 keep what only v1beta1 holds...
		update(t, key, &hcov1.HyperConverged{}, func(o client.Object) {
			o.(*hcov1.HyperConverged).Spec.Virtualization.LiveMigrationConfig.ProgressTimeout = ptrTo(int64(300))
		})
		require.NoError(t, k.Get(ctx, key, &back))
		assert.Equal(t, int64(300), *back.Spec.LiveMigrationConfig.ProgressTimeout)
		assert.Equal(t, "Haswell", back.Spec.ObsoleteCPUs.MinCPUModel)

		// ...and an update through v1beta1 that changes nothing changes nothing.
		before := hub.DeepCopy()
		require.NoError(t, k.Get(ctx, key, before))
		update(t, key, &v1beta1.HyperConverged{}, func(client.Object) {})
		var after hcov1.HyperConverged
		require.NoError(t, k.Get(ctx, key, &after))
		assert.Equal(t, before.Generation, after.Generation, "a no-op update through v1beta1 does not change the spec")
		assert.JSONEq(t, jsonOf(t, before.Spec), jsonOf(t, after.Spec))
		assert.Equal(t, before.Annotations, after.Annotations)
	})

	t.Run("v1 written, read as v1beta1", func(t *testing.T) {
		hub := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: "conv-v1", Namespace: "default"}}
		hub.Spec.FeatureGates.Set("downwardMetrics", true)
		hub.Spec.FeatureGates.Set("template", true)
		hub.Spec.Deployment.NodePlacements = &hcov1.NodePlacements{Workload: &hcov1.NodePlacement{NodeSelector: map[string]string{"role": "virt"}}}
		hub.Spec.Storage = &hcov1.StorageConfig{ScratchSpaceStorageClass: ptrTo("fast")}
		require.NoError(t, k.Create(ctx, hub))
		t.Cleanup(func() { _ = k.Delete(context.Background(), hub) })
		key := client.ObjectKeyFromObject(hub)

		var old v1beta1.HyperConverged
		require.NoError(t, k.Get(ctx, key, &old))
		assert.True(t, *old.Spec.FeatureGates.DownwardMetrics)
		assert.Equal(t, map[string]bool{"template": true}, old.Spec.FeatureGates.Others)
		assert.Equal(t, "virt", old.Spec.Workloads.NodePlacement.NodeSelector["role"])
		assert.Equal(t, "fast", *old.Spec.ScratchSpaceStorageClass)

		// An update through v1beta1 keeps the v1 gate v1beta1 has no field for.
		update(t, key, &v1beta1.HyperConverged{}, func(o client.Object) {
			o.(*v1beta1.HyperConverged).Spec.DefaultCPUModel = ptrTo("Skylake")
		})
		var after hcov1.HyperConverged
		require.NoError(t, k.Get(ctx, key, &after))
		assert.True(t, after.Spec.FeatureGates.Enabled("template"))
		assert.Equal(t, "Skylake", *after.Spec.Virtualization.VirtualMachineOptions.DefaultCPUModel)
	})
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	raw, err := json.Marshal(v)
	require.NoError(t, err)
	return string(raw)
}

// update reads key into obj, mutates it and writes it back, again on a
// conflict (the operator marks these non-singleton objects as ignored).
func update(t *testing.T, key client.ObjectKey, obj client.Object, mutate func(client.Object)) {
	t.Helper()
	require.NoError(t, retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := k.Get(context.Background(), key, obj); err != nil {
			return err
		}
		mutate(obj)
		return k.Update(context.Background(), obj)
	}))
}

// TestSameOperandsWhicheverVersionTheAdminWrote: for each example, the v1
// file and its v1beta1 form, applied in turn, give the operator the same
// operand CRs.
func TestSameOperandsWhicheverVersionTheAdminWrote(t *testing.T) {
	env.Require(t)
	for _, name := range []string{"permitted-host-devices.yaml", "node-placement-affinity.yaml", "deploy-ovs.yaml", "jsonpatch-allow-post-copy.yaml"} {
		t.Run(name, func(t *testing.T) {
			root, err := testenv.RepoRoot()
			require.NoError(t, err)
			fromV1 := operandSpecsFor(t, filepath.Join(root, "examples", name))
			fromV1beta1 := operandSpecsFor(t, filepath.Join(root, "examples", "v1beta1", name))
			assert.Equal(t, fromV1, fromV1beta1)
		})
	}
}

// operandSpecsFor applies the HyperConverged in file as written, waits for
// the operand CRs, returns their specs by kind, and deletes it again.
func operandSpecsFor(t *testing.T, file string) map[string]any {
	t.Helper()
	ctx := context.Background()
	raw, err := os.ReadFile(file)
	require.NoError(t, err)
	u := &unstructured.Unstructured{}
	require.NoError(t, yaml.Unmarshal(raw, &u.Object))
	u.SetNamespace(ns)
	require.NoError(t, k.Create(ctx, u, client.FieldValidation(metav1.FieldValidationStrict)))
	specs := map[string]any{}
	testenv.Eventually(t, "operand CRs of "+filepath.Base(file), func() error {
		for key, kind := range map[client.ObjectKey]schema.GroupVersionKind{
			kvKey:   kvv1.GroupVersion.WithKind("KubeVirt"),
			cdiKey:  cdiv1beta1.SchemeGroupVersion.WithKind("CDI"),
			cnaoKey: cnaov1.GroupVersion.WithKind("NetworkAddonsConfig"),
			sspKey:  sspv1beta3.GroupVersion.WithKind("SSP"),
		} {
			obj := &unstructured.Unstructured{}
			obj.SetGroupVersionKind(kind)
			if err := k.Get(ctx, key, obj); err != nil {
				return err
			}
			if kind.Kind == "SSP" {
				// The golden images' schedule derives from the
				// HyperConverged's UID: each object gets its own.
				dicts, _, _ := unstructured.NestedSlice(obj.Object, "spec", "commonTemplates", "dataImportCronTemplates")
				for _, d := range dicts {
					if m, ok := d.(map[string]any); ok {
						unstructured.RemoveNestedField(m, "spec", "schedule")
					}
				}
				_ = unstructured.SetNestedSlice(obj.Object, dicts, "spec", "commonTemplates", "dataImportCronTemplates")
			}
			specs[kind.Kind] = obj.Object["spec"]
		}
		return nil
	})
	deleteHC(t)
	return specs
}

// TestGoldenImageMetadataIsKept: the API server keeps the metadata of a
// custom golden image (the CRD declares embedded ObjectMeta), in spec and
// through both versions; without it the name would be pruned and the image
// lost.
func TestGoldenImageMetadataIsKept(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	hub := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: "golden-meta", Namespace: "default"}}
	hub.Spec.WorkloadSources.DataImportCronTemplates = []hcov1.DataImportCronTemplate{{
		ObjectMeta: metav1.ObjectMeta{Name: "my-image", Annotations: map[string]string{"dataimportcrontemplate.kubevirt.io/enable": "true"}},
		Spec:       &cdiv1beta1.DataImportCronSpec{Schedule: "0 */12 * * *", ManagedDataSource: "my-image"},
	}}
	require.NoError(t, k.Create(ctx, hub))
	t.Cleanup(func() { _ = k.Delete(context.Background(), hub) })
	key := client.ObjectKeyFromObject(hub)

	var got hcov1.HyperConverged
	require.NoError(t, k.Get(ctx, key, &got))
	require.Len(t, got.Spec.WorkloadSources.DataImportCronTemplates, 1)
	assert.Equal(t, "my-image", got.Spec.WorkloadSources.DataImportCronTemplates[0].Name)
	assert.Equal(t, "true", got.Spec.WorkloadSources.DataImportCronTemplates[0].Annotations["dataimportcrontemplate.kubevirt.io/enable"])

	var old v1beta1.HyperConverged
	require.NoError(t, k.Get(ctx, key, &old))
	require.Len(t, old.Spec.DataImportCronTemplates, 1)
	assert.Equal(t, "my-image", old.Spec.DataImportCronTemplates[0].Name)
}
