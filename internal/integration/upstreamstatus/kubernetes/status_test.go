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

// The CRDs of the whole-stack install on plain Kubernetes
// (upstreamstatus.KubernetesCRDs). The operator runs as the stock binary
// does there, with upstream's operator environment.
func TestMain(m *testing.M) {
	testenv.Main(m, testenv.Options{
		AddToScheme:       []func(*runtime.Scheme) error{v1beta1.AddToScheme, operands.AddToScheme},
		CRDDirectoryPaths: upstreamstatus.KubernetesCRDs,
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
