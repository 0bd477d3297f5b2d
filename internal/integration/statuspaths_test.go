package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/extensions/upgrade"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hcostatus"
	"github.com/hcokit/hcokit/internal/testenv"
	cnaov1 "github.com/hcokit/hcokit/operands/cnao/api/v1"
)

// Each path of a reconcile that stops before the operands' status is known
// still patches the status: its error is in ReconcileComplete, naming the
// object, and clears once the write goes through.

// deny makes the API server refuse, through a ValidatingAdmissionPolicy, the
// operation op on resource of group when expression is false, until the
// returned func is called. inForce must return nil once the policy refuses
// (the API server loads it asynchronously).
func deny(t *testing.T, name, group, resource string, op admissionregistrationv1.OperationType, expression string, inForce func(message string) error) (allow func()) {
	t.Helper()
	ctx := context.Background()
	message := "refused by test policy " + name
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{op},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{group}, APIVersions: []string{"*"}, Resources: []string{resource}},
				},
			}}},
			Validations: []admissionregistrationv1.Validation{{Expression: expression, Message: message, Reason: ptr.To(metav1.StatusReasonForbidden)}},
		},
	}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        name,
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
		},
	}
	require.NoError(t, k.Create(ctx, policy))
	require.NoError(t, k.Create(ctx, binding))
	allow = func() {
		_ = k.Delete(ctx, binding)
		_ = k.Delete(ctx, policy)
	}
	t.Cleanup(allow)
	testenv.Eventually(t, "the policy is in force", func() error { return inForce(message) })
	return allow
}

// refused reports nil when err is the policy's refusal.
func refused(err error, message string) error {
	if err == nil || !strings.Contains(err.Error(), message) {
		return fmt.Errorf("went through: %v", err)
	}
	return nil
}

// waitFailed waits for ReconcileComplete False, reason ReconcileFailed, with
// a message holding every part.
func waitFailed(t *testing.T, parts ...string) {
	t.Helper()
	testenv.Eventually(t, "ReconcileFailed naming "+strings.Join(parts, ", "), func() error {
		c := condition(getHC(t), v1beta1.ConditionReconcileComplete)
		if c == nil || c.Status != metav1.ConditionFalse || c.Reason != hcostatus.ReasonReconcileFailed {
			return fmt.Errorf("condition %+v", c)
		}
		for _, p := range parts {
			if !strings.Contains(c.Message, p) {
				return fmt.Errorf("message %q lacks %q", c.Message, p)
			}
		}
		return nil
	})
}

func TestRefusedFinalizerIsACondition(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	keepsOut := `!has(object.metadata.finalizers) || !('` + hco.FinalizerName + `' in object.metadata.finalizers) || (has(oldObject.metadata.finalizers) && '` + hco.FinalizerName + `' in oldObject.metadata.finalizers)`
	allow := deny(t, "test-refuse-hco-finalizer", "hco.kubevirt.io", "hyperconvergeds", admissionregistrationv1.Update, keepsOut, func(message string) error {
		// Probed on another HyperConverged, which the operator ignores.
		probe := &v1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: "probe-finalizer", Namespace: ns}}
		if err := k.Create(ctx, probe); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
		defer func() { _ = k.Delete(ctx, probe) }()
		if err := k.Get(ctx, client.ObjectKeyFromObject(probe), probe); err != nil {
			return err
		}
		probe.Finalizers = append(probe.Finalizers, hco.FinalizerName)
		return refused(k.Update(ctx, probe, client.DryRunAll), message)
	})

	createHC(t, nil)
	waitFailed(t, "add finalizer to HyperConverged "+ns+"/"+hcov1.HyperConvergedName, "refused by test policy")
	require.NotContains(t, getHC(t).Finalizers, hco.FinalizerName)
	allow()
	waitCondition(t, v1beta1.ConditionReconcileComplete, metav1.ConditionTrue, hcostatus.ReasonReconcileCompleted)
	require.Contains(t, getHC(t).Finalizers, hco.FinalizerName)
}

func TestRefusedAdoptionIsACondition(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	createHC(t, nil)
	waitCondition(t, v1beta1.ConditionReconcileComplete, metav1.ConditionTrue, "")

	adopts := `!has(object.metadata.annotations) || !('` + upgrade.AdoptedAnnotation + `' in object.metadata.annotations) || (has(oldObject.metadata.annotations) && '` + upgrade.AdoptedAnnotation + `' in oldObject.metadata.annotations)`
	allow := deny(t, "test-refuse-adoption", "hco.kubevirt.io", "hyperconvergeds", admissionregistrationv1.Update, adopts, func(message string) error {
		hc := getHC(t)
		if hc.Annotations == nil {
			hc.Annotations = map[string]string{}
		}
		hc.Annotations[upgrade.AdoptedAnnotation] = "probe"
		return refused(k.Update(ctx, hc, client.DryRunAll), message)
	})
	// The previous operator version recorded its version and deployed OvS:
	// the CNAO operand adopts it, and the API server refuses that.
	testenv.Eventually(t, "record the previous version", func() error {
		hc := getHC(t)
		hc.Status.Versions = []v1beta1.Version{{Name: "operator", Version: "0.9.0"}}
		return k.Status().Update(ctx, hc)
	})
	testenv.Eventually(t, "OvS deployed by the previous version", func() error {
		nac := get(t, cnaoKey, &cnaov1.NetworkAddonsConfig{})
		nac.Spec.Ovs = &cnaov1.Ovs{}
		return k.Update(ctx, nac)
	})
	waitFailed(t, "patch HyperConverged "+ns+"/"+hcov1.HyperConvergedName+" while adopting settings", "refused by test policy")

	allow()
	testenv.Eventually(t, "deployOVS adopted, the condition cleared", func() error {
		hc := getHC(t)
		if hc.Annotations[v1beta1.DeployOVSAnnotation] != "true" || hc.Annotations[upgrade.AdoptedAnnotation] != operatorEnv.Version {
			return fmt.Errorf("annotations %v", hc.Annotations)
		}
		if c := condition(hc, v1beta1.ConditionReconcileComplete); c == nil || c.Reason == hcostatus.ReasonReconcileFailed {
			return fmt.Errorf("condition %+v", c)
		}
		return nil
	})
}

func TestRefusedUninstallDeleteIsACondition(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	createHC(t, nil)
	get(t, cdiKey, &cdiv1beta1.CDI{})
	waitCondition(t, v1beta1.ConditionReconcileComplete, metav1.ConditionTrue, "")

	allow := deny(t, "test-refuse-cdi-delete", "cdi.kubevirt.io", "cdis", admissionregistrationv1.Delete, "false", func(message string) error {
		return refused(k.Delete(ctx, &cdiv1beta1.CDI{ObjectMeta: metav1.ObjectMeta{Name: cdiKey.Name}}, client.DryRunAll), message)
	})
	require.NoError(t, k.Delete(ctx, getHC(t)))
	waitFailed(t, "delete CDI "+cdiKey.Name, "refused by test policy")
	require.NoError(t, k.Get(ctx, cdiKey, &cdiv1beta1.CDI{}), "CDI kept")

	start := time.Now()
	allow()
	deleteHC(t)
	t.Logf("HyperConverged gone %s after the deletion was allowed", time.Since(start))
}
