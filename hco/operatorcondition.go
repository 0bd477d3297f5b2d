package hco

import (
	"context"
	"fmt"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
)

// Under OLM (Environment.OperatorConditionName, OLM's
// OPERATOR_CONDITION_NAME), the operator tells OLM whether it may be
// upgraded, as upstream HCO at 03da3cf does (controllers/hyperconverged:
// setOperatorUpgradeableStatus; pkg/util/operatorcondition.go): the
// Upgradeable condition in spec.conditions of its OperatorCondition
// (operators.coreos.com/v2, made by OLM in the operator's namespace) is
// False with reason Initializing while the operator starts, False with
// reason AlreadyPerformingUpgrade while it upgrades, False with the
// HyperConverged's reason and message while the HyperConverged is not
// Upgradeable, and True (reason Upgradeable) otherwise. The OperatorCondition
// is read from the cache and written only when the condition changes.

// OperatorConditionKind is OLM's OperatorCondition.
var OperatorConditionKind = schema.GroupVersionKind{Group: "operators.coreos.com", Version: "v2", Kind: "OperatorCondition"}

// Upstream's reasons and messages of the Upgradeable operator condition.
const (
	UpgradeableInitReason       = "Initializing"
	UpgradeableInitMessage      = "The hyperConverged cluster operator is starting up"
	UpgradeableUpgradingReason  = "AlreadyPerformingUpgrade"
	UpgradeableUpgradingMessage = "upgrading the hyperConverged cluster operator to version "
	UpgradeableAllowReason      = "Upgradeable"
)

// UpgradeableCondition is the Upgradeable operator condition for a
// HyperConverged whose conditions are hcConditions, the operator
// upgrading (to version) or not.
func UpgradeableCondition(hcConditions []metav1.Condition, upgrading bool, version string) metav1.Condition {
	c := metav1.Condition{Type: hcov1.ConditionUpgradeable, Status: metav1.ConditionTrue, Reason: UpgradeableAllowReason}
	hcCond := meta.FindStatusCondition(hcConditions, hcov1.ConditionUpgradeable)
	switch {
	case upgrading:
		c.Status, c.Reason, c.Message = metav1.ConditionFalse, UpgradeableUpgradingReason, UpgradeableUpgradingMessage+version
	case hcCond == nil || hcCond.Status != metav1.ConditionTrue:
		c.Status = metav1.ConditionFalse
		if hcCond != nil && hcCond.Status == metav1.ConditionFalse {
			c.Reason, c.Message = hcCond.Reason, hcCond.Message
		}
	}
	return c
}

// SetOperatorCondition sets want in spec.conditions of the OperatorCondition
// name in namespace, read through reader (the cache) and written through c
// when it differs (status, reason or message). A missing OperatorCondition
// is not an error: OLM makes it, and its event brings the next reconcile.
func SetOperatorCondition(ctx context.Context, reader client.Reader, c client.Client, namespace, name string, want metav1.Condition) error {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(OperatorConditionKind)
	if err := reader.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, u); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("read OperatorCondition %s/%s: %w", namespace, name, err)
	}
	raw, _, _ := unstructured.NestedSlice(u.Object, "spec", "conditions")
	var conds []metav1.Condition
	for _, item := range raw {
		var cond metav1.Condition
		if m, ok := item.(map[string]any); ok && runtime.DefaultUnstructuredConverter.FromUnstructured(m, &cond) == nil {
			conds = append(conds, cond)
		}
	}
	if have := meta.FindStatusCondition(conds, want.Type); have != nil &&
		have.Status == want.Status && have.Reason == want.Reason && have.Message == want.Message {
		return nil
	}
	meta.SetStatusCondition(&conds, want)
	out := make([]any, 0, len(conds))
	for i := range conds {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&conds[i])
		if err != nil {
			return err
		}
		out = append(out, m)
	}
	update := u.DeepCopy()
	if err := unstructured.SetNestedSlice(update.Object, out, "spec", "conditions"); err != nil {
		return err
	}
	if err := c.Update(ctx, update); err != nil {
		return fmt.Errorf("set the %s condition of OperatorCondition %s/%s: %w", want.Type, namespace, name, err)
	}
	return nil
}

// CSVKind is OLM's ClusterServiceVersion.
var CSVKind = schema.GroupVersionKind{Group: "operators.coreos.com", Version: "v1alpha1", Kind: "ClusterServiceVersion"}

// DisableOperandDeleteAnnotation on the operator's CSV tells OpenShift's
// console not to offer deleting the operands, upstream's
// (DisableOperandDeletionAnnotation at 03da3cf): "true" while the
// HyperConverged's uninstallStrategy blocks an uninstall over existing
// workloads.
const DisableOperandDeleteAnnotation = "console.openshift.io/disable-operand-delete"

// syncCSV keeps the DisableOperandDeleteAnnotation of the operator's CSV
// (under OLM: named as its OperatorCondition, which OLM names after the
// CSV) following hc's uninstallStrategy, as upstream's csv handler does:
// read from the cache (metadata only, by name), patched only when it
// differs. A missing CSV is not an error.
func (r *Reconciler) syncCSV(ctx context.Context, hc *hcov1.HyperConverged) error {
	name := r.env.OperatorConditionName
	if name == "" {
		return nil
	}
	csv := &metav1.PartialObjectMetadata{}
	csv.SetGroupVersionKind(CSVKind)
	if err := r.cache.Get(ctx, client.ObjectKey{Namespace: r.env.Namespace, Name: name}, csv); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("read the operator's ClusterServiceVersion %s: %w", name, err)
	}
	want := strconv.FormatBool(hc.Spec.Deployment.UninstallStrategy == hcov1.UninstallStrategyBlockUninstallIfWorkloadsExist)
	if csv.GetAnnotations()[DisableOperandDeleteAnnotation] == want {
		return nil
	}
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, DisableOperandDeleteAnnotation, want)
	if err := r.client.Patch(ctx, csv.DeepCopy(), client.RawPatch(types.MergePatchType, []byte(patch))); err != nil {
		return fmt.Errorf("set %s on the operator's ClusterServiceVersion %s: %w", DisableOperandDeleteAnnotation, name, err)
	}
	return nil
}
