package integration

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/extensions/upgrade"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/internal/testenv"
)

// Upgrading from upstream 1.18 applies upstream's upgrade patches
// (assets/upgradePatches.json at 03da3cf), once: the old default
// completionTimeoutPerGiB becomes the seed's, and the passt binding's and
// iommufd device plugin's leftovers that upstream made are deleted, but not
// an object of the same name someone else made.
func TestUpgradeFromUpstream118RemovesItsLeftovers(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	upstreams := map[string]string{hco.LabelManagedBy: hco.ManagedByValue, hco.LabelApp: v1beta1.HyperConvergedName}
	passt := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "passt-binding-cni", Labels: upstreams},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"name": "passt-binding-cni"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"name": "passt-binding-cni"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "cni", Image: "example.com/passt:1"}}},
			},
		},
	}
	passtSA := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "passt-binding-cni", Labels: upstreams}}
	someoneElses := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "iommufd-device-plugin"}}
	for _, obj := range []client.Object{passt, passtSA, someoneElses} {
		require.NoError(t, k.Create(ctx, obj))
		t.Cleanup(func() { _ = k.Delete(context.Background(), obj) })
	}
	createHC(t, func(hc *v1beta1.HyperConverged) {
		hc.Spec.LiveMigrationConfig.CompletionTimeoutPerGiB = ptr.To(int64(150))
	})
	waitCondition(t, v1beta1.ConditionReconcileComplete, metav1.ConditionTrue, "")

	// Upstream 1.18 recorded its version; an annotation edit brings the
	// next reconcile.
	testenv.Eventually(t, "record upstream's version", func() error {
		hc := getHC(t)
		hc.Status.Versions = []v1beta1.Version{{Name: "operator", Version: "1.18.0"}}
		return k.Status().Update(ctx, hc)
	})
	updateHC(t, func(hc *v1beta1.HyperConverged) {
		metav1.SetMetaDataAnnotation(&hc.ObjectMeta, "example.com/touch", "1")
	})

	testenv.Eventually(t, "the upgrade patches applied", func() error {
		hc := getHC(t)
		if hc.Annotations[upgrade.AdoptedAnnotation] != "1.0.0" {
			return fmt.Errorf("annotations %v", hc.Annotations)
		}
		if got := ptr.Deref(hc.Spec.LiveMigrationConfig.CompletionTimeoutPerGiB, 0); got != 800 {
			return fmt.Errorf("completionTimeoutPerGiB %d, want the seed's 800", got)
		}
		return nil
	})
	for _, obj := range []client.Object{passt, passtSA} {
		err := k.Get(ctx, client.ObjectKeyFromObject(obj), obj)
		assert.True(t, apierrors.IsNotFound(err), "%T %s, upstream's leftover, deleted: %v", obj, obj.GetName(), err)
	}
	require.NoError(t, k.Get(ctx, client.ObjectKeyFromObject(someoneElses), someoneElses), "an object of that name upstream did not make stays")
	assertEvent(t, hco.EventDeleted, "DaemonSet passt-binding-cni: left by an earlier version")
}
