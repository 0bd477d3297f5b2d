package upstreamupgrade

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/internal/testenv"
	"github.com/hcokit/hcokit/operands"
)

var env *testenv.Env

// The HyperConverged CRD (its conversion served by the environment) and the
// operand CRDs of a whole-stack install on plain Kubernetes, as upstream's
// objects there need them: not SSP's (ssp-operator runs on OpenShift only:
// upstream deploys no SSP there, and hcokit none without its API), nor
// the opt-in HostPathProvisioner's.
func TestMain(m *testing.M) {
	testenv.Main(m, testenv.Options{
		AddToScheme: []func(*runtime.Scheme) error{v1beta1.AddToScheme, operands.AddToScheme},
		CRDDirectoryPaths: []string{"config/crd/bases",
			"config/crd/operands/kubevirt.io_kubevirts.yaml",
			"config/crd/operands/cdi.kubevirt.io_cdis.yaml",
			"config/crd/operands/networkaddonsoperator.network.kubevirt.io_networkaddonsconfigs.yaml",
			"config/crd/operands/migrations.kubevirt.io_migcontrollers.yaml",
			"config/crd/operands/filerestore.kubevirt.io_filerestoreoperators.yaml",
			"config/crd/operands/aaq.kubevirt.io_aaqs.yaml"},
	}, func(e *testenv.Env) { env = e })
}
