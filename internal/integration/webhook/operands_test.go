package webhook

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	kvv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/internal/testenv"
)

// A HyperConverged update whose KubeVirt the component's own admission
// refuses (here an admission policy on the KubeVirt CR, as virt-operator's
// webhook would) is refused when it is written, naming the operand, as
// upstream's webhook refuses it; the same update is taken once the
// component takes it.
func TestUpdateTheComponentRefusesIsRefused(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	createHC(t, nil)
	kv := &kvv1.KubeVirt{}
	testenv.Eventually(t, "KubeVirt created", func() error {
		return k.Get(ctx, client.ObjectKey{Namespace: ns, Name: "kubevirt-kubevirt-hyperconverged"}, kv)
	})
	refuseManyMigrations(t)

	tooMany := func(hc *v1beta1.HyperConverged) {
		hc.Spec.LiveMigrationConfig.ParallelMigrationsPerCluster = ptr.To(uint32(200))
	}
	testenv.Eventually(t, "the update refused with the component's answer", func() error {
		err := updateHC(t, tooMany)
		switch {
		case err == nil:
			// The policy was not in force yet: undo, and try again.
			require.NoError(t, updateHC(t, func(hc *v1beta1.HyperConverged) { hc.Spec.LiveMigrationConfig.ParallelMigrationsPerCluster = nil }))
			return fmt.Errorf("allowed")
		case !strings.Contains(err.Error(), "operand kubevirt: the API server refuses the update of KubeVirt kubevirt-hyperconverged/kubevirt-kubevirt-hyperconverged") ||
			!strings.Contains(err.Error(), "at most 100 parallel migrations"):
			return fmt.Errorf("refused, but not naming the operand and the component's answer: %v", err)
		}
		return nil
	})
	assert.NoError(t, updateHC(t, func(hc *v1beta1.HyperConverged) {
		hc.Spec.LiveMigrationConfig.ParallelMigrationsPerCluster = ptr.To(uint32(50))
	}), "what the component takes is taken")
}

// refuseManyMigrations installs an admission policy that refuses a KubeVirt
// with more than 100 parallel migrations, until the test ends.
func refuseManyMigrations(t *testing.T) {
	t.Helper()
	testenv.RefuseUpdates(t, k, testenv.UpdatePolicy{Name: "kubevirt-migrations", Group: "kubevirt.io", Resource: "kubevirts",
		Expression: "!has(object.spec.configuration.migrations) || !has(object.spec.configuration.migrations.parallelMigrationsPerCluster) || " +
			"object.spec.configuration.migrations.parallelMigrationsPerCluster <= 100",
		Message: "at most 100 parallel migrations"})
}

// The HyperConverged is stored as upstream's mutating webhook stores it: a
// deprecated gate moved into its field (with upstream's warning), the golden
// images' defaults, an empty KSM configuration; a gate contradicting its
// field is refused with upstream's message.
func TestStoredAsUpstreamStoresIt(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	hcv1 := func(spec map[string]any) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "hco.kubevirt.io/v1", "kind": "HyperConverged", "spec": spec}}
		u.SetNamespace(ns)
		u.SetName(v1beta1.HyperConvergedName)
		return u
	}
	contradicting := hcv1(map[string]any{
		"featureGates":    []any{map[string]any{"name": "enableMultiArchBootImageImport"}},
		"workloadSources": map[string]any{"enableMultiArchBootImageImport": false},
	})
	err := k.Create(ctx, contradicting)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the deprecated enableMultiArchBootImageImport feature gate, and spec.workloadSources.enableMultiArchBootImageImport field contradict each other")

	warnings.take()
	u := hcv1(map[string]any{
		"featureGates": []any{map[string]any{"name": "persistentReservation"}},
		"workloadSources": map[string]any{"dataImportCronTemplates": []any{map[string]any{
			"metadata": map[string]any{"name": "my-image"},
			"spec": map[string]any{"schedule": "1 2 * * *", "managedDataSource": "my-image",
				"template": map[string]any{"spec": map[string]any{"source": map[string]any{"registry": map[string]any{"url": "docker://example.com/img"}}}}},
		}}},
	})
	require.NoError(t, k.Create(ctx, u))
	t.Cleanup(func() { deleteHC(t, newHC(nil)) })
	assert.Contains(t, warnings.take(), "feature gate persistentReservation is deprecated; please use the spec.storage.persistentReservationConfiguration.enabled field instead")

	stored := &unstructured.Unstructured{}
	stored.SetGroupVersionKind(u.GroupVersionKind())
	require.NoError(t, k.Get(ctx, client.ObjectKeyFromObject(u), stored))
	pr, _, _ := unstructured.NestedBool(stored.Object, "spec", "storage", "persistentReservationConfiguration", "enabled")
	assert.True(t, pr, "the gate's value in its field")
	ksm, found, _ := unstructured.NestedMap(stored.Object, "spec", "virtualization", "ksmConfiguration")
	assert.True(t, found && len(ksm) == 0, "ksmConfiguration: {} (%v)", ksm)
	dicts, _, _ := unstructured.NestedSlice(stored.Object, "spec", "workloadSources", "dataImportCronTemplates")
	require.Len(t, dicts, 1)
	d := dicts[0].(map[string]any)
	retention, _, _ := unstructured.NestedString(d, "spec", "retentionPolicy")
	imports, _, _ := unstructured.NestedInt64(d, "spec", "importsToKeep")
	bind, _, _ := unstructured.NestedString(d, "metadata", "annotations", "cdi.kubevirt.io/storage.bind.immediate.requested")
	assert.Equal(t, []any{"None", int64(1), "true"}, []any{retention, imports, bind})
}

