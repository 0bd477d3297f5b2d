package ownership

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zapcore"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/extensions"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hco/manager"
	"github.com/hcokit/hcokit/internal/testenv"
	"github.com/hcokit/hcokit/operands"
	"github.com/hcokit/hcokit/operands/aie"
	"github.com/hcokit/hcokit/operands/clidownload"
	"github.com/hcokit/hcokit/operands/netresinjector"
	"github.com/hcokit/hcokit/operands/stock"
)

const (
	// upstreamNS is where upstream HCO ran (its HyperConverged and
	// namespaced objects), and where an admin switches to hcokit in place.
	upstreamNS = hcov1.DefaultNamespace
	// evalNS is an evaluation install of hcokit beside it.
	evalNS = "hcokit-eval"

	// The operators' user agents, which the audit log records.
	switchedAgent = "hcokit-switched"
	evalAgent     = "hcokit-eval"
)

// auditPolicy records every request but reads.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: None
  verbs: ["get", "list", "watch"]
- level: Metadata
`

var (
	env *testenv.Env
	k   client.Client
)

func TestMain(m *testing.M) {
	testenv.Main(m, testenv.Options{
		AddToScheme:       []func(*runtime.Scheme) error{v1beta1.AddToScheme, operands.AddToScheme},
		CRDDirectoryPaths: []string{"config/crd/bases", "config/crd/operands", "internal/integration/ownership/testdata/cert-manager"},
		AuditPolicy:       auditPolicy,
	}, func(e *testenv.Env) {
		env, k = e, e.Client
		ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.Level(zapcore.ErrorLevel)))
		for _, n := range []string{upstreamNS, evalNS} {
			if err := k.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: n}}); err != nil {
				fmt.Fprintln(os.Stderr, "FAIL: create namespace:", err)
				os.Exit(1)
			}
		}
	})
}

// environment is upstream's operator environment (deploy/operator.yaml at
// 03da3cf: the version, SMBIOS, the machine types, the injector's and AIE
// webhook's images) in
// namespace, plus a CLI download image, so that every stock operand has
// objects.
func environment(namespace string) hco.Environment {
	return hco.Environment{Namespace: namespace, Version: "1.20.0", CommonTemplatesNamespace: hco.DefaultCommonTemplatesNamespace,
		SMBIOS:       "Family: KubeVirt\nManufacturer: KubeVirt\nProduct: None",
		MachineTypes: map[string]string{"amd64": "q35", "arm64": "virt", "s390x": "s390-ccw-virtio"},
		Images: map[string]string{
			netresinjector.ImageKey: "ghcr.io/k8snetworkplumbingwg/network-resources-injector@sha256:737225a33c418899667707a6e79668bb1a64c6b993bf7486074c5b8085d4ab7d",
			aie.ImageKey:            "quay.io/kubevirt/kubevirt-aie-webhook@sha256:d45bf47b999a0b25d22db0f8355b0f063a5aa33ddf4e8ff14043b45001a0169d",
			clidownload.ImageKey:    "example.com/virtctl:1",
		}}
}

// startOperator runs the stock operator for namespace, its requests sent
// with agent as user agent, until the test ends.
func startOperator(t *testing.T, namespace, agent string) {
	t.Helper()
	reg, err := stock.Registry()
	require.NoError(t, err)
	scheme, err := hco.NewScheme(operands.AddToScheme)
	require.NoError(t, err)
	cfg := rest.CopyConfig(env.Config)
	cfg.UserAgent = agent
	mgr, _, err := manager.New(cfg, reg, environment(namespace), manager.Options{Manager: testenv.ManagerOptions(scheme), Metrics: prometheus.NewRegistry(), Extensions: extensions.Stock()})
	require.NoError(t, err)
	t.Cleanup(testenv.RunManager(mgr))
}

// auditOffset is where the audit log ends now.
func auditOffset(t *testing.T) int64 {
	t.Helper()
	off, err := env.AuditOffset()
	require.NoError(t, err)
	return off
}

// writes returns the writes (every request the policy records) after offset.
func writes(t *testing.T, offset int64) []testenv.AuditEvent {
	t.Helper()
	evs, err := env.AuditEvents(offset)
	require.NoError(t, err)
	return evs
}

// deleteHC deletes the HyperConverged of namespace and waits until it is
// gone (its operator's uninstall ran).
func deleteHC(t *testing.T, namespace string) {
	t.Helper()
	testenv.DeleteAndWait(t, k, &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: namespace}})
}
