package netresinjector

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/internal/testenv"
	"github.com/hcokit/hcokit/operands/aie"
)

// The AIE webhook's objects follow the annotation; the launcher ConfigMap
// keeps an admin's edits (a missing key seeded back) and the webhook
// configuration its injected caBundle, while other edits are reverted.
func TestAIEWebhookFollowsItsAnnotation(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	createHC(t, func(hc *v1beta1.HyperConverged) {
		hc.Annotations = map[string]string{"hco.kubevirt.io/deployAIE": "true"}
	})
	objs := []client.Object{
		&corev1.ServiceAccount{}, &corev1.Service{}, &appsv1.Deployment{}, &corev1.ConfigMap{},
		&rbacv1.ClusterRoleBinding{}, &admissionregistrationv1.MutatingWebhookConfiguration{},
	}
	keys := []client.ObjectKey{
		{Namespace: ns, Name: aie.ObjectName}, {Namespace: ns, Name: aie.ObjectName}, {Namespace: ns, Name: aie.ObjectName},
		{Namespace: ns, Name: aie.ConfigMapName}, {Name: aie.ObjectName}, {Name: aie.ObjectName},
	}
	for i, obj := range objs {
		testenv.Eventually(t, fmt.Sprintf("%T made", obj), func() error { return k.Get(ctx, keys[i], obj) })
	}

	cmKey, mwcKey := keys[3], keys[5]
	cm, mwc := &corev1.ConfigMap{}, &admissionregistrationv1.MutatingWebhookConfiguration{}
	testenv.Eventually(t, "edit the launcher ConfigMap", func() error {
		if err := k.Get(ctx, cmKey, cm); err != nil {
			return err
		}
		cm.Data = map[string]string{"extra": "mine"}
		return k.Update(ctx, cm)
	})
	testenv.Eventually(t, "inject a caBundle and edit the timeout", func() error {
		if err := k.Get(ctx, mwcKey, mwc); err != nil {
			return err
		}
		mwc.Webhooks[0].ClientConfig.CABundle = caBundle
		mwc.Webhooks[0].TimeoutSeconds = new(int32(29))
		return k.Update(ctx, mwc)
	})
	testenv.Eventually(t, "the timeout reverted, the caBundle kept", func() error {
		if err := k.Get(ctx, mwcKey, mwc); err != nil {
			return err
		}
		if w := mwc.Webhooks[0]; *w.TimeoutSeconds != 10 || string(w.ClientConfig.CABundle) != string(caBundle) {
			return fmt.Errorf("timeoutSeconds %d (want 10), caBundle %q", *w.TimeoutSeconds, w.ClientConfig.CABundle)
		}
		return nil
	})
	testenv.Eventually(t, "the admin's key kept, upstream's seeded back", func() error {
		if err := k.Get(ctx, cmKey, cm); err != nil {
			return err
		}
		if cm.Data["extra"] != "mine" || cm.Data["config.yaml"] != "rules:\n" {
			return fmt.Errorf("data %q", cm.Data)
		}
		return nil
	})
	testenv.Eventually(t, "change upstream's key", func() error {
		if err := k.Get(ctx, cmKey, cm); err != nil {
			return err
		}
		cm.Data["config.yaml"] = "rules:\n- name: mine\n"
		return k.Update(ctx, cm)
	})
	edited := cm.ResourceVersion
	// A reconcile after the edit: the timeout, edited again, comes back.
	testenv.Eventually(t, "edit the timeout again", func() error {
		if err := k.Get(ctx, mwcKey, mwc); err != nil {
			return err
		}
		mwc.Webhooks[0].TimeoutSeconds = new(int32(28))
		return k.Update(ctx, mwc)
	})
	testenv.Eventually(t, "the timeout reverted again", func() error {
		if err := k.Get(ctx, mwcKey, mwc); err != nil {
			return err
		}
		if *mwc.Webhooks[0].TimeoutSeconds != 10 {
			return fmt.Errorf("timeoutSeconds %d", *mwc.Webhooks[0].TimeoutSeconds)
		}
		return nil
	})
	require.NoError(t, k.Get(ctx, cmKey, cm))
	require.Equal(t, edited, cm.ResourceVersion, "the operator wrote the launcher ConfigMap over the admin's edit")
	require.Equal(t, "rules:\n- name: mine\n", cm.Data["config.yaml"])

	// The annotation goes: so do the objects.
	updateHC(t, func(hc *v1beta1.HyperConverged) { delete(hc.Annotations, "hco.kubevirt.io/deployAIE") })
	for i, obj := range objs {
		testenv.Eventually(t, fmt.Sprintf("%T removed", obj), func() error {
			if err := k.Get(ctx, keys[i], obj); !apierrors.IsNotFound(err) {
				return fmt.Errorf("still there: %v", err)
			}
			return nil
		})
	}
}
