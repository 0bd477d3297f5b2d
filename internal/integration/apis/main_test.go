package apis

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"sync/atomic"
	"testing"

	"go.uber.org/zap/zapcore"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/internal/testenv"
	"github.com/hcokit/hcokit/operands"
	"github.com/hcokit/hcokit/operands/cdi"
	"github.com/hcokit/hcokit/operands/cnao"
	"github.com/hcokit/hcokit/operands/kubevirt"
	"github.com/hcokit/hcokit/operands/ssp"
)

const ns = v1beta1.DefaultNamespace

// sspCRD is the operand CRD the cluster lacks at start.
const sspCRD = "config/crd/operands/ssp.kubevirt.io_ssps.yaml"

var (
	env *testenv.Env
	k   client.Client
	// requests counts the operator's requests to the API server.
	requests atomic.Int64
)

func TestMain(m *testing.M) {
	testenv.Main(m, testenv.Options{
		AddToScheme: []func(*runtime.Scheme) error{v1beta1.AddToScheme, operands.AddToScheme},
		// Every operand CRD of the operator's operands but the SSP's: a
		// plain Kubernetes cluster without the SSP operator.
		CRDDirectoryPaths: []string{"config/crd/bases",
			"config/crd/operands/kubevirt.io_kubevirts.yaml",
			"config/crd/operands/cdi.kubevirt.io_cdis.yaml",
			"config/crd/operands/networkaddonsoperator.network.kubevirt.io_networkaddonsconfigs.yaml"},
	}, func(e *testenv.Env) {
		env, k = e, e.Client
		if err := startOperator(); err != nil {
			fmt.Fprintln(os.Stderr, "FAIL: start operator:", err)
			os.Exit(1)
		}
	})
}

// operatorRegistry is the package operator's registry.
var operatorRegistry *hco.Registry

// startOperator runs the kubevirt, cdi, cnao and ssp operands in a manager
// for the whole package, with a transport that counts its requests.
func startOperator() error {
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.Level(zapcore.ErrorLevel)))
	if err := k.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		return err
	}
	reg, err := hco.NewRegistry(kubevirt.New(), cdi.New(), cnao.New(), ssp.New())
	if err != nil {
		return err
	}
	operatorRegistry = reg
	cfg := rest.CopyConfig(env.Config)
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
			requests.Add(1)
			return rt.RoundTrip(req)
		})
	}
	_, err = env.StartOperator(reg, hco.Environment{Namespace: ns}, testenv.OperatorOptions{Config: cfg})
	return err
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
