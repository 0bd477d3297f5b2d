package webhook

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kvv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/internal/testenv"
	"github.com/hcokit/hcokit/operands/kubevirt"
)

// TestUpstreamV1ManifestsApplyAndConverge: upstream's v1 sample (commit
// 03da3cf) and a v1
// and a v1beta1 object as upstream stores them (every CRD default filled in)
// are accepted with strict field validation, through the webhook, and the
// operator reconciles them: the KubeVirt CR carries their values.
func TestUpstreamV1ManifestsApplyAndConverge(t *testing.T) {
	env.Require(t)
	for _, tc := range []struct {
		file              string
		completionTimeout int64
		warnings          []string
	}{
		// Upstream's own v1 sample, deploy/hco.cr.yaml at commit 03da3cf,
		// byte for byte (it names no namespace: applied with one, as
		// kubectl apply -n does).
		{file: "upstream-03da3cf-hco.cr.yaml", completionTimeout: 20},
		{file: "upstream-v1-stored.yaml", completionTimeout: 20},
		{file: "upstream-v1beta1-stored.yaml", completionTimeout: 150},
	} {
		t.Run(tc.file, func(t *testing.T) {
			ctx := context.Background()
			raw, err := os.ReadFile(filepath.Join("testdata", tc.file))
			require.NoError(t, err)
			u := &unstructured.Unstructured{}
			require.NoError(t, yaml.Unmarshal(raw, &u.Object))
			if u.GetNamespace() == "" {
				u.SetNamespace(ns)
			}
			warnings.take()
			require.NoError(t, k.Create(ctx, u, client.FieldValidation(metav1.FieldValidationStrict)))
			t.Cleanup(func() { deleteHC(t, newHC(nil)) })
			got := warnings.take()
			require.Len(t, got, len(tc.warnings), "%v", got)
			for i, w := range tc.warnings {
				assert.Contains(t, got[i], w)
			}

			testenv.Eventually(t, "the operator reconciled it", func() error {
				hc := &hcov1.HyperConverged{}
				if err := k.Get(ctx, client.ObjectKeyFromObject(u), hc); err != nil {
					return err
				}
				if !meta.IsStatusConditionTrue(hc.Status.Conditions, hcov1.ConditionReconcileComplete) {
					return fmt.Errorf("not ReconcileComplete: %v", hc.Status.Conditions)
				}
				kv := &kvv1.KubeVirt{}
				if err := k.Get(ctx, client.ObjectKey{Namespace: ns, Name: kubevirt.CRName}, kv); err != nil {
					return err
				}
				if got := *kv.Spec.Configuration.MigrationConfiguration.CompletionTimeoutPerGiB; got != tc.completionTimeout {
					return fmt.Errorf("KubeVirt completionTimeoutPerGiB %d, want %d", got, tc.completionTimeout)
				}
				return nil
			})
		})
	}
}

// TestV1RequestsAreValidatedWithV1FieldNames: a v1 object is validated like
// a v1beta1 one, and the denial names the v1 fields.
func TestV1RequestsAreValidatedWithV1FieldNames(t *testing.T) {
	env.Require(t)
	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: ns}}
	hc.Spec.Virtualization.LiveMigrationConfig.BandwidthPerMigration = new("-1Mi")
	hc.Spec.Deployment.NodePlacements = &hcov1.NodePlacements{Infra: &hcov1.NodePlacement{NodeSelector: map[string]string{"bad key!": "x"}}}
	err := k.Create(context.Background(), hc)
	if err == nil {
		t.Cleanup(func() { deleteHC(t, newHC(nil)) })
	}
	require.Error(t, err)
	assert.Contains(t, err.Error(), `spec.virtualization.liveMigrationConfig.bandwidthPerMigration: Invalid value: "-1Mi"`)
	assert.Contains(t, err.Error(), `spec.deployment.nodePlacements.infra.nodeSelector`)
	assert.NotContains(t, err.Error(), "spec.liveMigrationConfig")
}
