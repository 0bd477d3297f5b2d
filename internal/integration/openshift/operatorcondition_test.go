package openshift

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/extensions/olm"
	"github.com/hcokit/hcokit/hcostatus"
	"github.com/hcokit/hcokit/internal/testenv"
	"github.com/hcokit/hcokit/operands/clidownload"
	"github.com/hcokit/hcokit/operands/cnao"
)

// upgradeable reads the Upgradeable condition of the operator's
// OperatorCondition.
func upgradeable(ctx context.Context) (*metav1.Condition, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(olm.OperatorConditionKind)
	if err := k.Get(ctx, client.ObjectKey{Namespace: ns, Name: operatorCondition}, u); err != nil {
		return nil, err
	}
	raw, _, _ := unstructured.NestedSlice(u.Object, "spec", "conditions")
	for _, item := range raw {
		var c metav1.Condition
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(item.(map[string]any), &c); err == nil && c.Type == hcov1.ConditionUpgradeable {
			return &c, nil
		}
	}
	return nil, fmt.Errorf("no Upgradeable condition in the OperatorCondition")
}

// expectUpgradeable waits until the OperatorCondition says status, reason
// and message.
func expectUpgradeable(t *testing.T, status metav1.ConditionStatus, reason, message string) {
	t.Helper()
	testenv.Eventually(t, fmt.Sprintf("OperatorCondition Upgradeable %s %s", status, reason), func() error {
		c, err := upgradeable(context.Background())
		if err != nil {
			return err
		}
		if c.Status != status || c.Reason != reason || c.Message != message {
			return fmt.Errorf("Upgradeable %s %s %q", c.Status, c.Reason, c.Message)
		}
		return nil
	})
}

// Under OLM the operator keeps its OperatorCondition's Upgradeable: False
// with the HyperConverged's reason while a component is not ready (the
// virtctl download's Deployment rolling out), True (reason Upgradeable)
// once it is; set back by someone (another replica starting says
// Initializing), it is put right by the elected one, whose cache sees the
// change. (The upgrading case is TestUpgradeableCondition's.)
func TestOperatorConditionFollowsTheHyperConverged(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	setIngress(t, "apps.example.com")
	testenv.CreateForTest(t, k, &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: ns}})

	// The download server's Deployment has no pods here, nor CNAO to report
	// on the NetworkAddonsConfig: progressing, so not upgradeable, for the
	// reason the HyperConverged gives.
	var hcReason, hcMessage string
	testenv.Eventually(t, "the HyperConverged not Upgradeable", func() error {
		hc := &hcov1.HyperConverged{}
		if err := k.Get(ctx, client.ObjectKey{Namespace: ns, Name: hcov1.HyperConvergedName}, hc); err != nil {
			return err
		}
		c := meta.FindStatusCondition(hc.Status.Conditions, hcov1.ConditionUpgradeable)
		if c == nil || c.Status != metav1.ConditionFalse {
			return fmt.Errorf("Upgradeable %v", c)
		}
		hcReason, hcMessage = c.Reason, c.Message
		return nil
	})
	expectUpgradeable(t, metav1.ConditionFalse, hcReason, hcMessage)

	// The Deployment rolled out, as its controller would say.
	testenv.Eventually(t, "the download Deployment available", func() error {
		d := &appsv1.Deployment{}
		if err := k.Get(ctx, client.ObjectKey{Namespace: ns, Name: clidownload.ObjectName}, d); err != nil {
			return err
		}
		d.Status = appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: 1, UpdatedReplicas: 1, ReadyReplicas: 1, AvailableReplicas: 1,
			Conditions: []appsv1.DeploymentCondition{
				{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: "MinimumReplicasAvailable"},
				{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: "NewReplicaSetAvailable"},
			}}
		return k.Status().Update(ctx, d)
	})
	// And the NetworkAddonsConfig, as CNAO would say.
	testenv.Eventually(t, "the NetworkAddonsConfig available", func() error {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(schema.GroupVersionKind{Group: "networkaddonsoperator.network.kubevirt.io", Version: "v1", Kind: "NetworkAddonsConfig"})
		if err := k.Get(ctx, client.ObjectKey{Name: cnao.CRName}, u); err != nil {
			return err
		}
		now := metav1.Now().UTC().Format(time.RFC3339)
		cond := func(typ, status string) any {
			return map[string]any{"type": typ, "status": status, "lastTransitionTime": now, "lastHeartbeatTime": now}
		}
		u.Object["status"] = map[string]any{"conditions": []any{cond("Available", "True"), cond("Progressing", "False"), cond("Degraded", "False")}}
		return k.Status().Update(ctx, u)
	})
	expectUpgradeable(t, metav1.ConditionTrue, olm.UpgradeableAllowReason, "")

	init := metav1.Condition{Type: hcov1.ConditionUpgradeable, Status: metav1.ConditionFalse, Reason: olm.UpgradeableInitReason, Message: olm.UpgradeableInitMessage}
	if err := olm.SetOperatorCondition(ctx, k, k, ns, operatorCondition, init); err != nil {
		t.Fatal(err)
	}
	expectUpgradeable(t, metav1.ConditionTrue, olm.UpgradeableAllowReason, "")
}

