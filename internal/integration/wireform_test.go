package integration

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kvv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hco/manager"
	"github.com/hcokit/hcokit/internal/testenv"
	"github.com/hcokit/hcokit/operands"
	"github.com/hcokit/hcokit/operands/kubevirt"
)

// The applier's memo compares the wire form the operator builds with the
// objects the cache and the API server's answers (to a Create, an Update)
// hold, with equality.Semantic: all of them must decode numbers alike, an
// integer as an int64 (k8s.io/apimachinery's json), never a float64.
func TestWireFormAndTheServerDecodeNumbersAlike(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	createHC(t, nil)
	get(t, kvKey, &kvv1.KubeVirt{})

	hub := &hcov1.HyperConverged{}
	require.NoError(t, k.Get(ctx, client.ObjectKey{Namespace: ns, Name: hcov1.HyperConvergedName}, hub))
	desired, err := hco.DesiredObjects(kubevirt.New(), hub, hco.OfflineFacts(operatorEnv))
	require.NoError(t, err)
	want := desired[0]

	// A cache as the operator's.
	scheme, err := hco.NewScheme(operands.AddToScheme)
	require.NoError(t, err)
	c, err := cache.New(env.Config, manager.CacheOptions(scheme, ns, manager.CacheScope{}))
	require.NoError(t, err)
	cctx, stop := context.WithCancel(ctx)
	t.Cleanup(stop)
	go func() { _ = c.Start(cctx) }()
	cached := &unstructured.Unstructured{}
	cached.SetGroupVersionKind(want.GroupVersionKind())
	// The operator's cache reads only kinds it watches.
	_, err = c.GetInformer(ctx, cached)
	require.NoError(t, err)
	testenv.Eventually(t, "read from the cache", func() error { return c.Get(ctx, kvKey, cached) })

	// A Create and an Update of the wire form (another name, not managed: the
	// operator leaves it alone).
	created := want.DeepCopy()
	created.SetName("numbers-test")
	created.SetLabels(nil)
	require.NoError(t, k.Create(ctx, created))
	t.Cleanup(func() { _ = k.Delete(context.Background(), created) })
	updated := created.DeepCopy()
	require.NoError(t, unstructured.SetNestedField(updated.Object, int64(151), "spec", "configuration", "migrations", "progressTimeout"))
	require.NoError(t, k.Update(ctx, updated))

	for what, u := range map[string]*unstructured.Unstructured{"wire form": want, "cache": cached, "create": created, "update": updated} {
		assert.Positive(t, integersAreInt64(t, what, u.Object, ""), "%s holds numbers", what)
	}
	path := []string{"spec", "configuration", "migrations", "progressTimeout"}
	built, _, _ := unstructured.NestedFieldNoCopy(want.Object, path...)
	stored, _, _ := unstructured.NestedFieldNoCopy(cached.Object, path...)
	assert.Equal(t, int64(150), built)
	assert.True(t, equality.Semantic.DeepEqual(built, stored), "built %#v, stored %#v", built, stored)
}

// integersAreInt64 reports every number of v that is an integer not held
// as an int64, and returns how many numbers v holds.
func integersAreInt64(t *testing.T, what string, v any, path string) int {
	t.Helper()
	n := 0
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			n += integersAreInt64(t, what, e, path+"."+k)
		}
	case []any:
		for i, e := range x {
			n += integersAreInt64(t, what, e, fmt.Sprintf("%s[%d]", path, i))
		}
	case int64:
		n++
	case float64:
		if x == math.Trunc(x) {
			t.Errorf("%s %s: the integer %v is a float64", what, path, x)
		}
		n++
	case string, bool, nil:
	default:
		t.Errorf("%s %s: %T, not a JSON value", what, path, v)
	}
	return n
}
