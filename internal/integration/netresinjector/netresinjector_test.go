package netresinjector

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	kvv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/featuregates"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/internal/testenv"
	"github.com/hcokit/hcokit/nodefacts"
	"github.com/hcokit/hcokit/operands/kubevirt"
	"github.com/hcokit/hcokit/operands/netresinjector"
)

var (
	deploymentKey = client.ObjectKey{Namespace: ns, Name: netresinjector.DeploymentName}
	webhookKey    = client.ObjectKey{Name: netresinjector.WebhookConfigName}
	caBundle      = []byte("-----BEGIN CERTIFICATE-----\nnot checked by the API server\n-----END CERTIFICATE-----\n")
)

// createHC creates the HyperConverged, and deletes it and waits for it to go
// when the test ends.
func createHC(t *testing.T, mutate func(*v1beta1.HyperConverged)) {
	t.Helper()
	hc := &v1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: v1beta1.HyperConvergedName, Namespace: ns}}
	if mutate != nil {
		mutate(hc)
	}
	testenv.CreateForTest(t, k, hc)
}

func updateHC(t *testing.T, mutate func(*v1beta1.HyperConverged)) {
	t.Helper()
	testenv.Eventually(t, "update HyperConverged", func() error {
		hc := &v1beta1.HyperConverged{}
		if err := k.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: v1beta1.HyperConvergedName}, hc); err != nil {
			return err
		}
		mutate(hc)
		return k.Update(context.Background(), hc)
	})
}

// desired are the objects the operand builds for a default HyperConverged
// on this cluster (no nodes: one replica).
func desired(t *testing.T) []client.Object {
	t.Helper()
	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: ns}}
	hcov1.Default(hc)
	facts := hco.OfflineFacts(operatorEnv)
	facts.Nodes = &nodefacts.Facts{}
	objs, err := netresinjector.New().Desired(hc, facts)
	require.NoError(t, err)
	require.Len(t, objs, 6)
	return objs
}

// wire returns obj's JSON form, without what the server sets.
func wire(t *testing.T, obj client.Object) *unstructured.Unstructured {
	t.Helper()
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	require.NoError(t, err)
	u := &unstructured.Unstructured{Object: content}
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	unstructured.RemoveNestedField(u.Object, "status")
	return u
}

// TestDefaultHyperConvergedYieldsTheInjector: the six objects (the ClusterRole
// is the install's, config/rbac/operand_roles.yaml), labelled,
// stored as built (nothing the operator sends is pruned or changed).
func TestDefaultHyperConvergedYieldsTheInjector(t *testing.T) {
	env.Require(t)
	createHC(t, nil)
	for _, want := range desired(t) {
		sent := wire(t, want)
		got := testenv.Stored(t, k, want)
		assert.Equal(t, hco.ManagedByValue, got.GetLabels()[hco.LabelManagedBy], got.GetName())
		assert.Equal(t, netresinjector.Component, got.GetLabels()[hco.LabelComponent], got.GetName())
		for field, v := range sent.Object {
			if field == "metadata" || field == "apiVersion" || field == "kind" {
				continue
			}
			if missing := testenv.NotIn(v, got.Object[field], field); missing != "" {
				t.Errorf("%s %s: the API server pruned or changed %s", sent.GetKind(), sent.GetName(), missing)
			}
		}
	}
	d := &appsv1.Deployment{}
	require.NoError(t, k.Get(context.Background(), deploymentKey, d))
	assert.Equal(t, int32(1), *d.Spec.Replicas, "no worker nodes: not highly available")
}

// TestTurningTheInjectorOffAndOn removes every object and brings them back.
func TestTurningTheInjectorOffAndOn(t *testing.T) {
	env.Require(t)
	createHC(t, nil)
	objs := desired(t)
	for _, o := range objs {
		testenv.Stored(t, k, o)
	}
	off, on := false, true
	updateHC(t, func(hc *v1beta1.HyperConverged) { hc.Spec.DeployNetworkResourcesInjector = &off })
	testenv.Eventually(t, "the injector's objects removed", func() error {
		for _, o := range objs {
			u := &unstructured.Unstructured{}
			u.SetGroupVersionKind(o.GetObjectKind().GroupVersionKind())
			if err := k.Get(context.Background(), client.ObjectKeyFromObject(o), u); !apierrors.IsNotFound(err) {
				return fmt.Errorf("%s %s still there: %v", u.GetKind(), o.GetName(), err)
			}
		}
		return nil
	})
	updateHC(t, func(hc *v1beta1.HyperConverged) { hc.Spec.DeployNetworkResourcesInjector = &on })
	for _, o := range objs {
		testenv.Stored(t, k, o)
	}
}

