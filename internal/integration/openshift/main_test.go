package openshift

import (
	"context"
	"fmt"
	"os"
	"testing"

	"go.uber.org/zap/zapcore"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/extensions/olm"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/internal/testenv"
	"github.com/hcokit/hcokit/operands"
	"github.com/hcokit/hcokit/operands/clidownload"
	"github.com/hcokit/hcokit/operands/cnao"
	"github.com/hcokit/hcokit/operands/consoleplugin"
	"github.com/hcokit/hcokit/operands/perses"
	"github.com/hcokit/hcokit/operands/virtiowin"
	"github.com/hcokit/hcokit/operands/waspagent"
)

const ns = hcov1.DefaultNamespace

// operatorEnv is the operator's environment: the virtctl download's and
// the console plugin's images, so that their modules deploy, and the
// OperatorCondition OLM would have made for it.
var operatorEnv = hco.Environment{Namespace: ns, Version: "1.20.0", Images: map[string]string{
	clidownload.ImageKey:         "quay.io/kubevirt/virt-artifacts-server:v1.20.0",
	consoleplugin.PluginImageKey: "quay.io/kubevirt-ui/kubevirt-plugin:v1.20.0",
	consoleplugin.ProxyImageKey:  "quay.io/kubevirt-ui/kubevirt-apiserver-proxy:v1.20.0",
	virtiowin.ImageKey:           "quay.io/kubevirt/virtio-container-disk:v1.20.0",
	waspagent.ImageKey:           "quay.io/openshift-virtualization/wasp-agent:v1.20.0",
}, OperatorConditionName: operatorCondition}

// operatorCondition is the OperatorCondition's name, and its CSV's: OLM
// names the OperatorCondition after the CSV.
const operatorCondition = "hcokit-operator.v1.20.0"

var (
	env *testenv.Env
	k   client.Client
)

func TestMain(m *testing.M) {
	testenv.Main(m, testenv.Options{
		AddToScheme: []func(*runtime.Scheme) error{v1beta1.AddToScheme, operands.AddToScheme},
		CRDDirectoryPaths: []string{"config/crd/bases", "internal/integration/testdata/openshift", "internal/integration/testdata/openshift-platform",
			"internal/integration/testdata/olm", "internal/integration/testdata/perses",
			"config/crd/operands/networkaddonsoperator.network.kubevirt.io_networkaddonsconfigs.yaml"},
	}, func(e *testenv.Env) {
		env, k = e, e.Client
		if err := setup(); err != nil {
			fmt.Fprintln(os.Stderr, "FAIL: setup:", err)
			_ = e.Stop()
			os.Exit(1)
		}
	})
}

func setup() error {
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.Level(zapcore.ErrorLevel)))
	if err := k.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		return err
	}
	// As OLM does before it starts the operator.
	oc := &unstructured.Unstructured{}
	oc.SetGroupVersionKind(olm.OperatorConditionKind)
	oc.SetNamespace(ns)
	oc.SetName(operatorCondition)
	if err := k.Create(context.Background(), oc); err != nil {
		return err
	}
	csv := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"displayName": "hcokit", "install": map[string]any{"strategy": "deployment"}}}}
	csv.SetGroupVersionKind(olm.CSVKind)
	csv.SetNamespace(ns)
	csv.SetName(operatorCondition)
	if err := k.Create(context.Background(), csv); err != nil {
		return err
	}
	console, err := consoleOperands()
	if err != nil {
		return err
	}
	streams, err := imageStreamOperand()
	if err != nil {
		return err
	}
	reg, err := hco.NewRegistry(append([]hco.Operand{platformProbe{}, clidownload.New(), consoleplugin.New(), cnao.New(), virtiowin.New(), waspagent.New(), perses.New()}, append(console, streams)...)...)
	if err != nil {
		return err
	}
	_, err = env.StartOperator(reg, operatorEnv, testenv.OperatorOptions{})
	return err
}
