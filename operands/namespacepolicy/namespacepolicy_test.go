package namespacepolicy_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/operands/namespacepolicy"
)

func defaultHC() *hcov1.HyperConverged {
	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: "my-ns"}}
	hcov1.Default(hc)
	return hc
}

// upstreamPolicy and upstreamBinding are the specs upstream HCO builds at
// commit 03da3cf (controllers/admissionpolicy/resources.go getRequiredPolicy
// and getRequiredBinding), for the operator namespace my-ns.
const upstreamPolicy = `
failurePolicy: Fail
matchConstraints:
  matchPolicy: Equivalent
  namespaceSelector: {}
  objectSelector: {}
  resourceRules:
  - apiGroups: [hco.kubevirt.io]
    apiVersions: [v1, v1beta1]
    operations: [CREATE]
    resources: [hyperconvergeds]
    scope: Namespaced
validations:
- expression: request.namespace == 'my-ns'
  message: HyperConverged CR can only be created in the 'my-ns' namespace.
`

const upstreamBinding = `
policyName: hyperconverged-namespace-policy
validationActions: [Deny]
`

func TestDesiredIsUpstreams(t *testing.T) {
	env := hco.Environment{Namespace: "my-ns", Version: "1.0.0"}
	objs, err := namespacepolicy.New().Desired(defaultHC(), hco.OfflineFacts(env))
	require.NoError(t, err)
	require.Len(t, objs, 2)
	policy, ok := objs[0].(*admissionv1.ValidatingAdmissionPolicy)
	require.True(t, ok, "%T", objs[0])
	binding, ok := objs[1].(*admissionv1.ValidatingAdmissionPolicyBinding)
	require.True(t, ok, "%T", objs[1])

	assert.Equal(t, "admissionregistration.k8s.io/v1", policy.APIVersion)
	assert.Equal(t, "ValidatingAdmissionPolicy", policy.Kind)
	assert.Equal(t, "hyperconverged-namespace-policy", policy.Name)
	assert.Equal(t, "ValidatingAdmissionPolicyBinding", binding.Kind)
	assert.Equal(t, "hyperconverged-namespace-policy-binding", binding.Name)
	for _, o := range objs {
		assert.Empty(t, o.GetNamespace())
		assert.Equal(t, "deployment", o.GetLabels()[hco.LabelComponent])
	}

	var want admissionv1.ValidatingAdmissionPolicySpec
	require.NoError(t, yaml.UnmarshalStrict([]byte(upstreamPolicy), &want))
	assert.Equal(t, want, policy.Spec)
	var wantBinding admissionv1.ValidatingAdmissionPolicyBindingSpec
	require.NoError(t, yaml.UnmarshalStrict([]byte(upstreamBinding), &wantBinding))
	assert.Equal(t, wantBinding, binding.Spec)
}

func TestStatus(t *testing.T) {
	env := hco.Environment{Namespace: "my-ns"}
	policy, binding := namespacepolicy.Build(defaultHC(), hco.OfflineFacts(env))
	for _, tc := range []struct {
		name      string
		observed  []client.Object
		available metav1.ConditionStatus
	}{
		{name: "nothing", available: metav1.ConditionUnknown},
		{name: "policy only", observed: []client.Object{policy}, available: metav1.ConditionUnknown},
		{name: "binding only", observed: []client.Object{binding}, available: metav1.ConditionUnknown},
		{name: "nil objects", observed: []client.Object{(*admissionv1.ValidatingAdmissionPolicy)(nil), (*admissionv1.ValidatingAdmissionPolicyBinding)(nil)}, available: metav1.ConditionUnknown},
		{name: "both, in any order", observed: []client.Object{binding, policy}, available: metav1.ConditionTrue},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := namespacepolicy.New().Status(tc.observed)
			assert.Equal(t, "ValidatingAdmissionPolicy", s.Kind)
			assert.Equal(t, tc.available, s.Available.Status)
			if tc.available == metav1.ConditionTrue {
				assert.Equal(t, metav1.ConditionFalse, s.Progressing.Status)
				assert.Equal(t, metav1.ConditionFalse, s.Degraded.Status)
			}
		})
	}
}
