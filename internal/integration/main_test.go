// Package integration tests what a user of the operator can observe, against
// a real kube-apiserver and etcd: the manager runs in the test process and the
// tests play the component operators (they set the operand CRs' status).
package integration

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap/zapcore"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/clustertls"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/internal/testenv"
	"github.com/hcokit/hcokit/operands"
	"github.com/hcokit/hcokit/operands/cdi"
	"github.com/hcokit/hcokit/operands/cnao"
	"github.com/hcokit/hcokit/operands/hpp"
	"github.com/hcokit/hcokit/operands/kubevirt"
	"github.com/hcokit/hcokit/operands/ssp"
)

const ns = v1beta1.DefaultNamespace

// deletionTimeout is short, so that a blocked deletion shows within a test.
const deletionTimeout = 3 * time.Second

var (
	env *testenv.Env
	// k is the tests' own client, straight to the API server.
	k client.Client
	// requests counts the operator's requests to the API server.
	requests = &requestCounter{}
	// metrics is the operator's metrics registry.
	metrics = prometheus.NewRegistry()
	// reconciler is the operator's, for the benchmarks that call it directly.
	reconciler *hco.Reconciler

	operatorEnv = hco.Environment{
		Namespace:       ns,
		Version:         "1.0.0",
		OperandVersions: map[string]string{kubevirt.Name: "v1.9.0"},
	}
)

func TestMain(m *testing.M) {
	testenv.Main(m, testenv.Options{
		AddToScheme: []func(*runtime.Scheme) error{v1beta1.AddToScheme, operands.AddToScheme, clustertls.AddToScheme},
		// OpenShift's APIServer configuration too: the operator then reads
		// the cluster's TLS profile (TestClusterTLSProfileIsTheDefault).
		CRDDirectoryPaths: []string{"config/crd/bases", "config/crd/operands", "internal/integration/testdata/openshift"},
	},
		func(e *testenv.Env) {
			env = e
			k = e.Client
			if err := startOperator(); err != nil {
				fmt.Fprintln(os.Stderr, "FAIL: start operator:", err)
				os.Exit(1)
			}
		})
}

// startOperator runs the stock operands (hpp enabled too) in a manager for
// the whole package, with a transport that counts its requests.
func startOperator() error {
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.Level(zapcore.ErrorLevel)))
	if err := k.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		return err
	}
	reg, err := hco.NewRegistry(kubevirt.New(), cdi.New(), cnao.New(), ssp.New(), hpp.New())
	if err != nil {
		return err
	}
	cfg := rest.CopyConfig(env.Config)
	cfg.WrapTransport = requests.wrap
	r, err := env.StartOperator(reg, operatorEnv, testenv.OperatorOptions{Config: cfg, Metrics: metrics})
	if err != nil {
		return err
	}
	r.DeletionTimeout = deletionTimeout
	reconciler = r
	return nil
}

// requestCounter counts requests by verb and resource path.
type requestCounter struct {
	mu     sync.Mutex
	counts map[string]int
	total  atomic.Int64
}

func (c *requestCounter) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		verb := req.Method
		if req.URL.Query().Get("watch") == "true" {
			verb = "WATCH"
		}
		c.mu.Lock()
		if c.counts == nil {
			c.counts = map[string]int{}
		}
		c.counts[verb+" "+req.URL.Path]++
		c.mu.Unlock()
		c.total.Add(1)
		return rt.RoundTrip(req)
	})
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// reset clears the counts.
func (c *requestCounter) reset() {
	c.mu.Lock()
	c.counts = map[string]int{}
	c.mu.Unlock()
}

// writes returns the non-read requests since the last reset, excluding
// Events (which are not the operator's state) and leases.
func (c *requestCounter) writes() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]int{}
	for k, n := range c.counts {
		if strings.HasPrefix(k, "GET ") || strings.HasPrefix(k, "WATCH ") || strings.Contains(k, "/events") || strings.Contains(k, "/leases") {
			continue
		}
		out[k] = n
	}
	return out
}

// reads returns the GET requests (not watches) since the last reset.
func (c *requestCounter) reads() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]int{}
	for k, n := range c.counts {
		if strings.HasPrefix(k, "GET ") && !strings.Contains(k, "/events") {
			out[k] = n
		}
	}
	return out
}

// createHC creates the HyperConverged and removes it, and waits for its
// operands to go, when the test ends.
func createHC(t testing.TB, mutate func(*v1beta1.HyperConverged)) *v1beta1.HyperConverged {
	t.Helper()
	hc := &v1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: v1beta1.HyperConvergedName, Namespace: ns}}
	if mutate != nil {
		mutate(hc)
	}
	testenv.CreateForTest(t, k, hc)
	return hc
}

// deleteHC deletes the HyperConverged and waits until it is gone.
func deleteHC(t testing.TB) {
	t.Helper()
	testenv.DeleteAndWait(t, k, &v1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: v1beta1.HyperConvergedName, Namespace: ns}})
}

// getHC reads the HyperConverged.
func getHC(t testing.TB) *v1beta1.HyperConverged {
	t.Helper()
	hc := &v1beta1.HyperConverged{}
	if err := k.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: v1beta1.HyperConvergedName}, hc); err != nil {
		t.Fatalf("get HyperConverged: %v", err)
	}
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
