package hco

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/hcokit/hcokit/api/v1beta1"
)

type noEvents struct{}

func (noEvents) Eventf(runtime.Object, runtime.Object, string, string, string, string, ...any) {}

// sweepReconciler is a Reconciler whose cache holds one managed ConfigMap
// and whose API reader holds apiObjects.
func sweepReconciler(t *testing.T, apiObjects ...client.Object) (*Reconciler, client.Client, *corev1.ConfigMap) {
	t.Helper()
	s := runtime.NewScheme()
	require.NoError(t, clientgoscheme.AddToScheme(s))
	require.NoError(t, v1beta1.AddToScheme(s))
	reg, err := NewRegistry(namedOperand("cm"))
	require.NoError(t, err)
	kinds, err := operandKinds(reg, s)
	require.NoError(t, err)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "left", Namespace: v1beta1.DefaultNamespace, UID: "u1",
		Labels: map[string]string{LabelApp: v1beta1.HyperConvergedName, LabelManagedBy: ManagedByValue}}}
	cached := fake.NewClientBuilder().WithScheme(s).WithObjects(cm.DeepCopy()).Build()
	api := fake.NewClientBuilder().WithScheme(s).WithObjects(append(apiObjects, cm.DeepCopy())...).Build()
	r := &Reconciler{client: cached, reader: api, scheme: s, registry: reg, env: Environment{Namespace: v1beta1.DefaultNamespace},
		events: noEvents{}, applier: newApplier(cached, api, s), kinds: kinds}
	return r, cached, cm
}

func TestSweepDeletesOperandObjectsOnlyWhenTheAPIServerHasNoHyperConverged(t *testing.T) {
	ctx := context.Background()

	// The cache lags: the API server has the HyperConverged. Nothing goes.
	hc := &v1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: v1beta1.HyperConvergedName, Namespace: v1beta1.DefaultNamespace}}
	r, cached, cm := sweepReconciler(t, hc)
	_, err := r.sweepOrphans(ctx)
	require.NoError(t, err)
	assert.NoError(t, cached.Get(ctx, client.ObjectKeyFromObject(cm), &corev1.ConfigMap{}), "kept while the HyperConverged exists")

	// Gone for the API server too: the orphan is deleted, once.
	r, cached, cm = sweepReconciler(t)
	_, err = r.sweepOrphans(ctx)
	require.NoError(t, err)
	assert.True(t, apierrors.IsNotFound(cached.Get(ctx, client.ObjectKeyFromObject(cm), &corev1.ConfigMap{})), "orphan deleted")
	assert.True(t, r.deleted.has(cm.UID))
}

func TestSweepSkipsWhatItDeletedWhileTheCacheStillShowsIt(t *testing.T) {
	ctx := context.Background()
	// No HyperConverged anywhere, but the ConfigMap was deleted by this
	// reconciler moments ago: no request to the API server at all.
	r, _, cm := sweepReconciler(t)
	r.deleted.add(cm.UID)
	r.reader = nil // any read past the cache would panic
	_, err := r.sweepOrphans(ctx)
	require.NoError(t, err)
	assert.True(t, r.deleted.has(cm.UID), "still in the cache, still remembered")
}
