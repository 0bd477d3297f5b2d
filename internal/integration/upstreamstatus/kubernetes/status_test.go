// Package kubernetes compares, on plain Kubernetes, what hcokit's operator
// writes into the HyperConverged with what upstream's writes for the same
// cluster state (package upstreamstatus).
package kubernetes

import (
	"fmt"
	"os"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/internal/integration/upstreamstatus"
	"github.com/hcokit/hcokit/internal/testenv"
	"github.com/hcokit/hcokit/operands"
)

var env *testenv.Env

// The operand CRDs of the whole-stack install on plain Kubernetes: not
// SSP's (ssp-operator runs on OpenShift only), nor the opt-in
// HostPathProvisioner's. The operator runs as the stock binary does there,
// with upstream's operator environment.
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
	}, func(e *testenv.Env) {
		env = e
		if err := upstreamstatus.StartOperator(e, false); err != nil {
			fmt.Fprintln(os.Stderr, "FAIL: start operator:", err)
			_ = e.Stop()
			os.Exit(1)
		}
	})
}

// TestStatusAsUpstreams: for each captured state, the HyperConverged's
// conditions, systemHealthStatus, versions, node facts, labels and
// finalizers are upstream's operator's at 03da3cf on plain Kubernetes.
func TestStatusAsUpstreams(t *testing.T) {
	env.Require(t)
	upstreamstatus.Run(t, env.Client, "kubernetes")
}
