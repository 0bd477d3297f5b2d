package integration

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kvv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/internal/testenv"
	"github.com/hcokit/hcokit/operands/kubevirt"
)

// TestFeatureGateFormsRoundTripAndApply: a v1 HyperConverged whose gates
// use each of upstream's forms (no state, Enabled, Disabled) applies with
// strict field validation; read as v1beta1 and written back, its gate list
// is unchanged (order and forms); and the beta gate it disables stays off
// in KubeVirt.
func TestFeatureGateFormsRoundTripAndApply(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	u := &unstructured.Unstructured{}
	require.NoError(t, yaml.Unmarshal([]byte(`
apiVersion: hco.kubevirt.io/v1
kind: HyperConverged
metadata: {name: kubevirt-hyperconverged}
spec:
  featureGates:
  - name: downwardMetrics
  - name: alignCPUs
    state: Enabled
  - name: declarativeHotplugVolumes
    state: Disabled
  observability:
    allowedAlerts: [none]
`), &u.Object))
	u.SetNamespace(ns)
	require.NoError(t, k.Create(ctx, u, client.FieldValidation(metav1.FieldValidationStrict)))
	t.Cleanup(func() { deleteHC(t) })
	key := client.ObjectKeyFromObject(u)

	var before hcov1.HyperConverged
	require.NoError(t, k.Get(ctx, key, &before))
	enabled, disabled := hcov1.FeatureGateEnabled, hcov1.FeatureGateDisabled
	want := hcov1.FeatureGates{{Name: "downwardMetrics"}, {Name: "alignCPUs", State: &enabled}, {Name: "declarativeHotplugVolumes", State: &disabled}}
	require.Equal(t, want, before.Spec.FeatureGates, "stored as written")

	// Read back as v1beta1: the booleans say the same.
	var old v1beta1.HyperConverged
	require.NoError(t, k.Get(ctx, key, &old))
	assert.True(t, *old.Spec.FeatureGates.DownwardMetrics)
	assert.True(t, *old.Spec.FeatureGates.AlignCPUs)
	assert.False(t, *old.Spec.FeatureGates.DeclarativeHotplugVolumes)
	assert.True(t, *old.Spec.FeatureGates.DecentralizedLiveMigration, "an unlisted beta gate reads as on")

	// Written again through v1beta1 with a change elsewhere: the gate list
	// and observability come back exactly.
	update(t, key, &v1beta1.HyperConverged{}, func(o client.Object) {
		o.(*v1beta1.HyperConverged).Spec.DefaultCPUModel = ptrTo("Skylake")
	})
	var after hcov1.HyperConverged
	require.NoError(t, k.Get(ctx, key, &after))
	assert.Equal(t, want, after.Spec.FeatureGates)
	assert.Equal(t, before.Spec.Observability, after.Spec.Observability)
	assert.NotContains(t, after.Annotations, v1beta1.V1OnlyFieldsAnnotation, "the annotation is v1beta1's business")
	assert.Equal(t, "Skylake", *after.Spec.Virtualization.VirtualMachineOptions.DefaultCPUModel)

	// The disabled beta gate is off in KubeVirt: HotplugVolumes instead.
	testenv.Eventually(t, "KubeVirt gates", func() error {
		kv := &kvv1.KubeVirt{}
		if err := k.Get(ctx, client.ObjectKey{Namespace: ns, Name: kubevirt.CRName}, kv); err != nil {
			return err
		}
		dev := kv.Spec.Configuration.DeveloperConfiguration
		if dev == nil {
			return fmt.Errorf("no developerConfiguration")
		}
		switch {
		case slices.Contains(dev.FeatureGates, "DeclarativeHotplugVolumes"):
			return fmt.Errorf("DeclarativeHotplugVolumes is on: %v", dev.FeatureGates)
		case !slices.Contains(dev.DisabledFeatureGates, "DeclarativeHotplugVolumes"):
			return fmt.Errorf("DeclarativeHotplugVolumes is not disabled: %v", dev.DisabledFeatureGates)
		case !slices.Contains(dev.FeatureGates, "HotplugVolumes"), !slices.Contains(dev.FeatureGates, "DownwardMetrics"),
			!slices.Contains(dev.FeatureGates, "AlignCPUs"), !slices.Contains(dev.FeatureGates, "DecentralizedLiveMigration"):
			return fmt.Errorf("gates %v", dev.FeatureGates)
		}
		return nil
	})
}
