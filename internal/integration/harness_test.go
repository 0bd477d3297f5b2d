package integration

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kvv1 "kubevirt.io/api/core/v1"
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/api/v1beta1"
)

// These tests prove the control plane is a real one: what a fake client
// would not do, it does.

func TestAPIServerPrunesUnknownOperandFields(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kubevirt.io/v1", "kind": "KubeVirt",
		"metadata": map[string]any{"name": "pruning-test", "namespace": "default"},
		"spec":     map[string]any{"imagePullPolicy": "IfNotPresent", "noSuchField": "dropped"},
	}}
	require.NoError(t, k.Create(ctx, u))
	t.Cleanup(func() { _ = k.Delete(context.Background(), u) })
	got := &unstructured.Unstructured{}
	got.SetGroupVersionKind(u.GroupVersionKind())
	require.NoError(t, k.Get(ctx, client.ObjectKeyFromObject(u), got))
	_, found, _ := unstructured.NestedFieldNoCopy(got.Object, "spec", "noSuchField")
	assert.False(t, found, "the structural schema prunes unknown fields")
	policy, _, _ := unstructured.NestedString(got.Object, "spec", "imagePullPolicy")
	assert.Equal(t, "IfNotPresent", policy)
}

func TestAPIServerRejectsAnInvalidEnum(t *testing.T) {
	env.Require(t)
	hc := &v1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: "enum-test", Namespace: "default"},
		Spec: v1beta1.HyperConvergedSpec{UninstallStrategy: "DeleteEverything"}}
	err := k.Create(context.Background(), hc)
	require.True(t, apierrors.IsInvalid(err), "want Invalid, got %v", err)
	assert.Contains(t, err.Error(), "spec.uninstallStrategy")
	assert.Contains(t, err.Error(), "BlockUninstallIfWorkloadsExist")
}

func TestAPIServerFillsTheSeedDefaults(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "hco.kubevirt.io/v1beta1", "kind": "HyperConverged",
		"metadata": map[string]any{"name": "defaults-test", "namespace": "default"},
	}}
	require.NoError(t, k.Create(ctx, u))
	t.Cleanup(func() { _ = k.Delete(context.Background(), u) })
	hc := &v1beta1.HyperConverged{}
	require.NoError(t, k.Get(ctx, client.ObjectKeyFromObject(u), hc))
	lm := hc.Spec.LiveMigrationConfig
	require.NotNil(t, lm.BandwidthPerMigration)
	assert.Equal(t, "64Mi", *lm.BandwidthPerMigration)
	assert.Equal(t, int64(800), *lm.CompletionTimeoutPerGiB)
	assert.Equal(t, uint32(5), *lm.ParallelMigrationsPerCluster)
	assert.Equal(t, uint32(2), *lm.ParallelOutboundMigrationsPerNode)
	assert.Equal(t, int64(150), *lm.ProgressTimeout)
	assert.Equal(t, v1beta1.UninstallStrategyBlockUninstallIfWorkloadsExist, hc.Spec.UninstallStrategy)

	// The server's defaults and the Go ones agree: v1beta1's on the request,
	// then the stored v1's, read back through the conversion.
	byGo := &v1beta1.HyperConverged{ObjectMeta: hc.ObjectMeta}
	v1beta1.Default(byGo)
	var stored hcov1.HyperConverged
	require.NoError(t, byGo.ConvertTo(&stored))
	hcov1.Default(&stored)
	var readBack v1beta1.HyperConverged
	require.NoError(t, readBack.ConvertFrom(&stored))
	assert.Equal(t, readBack.Spec, hc.Spec)

	var asV1 hcov1.HyperConverged
	require.NoError(t, k.Get(ctx, client.ObjectKeyFromObject(u), &asV1))
	assert.Equal(t, stored.Spec, asV1.Spec, "read as v1, it is what the Go conversion and defaults give")
}

func TestVirtualMachinesAndDataVolumesCanBeCreated(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	vm := &kvv1.VirtualMachine{
		ObjectMeta: metav1.ObjectMeta{Name: "vm-harness", Namespace: "default"},
		Spec: kvv1.VirtualMachineSpec{Template: &kvv1.VirtualMachineInstanceTemplateSpec{
			Spec: kvv1.VirtualMachineInstanceSpec{Domain: kvv1.DomainSpec{Devices: kvv1.Devices{}}},
		}},
	}
	require.NoError(t, k.Create(ctx, vm))
	t.Cleanup(func() { _ = k.Delete(context.Background(), vm) })
	dv := &cdiv1beta1.DataVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "dv-harness", Namespace: "default"},
		Spec: cdiv1beta1.DataVolumeSpec{
			Source: &cdiv1beta1.DataVolumeSource{Blank: &cdiv1beta1.DataVolumeBlankImage{}},
		},
	}
	require.NoError(t, k.Create(ctx, dv))
	t.Cleanup(func() { _ = k.Delete(context.Background(), dv) })
	require.NoError(t, k.Get(ctx, client.ObjectKeyFromObject(vm), &kvv1.VirtualMachine{}))
	require.NoError(t, k.Get(ctx, client.ObjectKeyFromObject(dv), &cdiv1beta1.DataVolume{}))
}
