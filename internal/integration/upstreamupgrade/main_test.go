package upstreamupgrade

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/internal/integration/upstreamstatus"
	"github.com/hcokit/hcokit/internal/testenv"
	"github.com/hcokit/hcokit/operands"
)

var env *testenv.Env

// The CRDs of the whole-stack install on plain Kubernetes
// (upstreamstatus.KubernetesCRDs), the HyperConverged's conversion served
// by the environment.
func TestMain(m *testing.M) {
	testenv.Main(m, testenv.Options{
		AddToScheme:       []func(*runtime.Scheme) error{v1beta1.AddToScheme, operands.AddToScheme},
		CRDDirectoryPaths: upstreamstatus.KubernetesCRDs,
	}, func(e *testenv.Env) { env = e })
}
