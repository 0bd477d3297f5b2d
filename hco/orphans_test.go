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
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/hcokit/hcokit/api/v1beta1"
)

type noEvents struct{}

func (noEvents) Eventf(runtime.Object, runtime.Object, string, string, string, string, ...any) {}

// orphanReconciler is a Reconciler whose cluster holds inCluster, and the
// API reader apiObjects besides.
func orphanReconciler(t *testing.T, inCluster []client.Object, apiObjects ...client.Object) (*Reconciler, client.Client) {
	t.Helper()
	s := runtime.NewScheme()
	require.NoError(t, clientgoscheme.AddToScheme(s))
	require.NoError(t, v1beta1.AddToScheme(s))
	reg, err := NewRegistry(namedOperand("cm"))
	require.NoError(t, err)
	c := fake.NewClientBuilder().WithScheme(s).WithObjects(inCluster...).Build()
	api := fake.NewClientBuilder().WithScheme(s).WithObjects(apiObjects...).Build()
	return &Reconciler{client: c, reader: api, scheme: s, registry: reg, env: Environment{Namespace: v1beta1.DefaultNamespace},
		events: noEvents{}, applier: newApplier(c, api, s)}, c
}

func configMap(name string) *corev1.ConfigMap {
	return &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: v1beta1.DefaultNamespace, UID: types.UID("uid-" + name)}}
}

func TestOrphansAreDeletedOnlyOnceTheAPIServerHasNoHyperConverged(t *testing.T) {
	ctx := context.Background()
	cm := configMap("created")

	// The cache lags: the API server still has the HyperConverged. Nothing goes.
	hc := &v1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: v1beta1.HyperConvergedName, Namespace: v1beta1.DefaultNamespace}}
	r, c := orphanReconciler(t, []client.Object{cm.DeepCopy()}, hc)
	r.unfinalized.add(cm.DeepCopy())
	require.NoError(t, r.deleteOrphans(ctx))
	assert.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(cm), &corev1.ConfigMap{}), "kept while the HyperConverged exists")
	assert.Equal(t, 1, r.unfinalized.len(), "still remembered")

	// Gone for the API server too: deleted, and forgotten.
	r, c = orphanReconciler(t, []client.Object{cm.DeepCopy()})
	r.unfinalized.add(cm.DeepCopy())
	require.NoError(t, r.deleteOrphans(ctx))
	assert.True(t, apierrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(cm), &corev1.ConfigMap{})), "deleted")
	assert.Zero(t, r.unfinalized.len())
}

func TestNoOrphansNoRequest(t *testing.T) {
	r, _ := orphanReconciler(t, nil)
	r.reader = nil // any read would panic
	require.NoError(t, r.deleteOrphans(context.Background()))
}

// A reconcile that reads the HyperConverged from a cache still behind the
// finalizer patch does not patch again from that version (a sure conflict).
func TestFinalizerIsNotPatchedAgainFromAStaleCache(t *testing.T) {
	ctx := context.Background()
	hc := &v1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: v1beta1.HyperConvergedName, Namespace: v1beta1.DefaultNamespace, UID: "hc"}}
	r, c := orphanReconciler(t, []client.Object{hc})
	stale := &v1beta1.HyperConverged{}
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(hc), stale))

	first := stale.DeepCopy()
	require.NoError(t, r.addFinalizer(ctx, first))
	assert.Contains(t, first.Finalizers, FinalizerName)

	again := stale.DeepCopy()
	require.NoError(t, r.addFinalizer(ctx, again), "no patch from the version the first one replaced")
	got := &v1beta1.HyperConverged{}
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(hc), got))
	assert.Equal(t, first.ResourceVersion, got.ResourceVersion, "nothing written the second time")

	// Someone removes it later: the next version is patched again.
	got.Finalizers = nil
	require.NoError(t, c.Update(ctx, got))
	require.NoError(t, r.addFinalizer(ctx, got))
	assert.Contains(t, got.Finalizers, FinalizerName)
}
