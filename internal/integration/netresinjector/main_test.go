package netresinjector

import (
	"context"
	"fmt"
	"os"
	"testing"

	"go.uber.org/zap/zapcore"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/internal/testenv"
	"github.com/hcokit/hcokit/operands"
	"github.com/hcokit/hcokit/operands/aie"
	"github.com/hcokit/hcokit/operands/kubevirt"
	"github.com/hcokit/hcokit/operands/netresinjector"
)

const ns = v1beta1.DefaultNamespace

// image is upstream's (deploy/operator.yaml at 03da3cf).
const image = "ghcr.io/k8snetworkplumbingwg/network-resources-injector@sha256:737225a33c418899667707a6e79668bb1a64c6b993bf7486074c5b8085d4ab7d"

// aieImage is upstream's AIE webhook image (deploy/operator.yaml at 03da3cf).
const aieImage = "quay.io/kubevirt/kubevirt-aie-webhook@sha256:d45bf47b999a0b25d22db0f8355b0f063a5aa33ddf4e8ff14043b45001a0169d"

var (
	env *testenv.Env
	k   client.Client

	operatorEnv = hco.Environment{Namespace: ns, Version: "1.0.0", Images: map[string]string{netresinjector.ImageKey: image, aie.ImageKey: aieImage}}
)

func TestMain(m *testing.M) {
	testenv.Main(m, testenv.Options{
		AddToScheme:       []func(*runtime.Scheme) error{v1beta1.AddToScheme, operands.AddToScheme},
		CRDDirectoryPaths: []string{"config/crd/bases", "config/crd/operands"},
	}, func(e *testenv.Env) {
		env, k = e, e.Client
		if err := startOperator(); err != nil {
			fmt.Fprintln(os.Stderr, "FAIL: start operator:", err)
			os.Exit(1)
		}
	})
}

// startOperator runs the netresinjector and aie operands (the webhooks the
// operator deploys), and the KubeVirt operand whose gate follows the
// injector, in a manager for the whole package.
func startOperator() error {
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.Level(zapcore.ErrorLevel)))
	if err := k.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		return err
	}
	reg, err := hco.NewRegistry(kubevirt.New(), aie.New(), netresinjector.New())
	if err != nil {
		return err
	}
	_, err = env.StartOperator(reg, operatorEnv, testenv.OperatorOptions{})
	return err
}
