package webhook

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"go.uber.org/zap/zapcore"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	kvv1 "kubevirt.io/api/core/v1"
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/internal/testenv"
	"github.com/hcokit/hcokit/operands"
	"github.com/hcokit/hcokit/operands/cdi"
	"github.com/hcokit/hcokit/operands/cnao"
	"github.com/hcokit/hcokit/operands/kubevirt"
	"github.com/hcokit/hcokit/operands/ssp"
	"github.com/hcokit/hcokit/webhook"
)

const (
	ns = v1beta1.DefaultNamespace
	// workloadNS holds the tests' VirtualMachines and DataVolumes.
	workloadNS = "workloads"
	// webhookName is the webhook's name in config/webhook, which the API
	// server quotes in every denial.
	webhookName = "validate-hyperconverged.hco.kubevirt.io"
)

var (
	env *testenv.Env
	// k is the tests' client; the API server's warnings land in warnings.
	k        client.Client
	warnings = &warningRecorder{}
	// handler is the webhook's handler, called directly by the benchmark.
	handler *webhook.Handler
	// webhookEnv is what the webhook is given.
	webhookEnv = hco.Environment{Namespace: ns, CommonTemplatesNamespace: hco.DefaultCommonTemplatesNamespace}
)

func TestMain(m *testing.M) {
	root, err := testenv.RepoRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		os.Exit(1)
	}
	testenv.Main(m, testenv.Options{
		AddToScheme: []func(*runtime.Scheme) error{v1beta1.AddToScheme, operands.AddToScheme},
		WebhookInstallOptions: envtest.WebhookInstallOptions{
			Paths: []string{filepath.Join(root, "config", "webhook")},
		},
	}, func(e *testenv.Env) {
		env = e
		if err := setup(); err != nil {
			fmt.Fprintln(os.Stderr, "FAIL: start webhook:", err)
			_ = e.Stop()
			os.Exit(1)
		}
	})
}

func setup() error {
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.Level(zapcore.ErrorLevel)))
	cfg := rest.CopyConfig(env.Config)
	cfg.WarningHandlerWithContext = warnings
	var err error
	if k, err = client.New(cfg, client.Options{Scheme: env.Scheme}); err != nil {
		return err
	}
	ctx := context.Background()
	for _, name := range []string{ns, workloadNS} {
		if err := k.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
			return err
		}
	}
	if err := startWebhook(); err != nil {
		return err
	}
	return startOperator()
}

// stockRegistry is the registry the webhook and the operator of these
// tests share: the default stock operands.
func stockRegistry() (*hco.Registry, error) {
	return hco.NewRegistry(kubevirt.New(), cdi.New(), cnao.New(), ssp.New())
}

// startOperator runs the stock reconciler beside the webhook, as a cluster
// does: it finishes the deletions the webhook lets through.
func startOperator() error {
	reg, err := stockRegistry()
	if err != nil {
		return err
	}
	_, err = env.StartOperator(reg, webhookEnv, testenv.OperatorOptions{})
	return err
}

// startWebhook serves the webhook as `hco-operator webhook` does: a manager
// with no controllers, the handler registered by webhook.Register, TLS from
// envtest's certificate directory.
func startWebhook() error {
	reg, err := stockRegistry()
	if err != nil {
		return err
	}
	opts := webhook.Options{Namespace: ns, Registry: reg, Environment: webhookEnv}
	if err := env.StartWebhook(opts); err != nil {
		return err
	}
	handler = webhook.NewHandler(env.Client, opts)
	return env.WaitWebhookServer()
}

// warningRecorder keeps the API server's warnings since the last take.
type warningRecorder struct {
	mu   sync.Mutex
	msgs []string
}

func (w *warningRecorder) HandleWarningHeaderWithContext(_ context.Context, _ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.msgs = append(w.msgs, text)
}

// take returns the warnings recorded since the last take and forgets them.
func (w *warningRecorder) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.msgs
	w.msgs = nil
	return out
}

// denial is the error text the API server returns for a webhook denial.
func denial(msg string) string {
	return fmt.Sprintf("admission webhook %q denied the request: %s", webhookName, msg)
}

func newHC(mutate func(*v1beta1.HyperConverged)) *v1beta1.HyperConverged {
	hc := &v1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: v1beta1.HyperConvergedName, Namespace: ns}}
	if mutate != nil {
		mutate(hc)
	}
	return hc
}

// createHC creates the HyperConverged and deletes it when the test ends
// (after the test's workloads are gone: register workloads after this).
func createHC(t *testing.T, mutate func(*v1beta1.HyperConverged)) *v1beta1.HyperConverged {
	t.Helper()
	hc := newHC(mutate)
	testenv.CreateForTest(t, k, hc)
	return hc
}

// deleteHC deletes the HyperConverged and waits until the operator has
// finalized it.
func deleteHC(t *testing.T, hc *v1beta1.HyperConverged) {
	t.Helper()
	testenv.DeleteAndWait(t, k, hc.DeepCopy())
}

// updateHC applies mutate to the current HyperConverged and updates it,
// again on a conflict (the operator writes the status meanwhile), and
// returns the update's error otherwise (a webhook denial, say).
func updateHC(t *testing.T, mutate func(*v1beta1.HyperConverged)) error {
	t.Helper()
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		hc := &v1beta1.HyperConverged{}
		if err := k.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: v1beta1.HyperConvergedName}, hc); err != nil {
			t.Fatalf("get HyperConverged: %v", err)
		}
		mutate(hc)
		return k.Update(context.Background(), hc)
	})
}

func newVM(namespace, name string) *kvv1.VirtualMachine {
	return &kvv1.VirtualMachine{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: kvv1.VirtualMachineSpec{
			RunStrategy: ptr.To(kvv1.RunStrategyHalted),
			Template:    &kvv1.VirtualMachineInstanceTemplateSpec{},
		},
	}
}

func newDV(namespace, name string) *cdiv1beta1.DataVolume {
	return &cdiv1beta1.DataVolume{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: cdiv1beta1.DataVolumeSpec{
			Source:  &cdiv1beta1.DataVolumeSource{Blank: &cdiv1beta1.DataVolumeBlankImage{}},
			Storage: &cdiv1beta1.StorageSpec{},
		},
	}
}

// createWorkload creates a VirtualMachine or DataVolume and deletes it when
// the test ends.
func createWorkload(t *testing.T, obj client.Object) {
	t.Helper()
	if err := k.Create(context.Background(), obj); err != nil {
		t.Fatalf("create %T %s: %v", obj, client.ObjectKeyFromObject(obj), err)
	}
	t.Cleanup(func() { deleteWorkload(t, obj) })
}

// deleteWorkload deletes obj and waits until it is gone (neither kind has
// finalizers here, so that is immediate).
func deleteWorkload(t *testing.T, obj client.Object) {
	t.Helper()
	if err := k.Delete(context.Background(), obj); err != nil && !apierrors.IsNotFound(err) {
		t.Errorf("delete %T %s: %v", obj, client.ObjectKeyFromObject(obj), err)
	}
}
