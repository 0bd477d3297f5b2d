package integration

import (
	"context"
	"fmt"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/internal/testenv"
)

// BenchmarkReconcileInSync is the operator's own cost of one reconcile with
// nothing to do, every operand in sync (the work every event costs before
// any write): the HyperConverged converged, the reconciler called directly,
// its reads all from the cache. It fails if a reconcile makes a request.
// Profile it with -cpuprofile; docs/performance.md records it.
func BenchmarkReconcileInSync(b *testing.B) {
	env.Require(b)
	ctx := context.Background()
	createHC(b, nil)
	req := reconcile.Request{NamespacedName: client.ObjectKey{Namespace: ns, Name: hcov1.HyperConvergedName}}
	// Converged: a reconcile that makes no request.
	testenv.Eventually(b, "a reconcile with nothing to do", func() error {
		before := requests.total.Load()
		if _, err := reconciler.Reconcile(ctx, req); err != nil {
			return err
		}
		if n := requests.total.Load() - before; n != 0 {
			return fmt.Errorf("%d requests", n)
		}
		return nil
	})
	before := requests.total.Load()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := reconciler.Reconcile(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
	if n := requests.total.Load() - before; n != 0 {
		b.Fatalf("%d requests during %d reconciles with nothing to do; want 0", n, b.N)
	}
}
