package reliability

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/internal/testenv"
)

// isOperandCreate reports whether r creates an operand CR.
func isOperandCreate(r *http.Request) bool {
	return r.Method == http.MethodPost && !strings.Contains(r.URL.Path, "/hyperconvergeds") &&
		!strings.Contains(r.URL.Path, "/events") && !strings.Contains(r.URL.Path, "/leases")
}

// operandAt returns the empty operand CR (named) whose collection path is
// the path of a create, or nil.
func operandAt(path string) client.Object {
	plural := path[strings.LastIndex(path, "/")+1:]
	for i, obj := range operandObjects() {
		if []string{"kubevirts", "cdis", "networkaddonsconfigs", "ssps", "hostpathprovisioners"}[i] == plural {
			return obj
		}
	}
	return nil
}

// The connection to the API server is cut (a proxy in front of it) in the
// middle of the first reconcile, while the API server itself stays up for
// the test's own client: right after
// it has created the first operand CR, before the operator hears back, so the
// operator does not know that create succeeded; the other creates of that
// reconcile are cut off. While it is away the HyperConverged changes. When
// it is back, the operator converges on the later spec, with one CR of each
// kind, the one created blind kept (same UID), nothing deleted, and a status
// that references the live CRs.
func TestAPIServerOutageMidReconcile(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	u, err := url.Parse(env.Config.Host)
	mustOK(t, err)
	target := u.Host
	if target == "" {
		target = env.Config.Host
	}
	proxy, err := newAPIProxy(target)
	mustOK(t, err)
	t.Cleanup(proxy.close)

	var tripped atomic.Bool
	cutAt := make(chan string, 1)
	lost := errors.New("connection to the API server lost")
	op := startOperator(t, operatorOptions{
		host: "https://" + proxy.addr,
		wrap: func(rt http.RoundTripper) http.RoundTripper {
			return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
				resp, err := rt.RoundTrip(req)
				if err == nil && isOperandCreate(req) && tripped.CompareAndSwap(false, true) {
					// The create went through; its answer is lost with the server.
					resp.Body.Close()
					proxy.cut()
					cutAt <- req.URL.Path
					return nil, lost
				}
				return resp, err
			})
		},
	})
	deleteHCAtEnd(t)
	createHC(t, fullHC)

	var path string
	select {
	case path = <-cutAt:
	case <-time.After(wait):
		t.Fatal("the operator created no operand CR")
	}
	if !proxy.isCut() {
		t.Fatal("proxy not cut")
	}
	// The blind create is in the API server.
	blind := operandAt(path)
	if blind == nil {
		t.Fatalf("create of %s is not of an operand kind", path)
	}
	mustOK(t, k.Get(ctx, client.ObjectKeyFromObject(blind), blind))
	blindUID := blind.GetUID()
	before := op.requests.len()

	// A spec change while the API server is away from the operator.
	updateHC(t, func(hc *v1beta1.HyperConverged) { hc.Spec.LiveMigrationConfig.ProgressTimeout = ptrTo(int64(321)) })
	stays(t, "the outage lasts", time.Second, func() error {
		if !proxy.isCut() {
			return errors.New("proxy restored early")
		}
		return nil
	})
	failed := len(op.requests.matching(func(r request) bool { return r.code == 0 }))
	if failed == 0 || op.requests.len() == before {
		t.Fatalf("the operator sent no request during the outage (%d failed in all)", failed)
	}
	mustOK(t, proxy.restore())

	testenv.Eventually(t, "converged after the outage, on the spec changed during it", func() error { return converged(ctx, 321) })
	mustOK(t, k.Get(ctx, client.ObjectKeyFromObject(blind), blind))
	if blind.GetUID() != blindUID {
		t.Errorf("%T created during the outage was replaced: uid %s, was %s", blind, blind.GetUID(), blindUID)
	}
	if dels := op.requests.matching(func(r request) bool { return r.verb == http.MethodDelete }); len(dels) > 0 {
		t.Errorf("the operator deleted something: %v", dels)
	}
	t.Logf("%d requests failed during the outage; %d requests in all", failed, op.requests.len())
}

// The kube-apiserver process is killed right after the operator's first
// operand CR create went through (the operator never hears back) and, a
// second later, started again: the same etcd, address, certificate and
// users, a new process with its watch cache rebuilt. The operator, which kept
// running and retrying, reconnects and converges: one CR of each kind, the one
// created before the crash kept, nothing deleted, a status that references
// the live CRs.
func TestAPIServerRestartMidReconcile(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	var tripped atomic.Bool
	stoppedAt := make(chan string, 1)
	op := startOperator(t, operatorOptions{
		wrap: func(rt http.RoundTripper) http.RoundTripper {
			return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
				resp, err := rt.RoundTrip(req)
				if err == nil && isOperandCreate(req) && tripped.CompareAndSwap(false, true) {
					resp.Body.Close()
					stoppedAt <- req.URL.Path
					return nil, errors.New("the API server crashed")
				}
				return resp, err
			})
		},
	})
	createHC(t, fullHC)

	var path string
	select {
	case path = <-stoppedAt:
	case <-time.After(wait):
		t.Fatal("the operator created no operand CR")
	}
	// Counted from the kill on: the kill itself takes a while, and the
	// operator's retries back off exponentially meanwhile.
	before := op.requests.len()
	mustOK(t, env.KillAPIServer())
	time.Sleep(time.Second) // the outage: the operator keeps trying
	if failed := op.requests.since(before, func(r request) bool { return r.code == 0 }); len(failed) == 0 {
		t.Fatalf("the operator sent no request while the API server was down (%d requests since the kill)", op.requests.len()-before)
	}
	mustOK(t, env.StartAPIServer())
	deleteHCAtEnd(t)

	blind := operandAt(path)
	if blind == nil {
		t.Fatalf("create of %s is not of an operand kind", path)
	}
	mustOK(t, k.Get(ctx, client.ObjectKeyFromObject(blind), blind))
	blindUID := blind.GetUID()

	// Watches come back with the reflectors' backoff (up to tens of
	// seconds after an outage), hence the longer wait.
	var err error
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(poll) {
		if err = converged(ctx, 300); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("not converged after the restart: %v", err)
	}
	mustOK(t, k.Get(ctx, client.ObjectKeyFromObject(blind), blind))
	if blind.GetUID() != blindUID {
		t.Errorf("%T created before the crash was replaced", blind)
	}
	if dels := op.requests.matching(func(r request) bool { return r.verb == http.MethodDelete }); len(dels) > 0 {
		t.Errorf("the operator deleted something: %v", dels)
	}
}
