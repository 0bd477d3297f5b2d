package hco

import (
	"context"
	"errors"
	"testing"
	"time"

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
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

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
	r.unfinalized.addCreated(cm, cm.GroupVersionKind())
	require.NoError(t, r.deleteOrphans(ctx))
	assert.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(cm), &corev1.ConfigMap{}), "kept while the HyperConverged exists")
	assert.Equal(t, 1, r.unfinalized.len(), "still remembered")

	// Gone for the API server too: deleted, and forgotten.
	r, c = orphanReconciler(t, []client.Object{cm.DeepCopy()})
	r.unfinalized.addCreated(cm, cm.GroupVersionKind())
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

// A create whose answer was lost is looked up past the cache: deleted if it
// carries our labels and is not older than the attempt, kept otherwise.
func TestLostCreateIsDeletedOnlyIfItIsOurs(t *testing.T) {
	ctx := context.Background()
	attempt := time.Now()
	labelled := func(name string, created time.Time) *corev1.ConfigMap {
		cm := configMap(name)
		cm.Labels = map[string]string{LabelApp: v1beta1.HyperConvergedName, LabelManagedBy: ManagedByValue}
		cm.CreationTimestamp = metav1.NewTime(created)
		return cm
	}
	ours := labelled("ours", attempt.Add(time.Second))
	older := labelled("older", attempt.Add(-time.Hour))
	theirs := configMap("theirs")
	theirs.CreationTimestamp = metav1.NewTime(attempt.Add(time.Second))
	inCluster := []client.Object{ours.DeepCopy(), older.DeepCopy(), theirs.DeepCopy()}
	r, c := orphanReconciler(t, inCluster, ours.DeepCopy(), older.DeepCopy(), theirs.DeepCopy())
	for _, name := range []string{"ours", "older", "theirs", "never-stored"} {
		r.unfinalized.addUnknown(configMap(name), corev1.SchemeGroupVersion.WithKind("ConfigMap"), attempt)
	}
	require.NoError(t, r.deleteOrphans(ctx))
	assert.True(t, apierrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(ours), &corev1.ConfigMap{})), "stored after all, ours: deleted")
	assert.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(older), &corev1.ConfigMap{}), "older than the attempt: not from it")
	assert.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(theirs), &corev1.ConfigMap{}), "without our labels: not ours")
	assert.Zero(t, r.unfinalized.len())
}

// Only a create without the API server's answer is of unknown outcome.
func TestCreateWithoutAnAnswerIsOfUnknownOutcome(t *testing.T) {
	s := runtime.NewScheme()
	require.NoError(t, clientgoscheme.AddToScheme(s))
	for _, tc := range []struct {
		err     error
		unknown bool
	}{
		{errors.New("connection reset by peer"), true},
		{apierrors.NewTimeoutError("slow", 1), true},
		{apierrors.NewForbidden(corev1.Resource("configmaps"), "x", errors.New("no")), false},
	} {
		c := fake.NewClientBuilder().WithScheme(s).WithInterceptorFuncs(interceptor.Funcs{
			Create: func(context.Context, client.WithWatch, client.Object, ...client.CreateOption) error { return tc.err },
		}).Build()
		_, _, _, err := newApplier(c, c, s).apply(context.Background(), configMap("x"))
		var unknown *createUnknownError
		assert.Equal(t, tc.unknown, errors.As(err, &unknown), "%v", tc.err)
		assert.ErrorIs(t, err, tc.err)
	}
}
