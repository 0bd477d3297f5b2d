// Package reliability tests that the operator survives faults and bad input
// on a real kube-apiserver and etcd: an API server that crashes and restarts,
// or whose connection is cut, in the middle of a reconcile, injected
// conflicts and server errors, an operator
// killed mid-convergence, two managers under leader election, and every class
// of bad HyperConverged input. Each test starts and stops its own
// manager(s), so no two operators ever run at the same time unless the test
// is about that, and leaves no HyperConverged behind.
//
// This package holds tests only; nothing may import it.
package reliability

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap/zapcore"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	kvv1 "kubevirt.io/api/core/v1"
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	sspv1beta3 "kubevirt.io/ssp-operator/api/v1beta3"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/extensions"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hco/manager"
	"github.com/hcokit/hcokit/internal/testenv"
	"github.com/hcokit/hcokit/operands"
	"github.com/hcokit/hcokit/operands/cdi"
	"github.com/hcokit/hcokit/operands/cnao"
	cnaov1 "github.com/hcokit/hcokit/operands/cnao/api/v1"
	"github.com/hcokit/hcokit/operands/hpp"
	hppv1beta1 "github.com/hcokit/hcokit/operands/hpp/api/v1beta1"
	"github.com/hcokit/hcokit/operands/kubevirt"
	"github.com/hcokit/hcokit/operands/ssp"
)

const (
	ns = v1beta1.DefaultNamespace
	// poll is how often a condition is checked; wait bounds the wait.
	poll = 25 * time.Millisecond
	wait = 15 * time.Second
)

var (
	env *testenv.Env
	// k is the tests' own client, straight to the API server.
	k client.Client

	operatorEnv = hco.Environment{
		Namespace:       ns,
		Version:         "1.0.0",
		OperandVersions: map[string]string{kubevirt.Name: "v1.9.0"},
	}

	kvKey   = client.ObjectKey{Namespace: ns, Name: "kubevirt-kubevirt-hyperconverged"}
	cdiKey  = client.ObjectKey{Name: "cdi-kubevirt-hyperconverged"}
	cnaoKey = client.ObjectKey{Name: "cluster"}
	sspKey  = client.ObjectKey{Namespace: ns, Name: "ssp-kubevirt-hyperconverged"}
	hppKey  = client.ObjectKey{Name: "hostpath-provisioner"}
)

func TestMain(m *testing.M) {
	testenv.Main(m, testenv.Options{AddToScheme: []func(*runtime.Scheme) error{v1beta1.AddToScheme, operands.AddToScheme}},
		func(e *testenv.Env) {
			env = e
			k = e.Client
			ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.Level(zapcore.DPanicLevel)))
			if err := k.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
				fmt.Fprintln(os.Stderr, "FAIL: create namespace:", err)
				os.Exit(1)
			}
		})
}

// operator is one manager running the stock operands in this process.
type operator struct {
	mgr      ctrl.Manager
	requests *requestLog
	cancel   context.CancelFunc
	done     chan struct{}
	stopOnce sync.Once
}

// operatorOptions varies how an operator reaches the API server.
type operatorOptions struct {
	// host replaces the API server address (a proxy in front of it).
	host string
	// wrap sits between the request log and the API server.
	wrap func(http.RoundTripper) http.RoundTripper
	// newClient replaces the manager's client constructor.
	newClient client.NewClientFunc
	// leaderElection turns on leader election with short timings.
	leaderElection bool
}

// startOperator starts a manager with a fresh Reconciler and a request log of
// its own; it is stopped when the test ends, if the test has not stopped it.
func startOperator(t *testing.T, o operatorOptions) *operator {
	t.Helper()
	reg, err := hco.NewRegistry(kubevirt.New(), cdi.New(), cnao.New(), ssp.New(), hpp.New())
	mustOK(t, err)
	scheme, err := hco.NewScheme(operands.AddToScheme)
	mustOK(t, err)
	op := &operator{requests: &requestLog{}, done: make(chan struct{})}
	cfg := rest.CopyConfig(env.Config)
	if o.host != "" {
		cfg.Host = o.host
	}
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		if o.wrap != nil {
			rt = o.wrap(rt)
		}
		return op.requests.wrap(rt)
	}
	mo := testenv.ManagerOptions(scheme)
	mo.NewClient = o.newClient
	if o.leaderElection {
		mo.LeaderElection = true
		mo.LeaderElectionID = "hcokit-reliability"
		mo.LeaderElectionNamespace = ns
		mo.LeaderElectionReleaseOnCancel = true
		mo.LeaseDuration = ptr.To(2 * time.Second)
		mo.RenewDeadline = ptr.To(1500 * time.Millisecond)
		mo.RetryPeriod = ptr.To(100 * time.Millisecond)
	}
	mgr, _, err := manager.New(cfg, reg, operatorEnv, manager.Options{Manager: mo, Metrics: prometheus.NewRegistry(), Extensions: extensions.Stock()})
	mustOK(t, err)
	op.mgr = mgr
	ctx, cancel := context.WithCancel(context.Background())
	op.cancel = cancel
	go func() {
		defer close(op.done)
		if err := mgr.Start(ctx); err != nil && !errors.Is(err, context.Canceled) {
			t.Logf("manager stopped: %v", err)
		}
	}()
	t.Cleanup(op.stop)
	return op
}