// TestCABundleIsKeptAndOtherEditsReverted: what the certificate rotator
// writes stays, as upstream's preserveExistingCABundles keeps it; another
// edit of the same object, or of the Deployment, is reverted.
func TestCABundleIsKeptAndOtherEditsReverted(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	createHC(t, nil)
	mwc := &admissionregistrationv1.MutatingWebhookConfiguration{}
	testenv.Eventually(t, "webhook configuration", func() error { return k.Get(ctx, webhookKey, mwc) })

	// The rotator's write: the caBundle only, under its own field manager.
	testenv.Eventually(t, "inject the caBundle", func() error {
		if err := k.Get(ctx, webhookKey, mwc); err != nil {
			return err
		}
		mwc.Webhooks[0].ClientConfig.CABundle = caBundle
		return k.Update(ctx, mwc, client.FieldOwner("hco-webhook-cert-rotator"))
	})
	// The operator sees that write (its cache watches the object) and leaves
	// it: no update follows.
	written := mwc.ResourceVersion
	time.Sleep(time.Second)
	require.NoError(t, k.Get(ctx, webhookKey, mwc))
	assert.Equal(t, written, mwc.ResourceVersion, "the operator wrote the webhook configuration after the caBundle was injected")

	// Another edit, later, of the same object, and one of the Deployment.
	testenv.Eventually(t, "edit the timeout", func() error {
		if err := k.Get(ctx, webhookKey, mwc); err != nil {
			return err
		}
		mwc.Webhooks[0].TimeoutSeconds = new(int32(30))
		return k.Update(ctx, mwc)
	})
	testenv.Eventually(t, "edit the Deployment", func() error {
		d := &appsv1.Deployment{}
		if err := k.Get(ctx, deploymentKey, d); err != nil {
			return err
		}
		d.Spec.Template.Spec.Containers[0].Args = []string{"-insecure=false"}
		return k.Update(ctx, d)
	})

	testenv.Eventually(t, "the timeout reverted, the caBundle kept", func() error {
		if err := k.Get(ctx, webhookKey, mwc); err != nil {
			return err
		}
		w := mwc.Webhooks[0]
		if *w.TimeoutSeconds != 10 {
			return fmt.Errorf("timeoutSeconds %d, want 10", *w.TimeoutSeconds)
		}
		if string(w.ClientConfig.CABundle) != string(caBundle) {
			return fmt.Errorf("caBundle %q, want the injected one", w.ClientConfig.CABundle)
		}
		return nil
	})
	testenv.Eventually(t, "the Deployment reverted", func() error {
		d := &appsv1.Deployment{}
		if err := k.Get(ctx, deploymentKey, d); err != nil {
			return err
		}
		if args := d.Spec.Template.Spec.Containers[0].Args; len(args) < 8 || args[0] != "-bind-address=0.0.0.0" {
			return fmt.Errorf("args %v", args)
		}
		return nil
	})
}

// TestReadinessIsUpstreamsConditionAndGate: upstream's rule (all replicas
// ready) is the HyperConverged's condition VirtNetworkResourcesInjectorReady,
// not its aggregated conditions, and KubeVirt's ExternalNetResourceInjection
// gate follows it; both go with the injector.
func TestReadinessIsUpstreamsConditionAndGate(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	createHC(t, nil)
	waitCondition(t, hcov1.ConditionNetworkResourcesInjectorReady, metav1.ConditionFalse, "DeploymentNotReady")
	waitGate(t, false)
	hc := &v1beta1.HyperConverged{}
	require.NoError(t, k.Get(ctx, client.ObjectKey{Namespace: ns, Name: v1beta1.HyperConvergedName}, hc))
	for _, c := range hc.Status.Conditions {
		assert.NotContains(t, c.Reason, "NetworkResourcesInjector", "%s: the injector is not an aggregated condition's reason", c.Type)
	}

	// Play the Deployment controller.
	testenv.Eventually(t, "Deployment status", func() error {
		d := &appsv1.Deployment{}
		if err := k.Get(ctx, deploymentKey, d); err != nil {
			return err
		}
		d.Status = appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: 1, ReadyReplicas: 1, AvailableReplicas: 1, UpdatedReplicas: 1}
		return k.Status().Update(ctx, d)
	})
	waitCondition(t, hcov1.ConditionNetworkResourcesInjectorReady, metav1.ConditionTrue, "DeploymentReady")
	waitGate(t, true)

	off := false
	updateHC(t, func(hc *v1beta1.HyperConverged) { hc.Spec.DeployNetworkResourcesInjector = &off })
	testenv.Eventually(t, "the condition removed", func() error {
		hc := &v1beta1.HyperConverged{}
		if err := k.Get(ctx, client.ObjectKey{Namespace: ns, Name: v1beta1.HyperConvergedName}, hc); err != nil {
			return err
		}
		if c := meta.FindStatusCondition(hc.Status.Conditions, hcov1.ConditionNetworkResourcesInjectorReady); c != nil {
			return fmt.Errorf("still %+v", c)
		}
		return nil
	})
	waitGate(t, false)
}

// waitGate waits until KubeVirt's ExternalNetResourceInjection gate is on
// (enabled, not disabled) or off (disabled, not enabled).
func waitGate(t *testing.T, on bool) {
	t.Helper()
	testenv.Eventually(t, fmt.Sprintf("ExternalNetResourceInjection on: %t", on), func() error {
		kv := &kvv1.KubeVirt{}
		if err := k.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: kubevirt.CRName}, kv); err != nil {
			return err
		}
		dev := kv.Spec.Configuration.DeveloperConfiguration
		if dev == nil {
			return errors.New("no developerConfiguration")
		}
		enabled := slices.Contains(dev.FeatureGates, featuregates.ExternalNetResourceInjection)
		disabled := slices.Contains(dev.DisabledFeatureGates, featuregates.ExternalNetResourceInjection)
		if enabled != on || disabled == on {
			return fmt.Errorf("enabled %t, disabled %t", enabled, disabled)
		}
		return nil
	})
}

func waitCondition(t *testing.T, typ string, status metav1.ConditionStatus, reason string) {
	t.Helper()
	testenv.Eventually(t, fmt.Sprintf("condition %s=%s/%s", typ, status, reason), func() error {
		hc := &v1beta1.HyperConverged{}
		if err := k.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: v1beta1.HyperConvergedName}, hc); err != nil {
			return err
		}
		c := meta.FindStatusCondition(hc.Status.Conditions, typ)
		if c == nil || c.Status != status || (reason != "" && c.Reason != reason) || c.ObservedGeneration != hc.Generation {
			return fmt.Errorf("%s is %+v", typ, c)
		}
		return nil
	})
}