// The webhook judges a HyperConverged update on the facts the reconciler
// builds from (here: no Node, so one replica of KubeVirt's infrastructure
// components): a component that refuses any change of that replica count
// takes the update of an unrelated field, at admission and from the
// operator. On the facts of no cluster (nodes unknown: no replica count)
// the webhook's dry run would drop it and be refused.
func TestWebhookAndReconcilerJudgeOnTheSameFacts(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	createHC(t, nil)
	kv := &kvv1.KubeVirt{}
	key := client.ObjectKey{Namespace: ns, Name: "kubevirt-kubevirt-hyperconverged"}
	testenv.Eventually(t, "KubeVirt created", func() error { return k.Get(ctx, key, kv) })
	require.NotNil(t, kv.Spec.Infra, "no Node: the infrastructure is not highly available")
	require.Equal(t, ptr.To[uint8](1), kv.Spec.Infra.Replicas, "no Node: the infrastructure is not highly available")

	replicas := func(o string) string {
		return fmt.Sprintf("(has(%[1]s.spec.infra) && has(%[1]s.spec.infra.replicas) ? %[1]s.spec.infra.replicas : 0)", o)
	}
	testenv.RefuseUpdates(t, k, testenv.UpdatePolicy{Name: "kubevirt-infra-replicas", Group: "kubevirt.io", Resource: "kubevirts",
		Expression: replicas("object") + " == " + replicas("oldObject"), Message: "the infrastructure replicas may not change"})
	testenv.Eventually(t, "the component refuses another replica count", func() error {
		probe := &kvv1.KubeVirt{}
		if err := k.Get(ctx, key, probe); err != nil {
			return err
		}
		probe.Spec.Infra = nil
		if err := k.Update(ctx, probe, client.DryRunAll); err == nil || !strings.Contains(err.Error(), "may not change") {
			return fmt.Errorf("not refused yet: %v", err)
		}
		return nil
	})

	require.NoError(t, updateHC(t, func(hc *v1beta1.HyperConverged) {
		hc.Spec.LiveMigrationConfig.ParallelMigrationsPerCluster = ptr.To(uint32(7))
	}), "the webhook's dry run carries the reconciler's replica count")
	testenv.Eventually(t, "the operator wrote the change", func() error {
		if err := k.Get(ctx, key, kv); err != nil {
			return err
		}
		if m := kv.Spec.Configuration.MigrationConfiguration; m == nil || m.ParallelMigrationsPerCluster == nil || *m.ParallelMigrationsPerCluster != 7 {
			return fmt.Errorf("parallelMigrationsPerCluster not 7 yet")
		}
		return nil
	})
	assert.Equal(t, ptr.To[uint8](1), kv.Spec.Infra.Replicas)
}