// stop cancels the manager and waits for it to return.
func (o *operator) stop() {
	o.stopOnce.Do(func() {
		o.cancel()
		select {
		case <-o.done:
		case <-time.After(wait):
			panic("manager did not stop")
		}
	})
}

// request is one request the operator sent, and its status code (0 when
// the request got no response).
type request struct {
	verb, path string
	code       int
}

func (r request) String() string { return fmt.Sprintf("%s %s -> %d", r.verb, r.path, r.code) }

// isWrite reports whether r changes state, Events and Leases aside.
func (r request) isWrite() bool {
	return r.verb != "GET" && r.verb != "WATCH" && !strings.Contains(r.path, "/events") && !strings.Contains(r.path, "/leases")
}

// requestLog records an operator's requests.
type requestLog struct {
	mu   sync.Mutex
	reqs []request
}

func (l *requestLog) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		verb := req.Method
		if req.URL.Query().Get("watch") == "true" {
			verb = "WATCH"
		}
		resp, err := rt.RoundTrip(req)
		r := request{verb: verb, path: req.URL.Path}
		if err == nil {
			r.code = resp.StatusCode
		}
		l.mu.Lock()
		l.reqs = append(l.reqs, r)
		l.mu.Unlock()
		return resp, err
	})
}

// matching returns the logged requests for which keep is true.
func (l *requestLog) matching(keep func(request) bool) []request {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []request
	for _, r := range l.reqs {
		if keep(r) {
			out = append(out, r)
		}
	}
	return out
}

func (l *requestLog) writes() []request { return l.matching(request.isWrite) }

// since returns the requests after the first n that keep matches.
func (l *requestLog) since(n int, keep func(request) bool) []request {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []request
	for _, r := range l.reqs[min(n, len(l.reqs)):] {
		if keep(r) {
			out = append(out, r)
		}
	}
	return out
}

func (l *requestLog) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.reqs)
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func mustOK(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// stays checks f every poll for d and fails at the first error.
func stays(t *testing.T, what string, d time.Duration, f func() error) {
	t.Helper()
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(poll) {
		if err := f(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
}

// createHC creates the HyperConverged singleton. Whatever is left of it when
// the test ends is cleared by force, after the test's own cleanups.
func createHC(t *testing.T, mutate func(*v1beta1.HyperConverged)) {
	t.Helper()
	t.Cleanup(func() { clearCluster(t) })
	hc := &v1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: v1beta1.HyperConvergedName, Namespace: ns}}
	if mutate != nil {
		mutate(hc)
	}
	mustOK(t, k.Create(context.Background(), hc))
}

// deleteHCAtEnd deletes the HyperConverged when the test ends, while the
// operator started before this call still runs, and waits for its finalizer
// and every operand CR to go. Call it after starting the operator that is
// to remove the finalizer.
func deleteHCAtEnd(t *testing.T) {
	t.Cleanup(func() { deleteHC(t) })
}

// deleteHC deletes the HyperConverged and waits for the operator to remove
// its operand CRs and finalizer. If that does not happen, it fails the test
// and clears the cluster by force, so that the next test starts clean.
func deleteHC(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	hc := &v1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: v1beta1.HyperConvergedName, Namespace: ns}}
	if err := k.Delete(ctx, hc); err != nil && !apierrors.IsNotFound(err) {
		t.Errorf("delete HyperConverged: %v", err)
	}
	var err error
	for deadline := time.Now().Add(wait); time.Now().Before(deadline); time.Sleep(poll) {
		if err = goneWithOperands(ctx); err == nil {
			return
		}
	}
	t.Errorf("uninstall did not complete: %v", err)
	if err := k.Get(ctx, client.ObjectKeyFromObject(hc), hc); err == nil {
		t.Logf("HyperConverged conditions: %+v", hc.Status.Conditions)
	}
}

