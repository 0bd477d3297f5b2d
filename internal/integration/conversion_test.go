package integration

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/api/v1beta1"
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
		old.Spec.FeatureGates.Others = map[string]bool{"videoConfig": true}
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
		assert.True(t, hub.Spec.FeatureGates.IsEnabled("withHostPassthroughCPU"))
		assert.True(t, hub.Spec.FeatureGates.IsEnabled("videoConfig"))
		assert.Equal(t, []string{"Nehalem"}, hub.Spec.Virtualization.ObsoleteCPUModels)
		assert.Equal(t, "10DE:1EB8", hub.Spec.Virtualization.PermittedHostDevices.PciHostDevices[0].PCIDeviceSelector)
		assert.Equal(t, int64(800), *hub.Spec.Virtualization.LiveMigrationConfig.CompletionTimeoutPerGiB)

		var back v1beta1.HyperConverged
		require.NoError(t, k.Get(ctx, key, &back))
		assert.Equal(t, "Haswell", back.Spec.ObsoleteCPUs.MinCPUModel, "a field v1 lacks survives")
		assert.Equal(t, "10DE:1EB8", back.Spec.PermittedHostDevices.PciHostDevices[0].PCIVendorSelector, "so does the spelling")
		assert.Equal(t, map[string]bool{"videoConfig": true}, back.Spec.FeatureGates.Others)
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
		assert.True(t, after.Spec.FeatureGates.IsEnabled("template"))
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
