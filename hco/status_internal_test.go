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

// The status writer does not write over a stale copy of the HyperConverged:
// while the cache shows the version its own last status write replaced, it
// sends nothing and the reconcile comes back (writeStatus says stale); a
// stale copy it does not know of gets a conflict from the API server (the
// patch carries its resourceVersion), with the same answer. A status
// written needs no reconcile after it. (The fake client checks the
// resourceVersion as the API server does.)
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
	r := &Reconciler{client: c, registry: &Registry{}, applier: newApplier(c, c), now: time.Now, events: discardEvents{}}
	healthy := &assessment{full: true, Assessment: hcostatus.Assessment{Generation: 1, Components: []hcostatus.Component{hcostatus.FromConditions("KubeVirt", []hcostatus.OperandCondition{
		{Type: "Available", Status: "True"}, {Type: "Progressing", Status: "False"}, {Type: "Degraded", Status: "False"},
	}, "")}}}
	degraded := &assessment{full: true, Assessment: hcostatus.Assessment{Generation: 1, Components: []hcostatus.Component{hcostatus.NotFound("KubeVirt")}}}
	ctx := context.Background()
	stored := func() *hcov1.HyperConverged {
		hc := &hcov1.HyperConverged{}
		require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(stale), hc))
		return hc
	}

	again, err := r.writeStatus(ctx, stale.DeepCopy(), degraded)
	require.NoError(t, err)
	assert.False(t, again, "a status written: nothing to come back for")
	assert.Equal(t, 1, patches)
	written := stored()
	require.NotEqual(t, "1", written.ResourceVersion)

	// The cache still shows resourceVersion 1: nothing is sent, whatever the
	// status, and the reconcile comes back.
	for _, a := range []*assessment{degraded, healthy} {
		again, err = r.writeStatus(ctx, stale.DeepCopy(), a)
		require.NoError(t, err)
		assert.True(t, again, "the cache is behind the last write: come back")
		assert.Equal(t, 1, patches, "no request over the stale copy")
	}
	// A stale copy the memo does not know of (another process wrote, say):
	// the API server refuses the patch.
	r.applier = newApplier(c, c)
	again, err = r.writeStatus(ctx, stale.DeepCopy(), healthy)
	require.NoError(t, err)
	assert.True(t, again, "a conflict: come back")
	assert.Equal(t, written.Status, stored().Status, "nothing written over the stale copy")

	// Once the cache has caught up, a new status is written, and the same
	// one again is not sent.
	again, err = r.writeStatus(ctx, stored(), healthy)
	require.NoError(t, err)
	assert.False(t, again)
	n := patches
	again, err = r.writeStatus(ctx, stored(), healthy)
	require.NoError(t, err)
	assert.False(t, again)
	assert.Equal(t, n, patches, "the same status again: no request")
}

type discardEvents struct{}

func (discardEvents) Eventf(runtime.Object, runtime.Object, string, string, string, string, ...any) {}

// A deletion in progress is checked every uninstallPoll until it is
// reported blocked, then after a tenth of the time waited, at most
// maxUninstallPoll.
func TestUninstallPollBacksOffOnceBlocked(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	r := &Reconciler{now: func() time.Time { return now }, DeletionTimeout: 5 * time.Minute}
	for waited, want := range map[time.Duration]time.Duration{
		0:               uninstallPoll,
		5 * time.Minute: uninstallPoll,
		6 * time.Minute: 36 * time.Second,
		time.Hour:       maxUninstallPoll,
		24 * time.Hour:  maxUninstallPoll,
	} {
		assert.Equal(t, want, r.uninstallPollAfter(now.Add(-waited)), "waited %s", waited)
	}
}