// clearCluster removes, by force, whatever a failed test left: the
// HyperConverged (finalizer dropped) and every operand CR.
func clearCluster(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	hc := &v1beta1.HyperConverged{}
	if err := k.Get(ctx, client.ObjectKey{Namespace: ns, Name: v1beta1.HyperConvergedName}, hc); err == nil {
		_ = k.Patch(ctx, hc, client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`)))
		_ = k.Delete(ctx, hc)
	}
	for _, obj := range operandObjects() {
		_ = k.Delete(ctx, obj)
	}
	var err error
	for deadline := time.Now().Add(wait); time.Now().Before(deadline); time.Sleep(poll) {
		if err = goneWithOperands(ctx); err == nil {
			return
		}
	}
	t.Errorf("could not clear the cluster for the next test: %v", err)
}

func goneWithOperands(ctx context.Context) error {
	hc := &v1beta1.HyperConverged{}
	if err := k.Get(ctx, client.ObjectKey{Namespace: ns, Name: v1beta1.HyperConvergedName}, hc); !apierrors.IsNotFound(err) {
		return fmt.Errorf("HyperConverged still there (finalizers %v): %v", hc.Finalizers, err)
	}
	for _, obj := range operandObjects() {
		key := client.ObjectKeyFromObject(obj)
		if err := k.Get(ctx, key, obj); !apierrors.IsNotFound(err) {
			return fmt.Errorf("%T %s still there (deletionTimestamp %v, finalizers %v): %v", obj, key, obj.GetDeletionTimestamp(), obj.GetFinalizers(), err)
		}
	}
	return nil
}

// operandObjects returns an empty object of each operand kind, named as the
// operand names its CR.
func operandObjects() []client.Object {
	named := func(obj client.Object, key client.ObjectKey) client.Object {
		obj.SetNamespace(key.Namespace)
		obj.SetName(key.Name)
		return obj
	}
	return []client.Object{
		named(&kvv1.KubeVirt{}, kvKey), named(&cdiv1beta1.CDI{}, cdiKey), named(&cnaov1.NetworkAddonsConfig{}, cnaoKey),
		named(&sspv1beta3.SSP{}, sspKey), named(&hppv1beta1.HostPathProvisioner{}, hppKey),
	}
}

func getHC(t *testing.T) *v1beta1.HyperConverged {
	t.Helper()
	hc := &v1beta1.HyperConverged{}
	mustOK(t, k.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: v1beta1.HyperConvergedName}, hc))
	return hc
}

// updateHC applies mutate to the current HyperConverged, retrying on conflict.
func updateHC(t *testing.T, mutate func(*v1beta1.HyperConverged)) {
	t.Helper()
	testenv.Eventually(t, "update HyperConverged", func() error {
		hc := getHC(t)
		mutate(hc)
		return k.Update(context.Background(), hc)
	})
}

func condition(hc *v1beta1.HyperConverged, typ string) *metav1.Condition {
	return meta.FindStatusCondition(hc.Status.Conditions, typ)
}

// checkCondition says why the HyperConverged's condition is not yet
// status/reason for its current generation.
func checkCondition(hc *v1beta1.HyperConverged, typ string, status metav1.ConditionStatus, reason string) error {
	c := condition(hc, typ)
	switch {
	case c == nil:
		return fmt.Errorf("no %s condition in %+v", typ, hc.Status.Conditions)
	case c.Status != status || (reason != "" && c.Reason != reason):
		return fmt.Errorf("%s is %s/%s: %s", typ, c.Status, c.Reason, c.Message)
	case c.ObservedGeneration != hc.Generation:
		return fmt.Errorf("%s observed generation %d, object at %d", typ, c.ObservedGeneration, hc.Generation)
	}
	return nil
}

// waitCondition waits for the HyperConverged's condition to have status and
// reason (any reason when empty) for its current generation.
func waitCondition(t *testing.T, typ string, status metav1.ConditionStatus, reason string) *v1beta1.HyperConverged {
	t.Helper()
	var hc *v1beta1.HyperConverged
	testenv.Eventually(t, fmt.Sprintf("condition %s=%s/%s", typ, status, reason), func() error {
		hc = getHC(t)
		return checkCondition(hc, typ, status, reason)
	})
	return hc
}