// csvAnnotation reads the operator's CSV's disable-operand-delete annotation.
func csvAnnotation(ctx context.Context) (string, error) {
	csv := &metav1.PartialObjectMetadata{}
	csv.SetGroupVersionKind(olm.CSVKind)
	if err := k.Get(ctx, client.ObjectKey{Namespace: ns, Name: operatorCondition}, csv); err != nil {
		return "", err
	}
	return csv.GetAnnotations()[olm.DisableOperandDeleteAnnotation], nil
}

// Under OLM the operator's CSV says to the console whether operands may be
// deleted, following the HyperConverged's uninstallStrategy, as upstream's:
// "true" while it blocks an uninstall over existing workloads (the
// default), "false" with RemoveWorkloads.
func TestCSVFollowsTheUninstallStrategy(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	setIngress(t, "apps.example.com")
	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: ns}}
	testenv.CreateForTest(t, k, hc)
	expect := func(want string) {
		t.Helper()
		testenv.Eventually(t, "the CSV's "+olm.DisableOperandDeleteAnnotation+" "+want, func() error {
			got, err := csvAnnotation(ctx)
			if err != nil {
				return err
			}
			if got != want {
				return fmt.Errorf("%q", got)
			}
			return nil
		})
	}
	expect("true")
	testenv.Eventually(t, "uninstallStrategy RemoveWorkloads", func() error {
		cur := &hcov1.HyperConverged{}
		if err := k.Get(ctx, client.ObjectKeyFromObject(hc), cur); err != nil {
			return err
		}
		cur.Spec.Deployment.UninstallStrategy = hcov1.UninstallStrategyRemoveWorkloads
		return k.Update(ctx, cur)
	})
	expect("false")

	// A HyperConverged of another name is ignored, and says nothing to the
	// CSV: once its status says it is ignored, the CSV was not written (its
	// resourceVersion; a write and a write back would leave the annotation
	// as it was).
	csvVersion := func() string {
		csv := &metav1.PartialObjectMetadata{}
		csv.SetGroupVersionKind(olm.CSVKind)
		require.NoError(t, k.Get(ctx, client.ObjectKey{Namespace: ns, Name: operatorCondition}, csv))
		return csv.GetResourceVersion()
	}
	before := csvVersion()
	other := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: "second", Namespace: ns}}
	testenv.CreateForTest(t, k, other)
	testenv.Eventually(t, "the other HyperConverged ignored", func() error {
		cur := &hcov1.HyperConverged{}
		if err := k.Get(ctx, client.ObjectKeyFromObject(other), cur); err != nil {
			return err
		}
		if c := meta.FindStatusCondition(cur.Status.Conditions, hcov1.ConditionReconcileComplete); c == nil || c.Reason != hcostatus.ReasonInvalidRequest {
			return fmt.Errorf("ReconcileComplete %v", c)
		}
		return nil
	})
	assert.Equal(t, before, csvVersion(), "the CSV written for an ignored HyperConverged")
	got, err := csvAnnotation(ctx)
	require.NoError(t, err)
	assert.Equal(t, "false", got, "the CSV follows the operator's own HyperConverged only")
}
