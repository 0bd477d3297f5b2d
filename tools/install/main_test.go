package install

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
	// configRoot is the repository's config/ directory.
	configRoot string
)

func TestMain(m *testing.M) {
	root, err := testenv.RepoRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		os.Exit(1)
	}
	configRoot = filepath.Join(root, "config")
	// Only the component operators' CRDs (and OpenShift's
	// SecurityContextConstraints, ImageStreams, console kinds, the Ingress
	// configuration and ClusterServiceVersions, which the
	// install's admission policy guards): the HyperConverged CRD comes with the manifests under test.
	testenv.Main(m, testenv.Options{
		CRDDirectoryPaths: []string{"config/crd/operands", "internal/integration/testdata/openshift-platform/securitycontextconstraints.crd.yaml",
			"internal/integration/testdata/openshift-platform/imagestreams.crd.yaml",
			"internal/integration/testdata/openshift-platform/consoleplugins.crd.yaml",
			"internal/integration/testdata/openshift-platform/consoleclidownloads.crd.yaml",
			"internal/integration/testdata/openshift-platform/consolequickstarts.crd.yaml",
			"internal/integration/testdata/openshift-platform/consoles.crd.yaml",
			"internal/integration/testdata/openshift-platform/ingresses.crd.yaml",
			"internal/integration/testdata/olm/clusterserviceversions.crd.yaml"},
		AddToScheme: []func(*runtime.Scheme) error{hcov1.AddToScheme},
		AuditPolicy: installtest.AuditPolicy,
	}, func(e *testenv.Env) { env = e })
}
