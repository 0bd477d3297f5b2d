package olm

import (
	"context"
	"fmt"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hcometrics"
)

// The OperatorCondition and the CSV of the operator, in its namespace:
// read from the cache (by name), the condition updated, the CSV's
// annotation patched.
// +kubebuilder:rbac:groups=operators.coreos.com,namespace=kubevirt-hyperconverged,resources=operatorconditions,verbs=get;list;watch;update
// +kubebuilder:rbac:groups=operators.coreos.com,namespace=kubevirt-hyperconverged,resources=clusterserviceversions,verbs=list;watch;patch

// Under OLM (hco.Environment.OperatorConditionName, OLM's
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
// (named as its OperatorCondition, which OLM names after the CSV)
// following the HyperConverged's uninstallStrategy, as upstream's csv handler does:
// read from the cache (metadata only, by name), patched only when it
// differs. A missing CSV is not an error.
func syncCSV(ctx context.Context, s hco.ExtensionState) error {
	name, hc := s.Env.OperatorConditionName, s.HyperConverged
	csv := &metav1.PartialObjectMetadata{}
	csv.SetGroupVersionKind(CSVKind)
	if err := s.Reader.Get(ctx, client.ObjectKey{Namespace: s.Env.Namespace, Name: name}, csv); err != nil {
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
	if err := s.Client.Patch(ctx, csv.DeepCopy(), client.RawPatch(types.MergePatchType, []byte(patch))); err != nil {
		return fmt.Errorf("set %s on the operator's ClusterServiceVersion %s: %w", DisableOperandDeleteAnnotation, name, err)
	}
	return nil
}

// Extension is the operator's part under OLM (hco.Extension): with
// hco.Environment.OperatorConditionName set (OLM's OPERATOR_CONDITION_NAME),
// its OperatorCondition and CSV are cached and watched by name, and each
// reconcile sets the Upgradeable condition and the CSV's annotation; with
// it empty, nothing.
type Extension struct{ hco.NoExtension }

var _ hco.Extension = Extension{}

// New returns the extension.
func New() Extension { return Extension{} }

// Cached implements hco.Extension: the OperatorCondition, and the CSV's
// metadata, by name.
func (Extension) Cached(in hco.Install) map[client.Object]cache.ByObject {
	env := in.Env
	if env.OperatorConditionName == "" {
		return nil
	}
	byName := cache.ByObject{Label: labels.Everything(), Field: fields.OneTermEqualSelector("metadata.name", env.OperatorConditionName),
		Transform: cache.TransformStripManagedFields(), UnsafeDisableDeepCopy: ptr.To(false)}
	oc := &unstructured.Unstructured{}
	oc.SetGroupVersionKind(OperatorConditionKind)
	csv := &metav1.PartialObjectMetadata{}
	csv.SetGroupVersionKind(CSVKind)
	return map[client.Object]cache.ByObject{oc: byName, csv: byName}
}

// Setup implements hco.Extension: OLM must serve OperatorConditions; a
// change of the OperatorCondition (another replica starting says
// Initializing) or of the CSV brings the reconcile that sets them again.
func (Extension) Setup(mgr ctrl.Manager, in hco.Install, _ *hcometrics.Metrics) ([]hco.Watch, error) {
	env := in.Env
	if env.OperatorConditionName == "" {
		return nil, nil
	}
	if _, err := mgr.GetRESTMapper().RESTMapping(OperatorConditionKind.GroupKind(), OperatorConditionKind.Version); err != nil {
		if meta.IsNoMatchError(err) {
			return nil, fmt.Errorf("the environment names the OperatorCondition %q (OPERATOR_CONDITION_NAME), but the cluster does not serve %s: not under OLM; unset it",
				env.OperatorConditionName, OperatorConditionKind)
		}
		return nil, err
	}
	oc := &unstructured.Unstructured{}
	oc.SetGroupVersionKind(OperatorConditionKind)
	csv := &metav1.PartialObjectMetadata{}
	csv.SetGroupVersionKind(CSVKind)
	return []hco.Watch{{Object: oc}, {Object: csv, MetadataOnly: true}}, nil
}

// Reconciled implements hco.Extension: the CSV's annotation, then the
// Upgradeable condition the HyperConverged's status is about to say.
func (Extension) Reconciled(ctx context.Context, s hco.ExtensionState) error {
	name := s.Env.OperatorConditionName
	if name == "" {
		return nil
	}
	if err := syncCSV(ctx, s); err != nil {
		return err
	}
	want := UpgradeableCondition(s.Conditions, s.Upgrading, s.Env.Version)
	return SetOperatorCondition(ctx, s.Reader, s.Client, s.Env.Namespace, name, want)
}

// Starting sets the Upgradeable condition to False (Initializing) before
// the manager starts, as upstream's main does, until the first reconcile
// says otherwise; reader reads past the cache. Nothing when not under OLM.
func Starting(ctx context.Context, reader client.Reader, c client.Client, env hco.Environment) error {
	if env.OperatorConditionName == "" {
		return nil
	}
	init := metav1.Condition{Type: hcov1.ConditionUpgradeable, Status: metav1.ConditionFalse, Reason: UpgradeableInitReason, Message: UpgradeableInitMessage}
	return SetOperatorCondition(ctx, reader, client.WithFieldOwner(c, hco.FieldOwner), env.Namespace, env.OperatorConditionName, init)
}
