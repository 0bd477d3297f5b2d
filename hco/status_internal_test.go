package hco

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	hcov1 "github.com/hcokit/hcokit/api/v1"

	"github.com/hcokit/hcokit/hcostatus"
)

// The status writer does not trust a cache that is behind its own last
// status write: a status that differs from what it wrote is neither skipped
// (the cache still shows the older one) nor patched over the stale copy; the
// reconcile comes back instead. A narrow test of the writer alone, with a
// fake client: the cache lag it needs cannot be produced on demand against
// a real API server.
func TestStatusWriterWhileTheCacheIsBehind(t *testing.T) {
	scheme := runtime.NewScheme()
	require.NoError(t, hcov1.AddToScheme(scheme))
	stale := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: "ns", ResourceVersion: "1", Generation: 1}}
	patches := 0
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(stale.DeepCopy()).WithStatusSubresource(&hcov1.HyperConverged{}).
		WithInterceptorFuncs(interceptor.Funcs{SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, p client.Patch, o ...client.SubResourcePatchOption) error {
			patches++
			return c.SubResource(sub).Patch(ctx, obj, p, o...)
		}}).Build()
	r := &Reconciler{client: c, registry: &Registry{}, applier: newApplier(c, c, c), now: time.Now, events: discardEvents{}}
	healthy := &assessment{full: true, Assessment: hcostatus.Assessment{Generation: 1, Components: []hcostatus.Component{hcostatus.FromConditions("KubeVirt", []hcostatus.OperandCondition{
		{Type: "Available", Status: "True"}, {Type: "Progressing", Status: "False"}, {Type: "Degraded", Status: "False"},
	}, "")}}}
	degraded := &assessment{full: true, Assessment: hcostatus.Assessment{Generation: 1, Components: []hcostatus.Component{hcostatus.NotFound("KubeVirt")}}}
	ctx := context.Background()

	// Written over the cached copy at resourceVersion 1; come back, so that
	// the operands read what was written.
	again, err := r.writeStatus(ctx, stale.DeepCopy(), degraded)
	require.NoError(t, err)
	assert.True(t, again, "a status written: come back to build from it")
	assert.Equal(t, 1, patches)

	// The cache still shows resourceVersion 1: nothing is written over the
	// stale copy, whatever the status, and the reconcile comes back.
	for _, a := range []*assessment{degraded, healthy} {
		again, err = r.writeStatus(ctx, stale.DeepCopy(), a)
		require.NoError(t, err)
		assert.True(t, again, "the cache is behind the last write: come back rather than trust it")
		assert.Equal(t, 1, patches)
	}

	// Once the cache has caught up (a newer resourceVersion), a new status is
	// written, and the same one again is not.
	current := &hcov1.HyperConverged{}
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(stale), current))
	again, err = r.writeStatus(ctx, current.DeepCopy(), healthy)
	require.NoError(t, err)
	assert.True(t, again)
	assert.Equal(t, 2, patches)
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(stale), current))
	again, err = r.writeStatus(ctx, current, healthy)
	require.NoError(t, err)
	assert.False(t, again, "nothing written, the cache up to date: nothing to come back for")
	assert.Equal(t, 2, patches)
}

type discardEvents struct{}

func (discardEvents) Eventf(runtime.Object, runtime.Object, string, string, string, string, ...any) {}
