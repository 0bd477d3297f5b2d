package apis

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hco/manager"
	"github.com/hcokit/hcokit/hcostatus"
	"github.com/hcokit/hcokit/internal/testenv"
	"github.com/hcokit/hcokit/operands"
	"github.com/hcokit/hcokit/operands/perses"
	"github.com/hcokit/hcokit/operands/stock"
)

// persesNS is the namespace of the install whose cluster lacks the Perses
// API.
const persesNS = "perses-absent"

// openShiftPerses is the Perses operand as it runs on OpenShift, on this
// control plane, which is not OpenShift: its Desired sees OpenShift's
// facts, and it is not left out as OpenShift-only. (The OpenShift test
// package's control plane serves the Perses CRDs.)
type openShiftPerses struct{ perses.Operand }

func (openShiftPerses) OpenShiftOnly() bool { return false }

func (o openShiftPerses) Desired(hc *hcov1.HyperConverged, facts hco.Facts) ([]client.Object, error) {
	facts.Platform.OpenShift = true
	return o.Operand.Desired(hc, facts)
}

// persesRequests records the requests for the Perses kinds' objects.
type persesRequests struct {
	mu   sync.Mutex
	seen []string
}

func (p *persesRequests) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		if strings.Contains(req.URL.Path, "/persesdashboards") || strings.Contains(req.URL.Path, "/persesdatasources") {
			p.mu.Lock()
			p.seen = append(p.seen, req.Method+" "+req.URL.Path)
			p.mu.Unlock()
		}
		return rt.RoundTrip(req)
	})
}

func (p *persesRequests) list() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.seen...)
}

// Without the Perses CRDs, the stock binary's Perses operand on OpenShift
// (stock.PlatformDefaults marks it on only where its API is served) asks
// nothing of the API server about its kinds and degrades nothing:
// ReconcileComplete is upstream's True, Degraded is False, a Normal Event
// names it skipped, no Warning event. Once the CRDs are installed, its objects are made by the
// same operator process (upstream restarts itself to set its Perses
// controller up).
func TestPersesWithoutItsCRDsAsksNothingAndDegradesNothing(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	testenv.EnsureNamespace(t, k, persesNS)
	reg, err := hco.NewRegistry(openShiftPerses{perses.New()})
	if err != nil {
		t.Fatal(err)
	}
	if err := stock.PlatformDefaults(reg, true, nil); err != nil {
		t.Fatal(err)
	}
	if !reg.WhereServed(perses.Name) {
		t.Fatal("stock.PlatformDefaults on OpenShift: perses not on only where served")
	}
	scheme, err := hco.NewScheme(operands.AddToScheme)
	if err != nil {
		t.Fatal(err)
	}
	cfg := rest.CopyConfig(env.Config)
	asked := &persesRequests{}
	cfg.WrapTransport = asked.wrap
	mgr, _, err := manager.New(cfg, reg, hco.Environment{Namespace: persesNS, Version: "1.20.0"},
		manager.Options{Manager: testenv.ManagerOptions(scheme), Metrics: prometheus.NewRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(testenv.RunManager(mgr))

	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: persesNS}}
	testenv.CreateForTest(t, k, hc)
	testenv.Eventually(t, "perses skipped, nothing degraded", func() error {
		if err := k.Get(ctx, client.ObjectKeyFromObject(hc), hc); err != nil {
			return err
		}
		rc := meta.FindStatusCondition(hc.Status.Conditions, hcov1.ConditionReconcileComplete)
		if rc == nil || rc.Status != metav1.ConditionTrue || rc.Message != "Reconcile completed successfully" {
			return fmt.Errorf("ReconcileComplete is %+v, want upstream's True", rc)
		}
		d := meta.FindStatusCondition(hc.Status.Conditions, hcov1.ConditionDegraded)
		if d == nil || d.Status != metav1.ConditionFalse || d.Reason == hcostatus.ReasonOperandAPINotServed || strings.Contains(d.Message, "perses") {
			return fmt.Errorf("Degraded is %+v, want False", d)
		}
		return nil
	})
	if seen := asked.list(); len(seen) > 0 {
		t.Errorf("the operator asked for the Perses objects while their API is not served: %v", seen)
	}
	events := expectSkippedEvent(t, persesNS, "operand perses skipped: perses.dev/v1alpha1 PersesDashboard, perses.dev/v1alpha1 PersesDatasource not served")
	for _, e := range events.Items {
		if e.Type == corev1.EventTypeWarning && e.InvolvedObject.UID == hc.UID {
			t.Errorf("a platform default skipped is no warning: %s %s", e.Reason, e.Message)
		}
	}

	// The Perses operator's CRDs are installed: the objects follow, with
	// no restart.
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := envtest.InstallCRDs(env.Config, envtest.CRDInstallOptions{Paths: []string{filepath.Join(root, "internal/integration/testdata/perses")}}); err != nil {
		t.Fatalf("install the Perses CRDs: %v", err)
	}
	t.Cleanup(func() {
		for _, name := range []string{"persesdashboards.perses.dev", "persesdatasources.perses.dev"} {
			testenv.DeleteAndWait(t, k, &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: name}})
		}
	})
	ds := &unstructured.Unstructured{}
	ds.SetGroupVersionKind(perses.DatasourceKind)
	// The two CRDs may reach discovery one at a time, with no CRD event
	// after the second (its CRD was established before): the operator
	// keeps asking about the group while it is half served.
	testenv.Eventually(t, "the datasource made once the CRDs are installed", func() error {
		return k.Get(ctx, client.ObjectKey{Namespace: persesNS, Name: perses.DatasourceName}, ds)
	})
	if len(asked.list()) == 0 {
		t.Error("no request for the Perses objects counted once they are made: the count above proves nothing")
	}
	// The HyperConverged deleted while the CRDs are there, so that its
	// objects go with it.
	testenv.DeleteAndWait(t, k, hc.DeepCopy())
}
