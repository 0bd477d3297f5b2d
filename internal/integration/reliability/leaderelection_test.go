package reliability

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	kvv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/internal/testenv"
)

func elected(t *testing.T, o *operator, what string) {
	t.Helper()
	select {
	case <-o.mgr.Elected():
	case <-time.After(wait):
		t.Fatalf("%s was not elected", what)
	}
}

func isElected(o *operator) bool {
	select {
	case <-o.mgr.Elected():
		return true
	default:
		return false
	}
}

// stateWrites are a log's writes of operand CRs and of the HyperConverged
// (its status included), and its Events: everything but the Lease.
func stateWrites(l *requestLog) []request {
	return l.matching(func(r request) bool {
		return r.verb != http.MethodGet && r.verb != "WATCH" && !strings.Contains(r.path, "/leases")
	})
}

// Two managers with leader election: only the leader writes operand CRs,
// the HyperConverged, its status and Events; the other only reads and
// watches the Lease. When the leader stops it releases the Lease, the other
// takes over and applies a later spec change, and the old leader writes no
// more.
func TestOnlyTheLeaderWrites(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	a := startOperator(t, operatorOptions{leaderElection: true})
	elected(t, a, "the first manager")
	b := startOperator(t, operatorOptions{leaderElection: true})
	deleteHCAtEnd(t)

	createHC(t, fullHC)
	testenv.Eventually(t, "converged under the first leader", func() error { return converged(ctx, 300) })
	// A while longer, for the follower to show that it stays one.
	stays(t, "the second manager follows", 500*time.Millisecond, func() error {
		if isElected(b) {
			return fmt.Errorf("both managers are leaders")
		}
		if w := stateWrites(b.requests); len(w) > 0 {
			return fmt.Errorf("the follower wrote: %v", w)
		}
		return nil
	})
	lease := &coordinationv1.Lease{}
	mustOK(t, k.Get(ctx, client.ObjectKey{Namespace: ns, Name: "hcokit-reliability"}, lease))
	if lease.Spec.HolderIdentity == nil || a.requests.len() == 0 {
		t.Fatalf("lease %+v", lease.Spec)
	}
	leaderWrites := stateWrites(a.requests)
	var operandCreates, statusWrites int
	for _, r := range leaderWrites {
		switch {
		case isOperandCreatePath(r):
			operandCreates++
		case strings.HasSuffix(r.path, "/status"):
			statusWrites++
		}
	}
	if operandCreates != 5 || statusWrites == 0 {
		t.Fatalf("the leader made %d operand creates and %d status writes: %v", operandCreates, statusWrites, leaderWrites)
	}
	if b.requests.len() == 0 {
		t.Fatal("the follower sent no request at all: is it running?")
	}

	// The leader stops and releases the Lease; the follower takes over.
	stopped := time.Now()
	a.stop()
	after := a.requests.len()
	elected(t, b, "the second manager")
	t.Logf("takeover %v after the leader stopped", time.Since(stopped).Round(time.Millisecond))

	updateHC(t, func(hc *v1beta1.HyperConverged) { hc.Spec.LiveMigrationConfig.ProgressTimeout = ptrTo(int64(444)) })
	testenv.Eventually(t, "the new leader applies a spec change", func() error { return converged(ctx, 444) })
	var kvUpdates, newStatus int
	for _, r := range stateWrites(b.requests) {
		switch {
		case r.verb == http.MethodPut && strings.HasSuffix(r.path, "/kubevirts/"+kvKey.Name):
			kvUpdates++
		case strings.HasSuffix(r.path, "/hyperconvergeds/"+v1beta1.HyperConvergedName+"/status"):
			newStatus++
		case isOperandCreatePath(r):
			t.Errorf("the new leader created an operand CR that existed: %v", r)
		}
	}
	if kvUpdates != 1 || newStatus == 0 {
		t.Errorf("the new leader made %d KubeVirt updates and %d status writes: %v", kvUpdates, newStatus, stateWrites(b.requests))
	}
	// The leader election's own Event about giving up the Lease (core/v1)
	// may still be on its way; nothing else may be.
	a.requests.mu.Lock()
	for _, r := range a.requests.reqs[after:] {
		if !strings.HasPrefix(r.path, "/api/v1/namespaces/"+ns+"/events") {
			t.Errorf("the stopped leader sent %v", r)
		}
	}
	a.requests.mu.Unlock()
	kv := &kvv1.KubeVirt{}
	mustOK(t, k.Get(ctx, kvKey, kv))
	if got := *kv.Spec.Configuration.MigrationConfiguration.ProgressTimeout; got != 444 {
		t.Errorf("KubeVirt progressTimeout %d", got)
	}
}
