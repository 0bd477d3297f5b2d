package namespacepolicy

import (
	"fmt"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hcostatus"
)

// Name is the operand's registry name.
const Name = "namespacepolicy"

// PolicyName and BindingName are upstream's names of the two objects.
const (
	PolicyName  = "hyperconverged-namespace-policy"
	BindingName = PolicyName + "-binding"
)

// StatusKind names the component in the HyperConverged's conditions.
const StatusKind = "ValidatingAdmissionPolicy"

// Operand builds the namespace policy and its binding.
type Operand struct{}

var _ hco.Operand = Operand{}

// New returns the namespace policy operand.
func New() Operand { return Operand{} }

// Name implements hco.Operand.
func (Operand) Name() string { return Name }

// Kinds implements hco.Operand.
func (Operand) Kinds() []client.Object {
	return []client.Object{
		&admissionv1.ValidatingAdmissionPolicy{TypeMeta: typeMeta("ValidatingAdmissionPolicy")},
		&admissionv1.ValidatingAdmissionPolicyBinding{TypeMeta: typeMeta("ValidatingAdmissionPolicyBinding")},
	}
}

func typeMeta(kind string) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: admissionv1.SchemeGroupVersion.String(), Kind: kind}
}

// Desired implements hco.Operand.
func (Operand) Desired(hc *hcov1.HyperConverged, facts hco.Facts) ([]client.Object, error) {
	policy, binding := Build(hc, facts)
	return []client.Object{policy, binding}, nil
}

// Build returns the policy, which allows a HyperConverged to be created
// only in facts.Namespace, and its binding, which denies what the policy
// refuses.
func Build(hc *hcov1.HyperConverged, facts hco.Facts) (*admissionv1.ValidatingAdmissionPolicy, *admissionv1.ValidatingAdmissionPolicyBinding) {
	fail := admissionv1.Fail
	equivalent := admissionv1.Equivalent
	namespaced := admissionv1.NamespacedScope
	policy := &admissionv1.ValidatingAdmissionPolicy{
		TypeMeta: typeMeta("ValidatingAdmissionPolicy"),
		ObjectMeta: metav1.ObjectMeta{
			Name:   PolicyName,
			Labels: hco.Labels(hc, facts.Environment, hco.ComponentDeployment),
		},
		Spec: admissionv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: &fail,
			MatchConstraints: &admissionv1.MatchResources{
				MatchPolicy:       &equivalent,
				NamespaceSelector: &metav1.LabelSelector{},
				ObjectSelector:    &metav1.LabelSelector{},
				ResourceRules: []admissionv1.NamedRuleWithOperations{{
					RuleWithOperations: admissionv1.RuleWithOperations{
						Operations: []admissionv1.OperationType{admissionv1.Create},
						Rule: admissionv1.Rule{
							APIGroups:   []string{hcov1.GroupVersion.Group},
							APIVersions: []string{hcov1.GroupVersion.Version, v1beta1.GroupVersion.Version},
							Resources:   []string{"hyperconvergeds"},
							Scope:       &namespaced,
						},
					},
				}},
			},
			Validations: []admissionv1.Validation{{
				Expression: fmt.Sprintf(`request.namespace == '%s'`, facts.Namespace),
				Message:    fmt.Sprintf(`HyperConverged CR can only be created in the '%s' namespace.`, facts.Namespace),
			}},
		},
	}
	binding := &admissionv1.ValidatingAdmissionPolicyBinding{
		TypeMeta: typeMeta("ValidatingAdmissionPolicyBinding"),
		ObjectMeta: metav1.ObjectMeta{
			Name:   BindingName,
			Labels: hco.Labels(hc, facts.Environment, hco.ComponentDeployment),
		},
		Spec: admissionv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        PolicyName,
			ValidationActions: []admissionv1.ValidationAction{admissionv1.Deny},
		},
	}
	return policy, binding
}

// Status implements hco.Operand. Neither object has a status the operator
// waits for: the component is available once both exist.
func (Operand) Status(observed []client.Object) hcostatus.Component {
	var policy, binding bool
	for _, o := range observed {
		switch obj := o.(type) {
		case *admissionv1.ValidatingAdmissionPolicy:
			policy = policy || (obj != nil && obj.Name == PolicyName)
		case *admissionv1.ValidatingAdmissionPolicyBinding:
			binding = binding || (obj != nil && obj.Name == BindingName)
		}
	}
	if !policy || !binding {
		return hcostatus.NotFound(StatusKind)
	}
	return hcostatus.FromConditions(StatusKind, []hcostatus.OperandCondition{
		{Type: "Available", Status: string(metav1.ConditionTrue)},
		{Type: "Progressing", Status: string(metav1.ConditionFalse)},
		{Type: "Degraded", Status: string(metav1.ConditionFalse)},
	}, "")
}
