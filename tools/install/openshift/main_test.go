package openshift

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/internal/testenv"
	"github.com/hcokit/hcokit/tools/install/internal/installtest"
)

var (
	env *testenv.Env
	// root is the repository's root; config/ is under it.
	root string
)

func TestMain(m *testing.M) {
	var err error
	if root, err = testenv.RepoRoot(); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		os.Exit(1)
	}
	// The component operators' CRDs and OpenShift's, as the repository has
	// them for its OpenShift tests; the HyperConverged CRD comes with the
	// manifests under test. No monitoring.coreos.com CRD: the platform's
	// monitoring is not played here (config/openshift's PrometheusRule is
	// left out, TestOpenShiftInstall says so).
	testenv.Main(m, testenv.Options{
		CRDDirectoryPaths: []string{"config/crd/operands",
			"internal/integration/testdata/openshift", "internal/integration/testdata/openshift-platform",
			"internal/integration/testdata/perses", "internal/integration/testdata/descheduler"},
		AddToScheme: []func(*runtime.Scheme) error{hcov1.AddToScheme},
		AuditPolicy: installtest.AuditPolicy,
	}, func(e *testenv.Env) { env = e })
}

// configRoot is the repository's config/ directory.
func configRoot() string { return filepath.Join(root, "config") }
