package webhook

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
	ctx := context.Background()
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "kubevirt-migrations"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Update},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{"kubevirt.io"}, APIVersions: []string{"v1"}, Resources: []string{"kubevirts"}},
				},
			}}},
			Validations: []admissionregistrationv1.Validation{{
				Expression: "!has(object.spec.configuration.migrations) || !has(object.spec.configuration.migrations.parallelMigrationsPerCluster) || " +
					"object.spec.configuration.migrations.parallelMigrationsPerCluster <= 100",
				Message: "at most 100 parallel migrations",
			}},
		},
	}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "kubevirt-migrations"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        policy.Name,
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
		},
	}
	for _, obj := range []client.Object{policy, binding} {
		require.NoError(t, k.Create(ctx, obj))
		t.Cleanup(func() { _ = k.Delete(context.Background(), obj) })
	}
}
