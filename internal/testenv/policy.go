package testenv

import (
	"context"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// UpdatePolicy is a ValidatingAdmissionPolicy (and its binding, both named
// Name) that refuses the UPDATE of Resource in Group, as a component's own
// admission would, wherever Expression is false.
type UpdatePolicy struct {
	Name, Group, Resource string
	// Expression is the CEL that must hold for an update to go through
	// ("false": every update is refused).
	Expression, Message string
	// Reason of the refusal; nil: the API server's default (Invalid).
	Reason *metav1.StatusReason
}

// RefuseUpdates installs p through c and returns a func that removes it,
// which also runs when t ends. The API server enforces a policy a moment
// after it is created: the caller waits for it (a probe update).
func RefuseUpdates(t testing.TB, c client.Client, p UpdatePolicy) (remove func()) {
	t.Helper()
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: p.Name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Update},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{p.Group}, APIVersions: []string{"*"}, Resources: []string{p.Resource}},
				},
			}}},
			Validations: []admissionregistrationv1.Validation{{Expression: p.Expression, Message: p.Message, Reason: p.Reason}},
		},
	}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: p.Name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        p.Name,
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
		},
	}
	ctx := context.Background()
	for _, obj := range []client.Object{policy, binding} {
		if err := c.Create(ctx, obj); err != nil {
			t.Fatalf("create %T %s: %v", obj, p.Name, err)
		}
	}
	remove = func() {
		_ = c.Delete(ctx, binding)
		_ = c.Delete(ctx, policy)
	}
	t.Cleanup(remove)
	return remove
}
