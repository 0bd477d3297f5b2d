package diff

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"go.uber.org/zap/zapcore"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/internal/testenv"
	"github.com/hcokit/hcokit/nodefacts"
	"github.com/hcokit/hcokit/operands"
	"github.com/hcokit/hcokit/operands/aie"
	"github.com/hcokit/hcokit/operands/clidownload"
	"github.com/hcokit/hcokit/operands/hpp"
	"github.com/hcokit/hcokit/operands/netresinjector"
	"github.com/hcokit/hcokit/operands/observability"
	"github.com/hcokit/hcokit/operands/stock"
	"github.com/hcokit/hcokit/webhook"
)

const (
	ns = hcov1.DefaultNamespace
	// reviewersNS holds the ServiceAccount diff runs as.
	reviewersNS = "diff-reviewers"
	// reviewer is named as config/diff's account, so that its admission
	// policy (dry runs only) applies to it.
	reviewer = "hco-diff"
	// reviewerUser is its user name in the audit log.
	reviewerUser = "system:serviceaccount:" + reviewersNS + ":" + reviewer
)

// auditPolicy records every request of the reviewers' ServiceAccounts, with
// its URI (dryRun=All), and nothing else.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: Metadata
  userGroups: ["system:serviceaccounts:` + reviewersNS + `"]
- level: None
`

var (
	env *testenv.Env
	k   client.Client
	// binary builds cmd/hco-operator once for the package.
	binary = sync.OnceValues(buildOperator)
	// kubeconfig reaches the API server as the reviewer, bound to the
	// shipped diff roles.
	kubeconfig string
	// operatorEnv is the environment of the operator the tests run, with
	// the images of the operands that deploy workloads (so that their
	// objects are previewed too); the diff runs get the same (imageVars)
	// unless a test says otherwise.
	operatorEnv = hco.Environment{Namespace: ns, CommonTemplatesNamespace: hco.DefaultCommonTemplatesNamespace,
		Images: map[string]string{netresinjector.ImageKey: "example.com/injector:1", aie.ImageKey: "example.com/aie:1", clidownload.ImageKey: "example.com/cli:1"}}
	// imageVars give a diff run the operator's images.
	imageVars = []string{
		"NETWORK_RESOURCES_INJECTOR_IMAGE=example.com/injector:1", "AIE_WEBHOOK_IMAGE=example.com/aie:1", "CLI_DOWNLOAD_IMAGE=example.com/cli:1",
	}
)

func TestMain(m *testing.M) {
	root, err := testenv.RepoRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		os.Exit(1)
	}
	testenv.Main(m, testenv.Options{
		AddToScheme: []func(*runtime.Scheme) error{v1beta1.AddToScheme, operands.AddToScheme},
		// OpenShift's APIServer configuration too: diff reads the cluster's
		// TLS profile where it is served, as the operator does.
		CRDDirectoryPaths: []string{"config/crd/bases", "config/crd/operands", "internal/integration/testdata/openshift"},
		WebhookInstallOptions: envtest.WebhookInstallOptions{
			Paths: []string{filepath.Join(root, "config", "webhook")},
		},
		AuditPolicy: auditPolicy,
	}, func(e *testenv.Env) {
		env, k = e, e.Client
		if err := setup(root); err != nil {
			fmt.Fprintln(os.Stderr, "FAIL: setup:", err)
			_ = e.Stop()
			os.Exit(1)
		}
	})
}

func setup(root string) error {
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.Level(zapcore.ErrorLevel)))
	ctx := context.Background()
	for _, name := range []string{ns, reviewersNS} {
		if err := k.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
			return err
		}
	}
	// Three control-plane nodes and two workers, no architecture label: the
	// node facts give the objects render gives, which assumes a highly
	// available cluster of no known architecture (TestRenderDiffIsDiff
	// checks it).
	for i, role := range []string{nodefacts.LabelNodeRoleControlPlane, nodefacts.LabelNodeRoleControlPlane, nodefacts.LabelNodeRoleControlPlane, nodefacts.LabelNodeRoleWorker, nodefacts.LabelNodeRoleWorker} {
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-" + strconv.Itoa(i), Labels: map[string]string{role: ""}}}
		if err := k.Create(ctx, node); err != nil {
			return err
		}
	}
	if err := startWebhook(); err != nil {
		return fmt.Errorf("start the webhook: %w", err)
	}
	if err := startOperator(); err != nil {
		return fmt.Errorf("start the operator: %w", err)
	}
	return setupReviewer(root)
}

// stockRegistry is the stock binary's default operands, and hpp (enabled
// by config/components/hpp). The observability operand is left out: without
// its image the stock binary leaves it out too.
func stockRegistry() (*hco.Registry, error) {
	var names []string
	for _, n := range append(stock.Default(), hpp.Name) {
		if n != observability.Name {
			names = append(names, n)
		}
	}
	return stock.Registry(names...)
}

// diffOperands is the --operands of the diff runs: the stock default
// (whose observability operand builds nothing without its image).
var diffOperands = stock.DefaultList()

// startOperator runs the stock reconciler, as the installed operator does.
func startOperator() error {
	reg, err := stockRegistry()
	if err != nil {
		return err
	}
	_, err = env.StartOperator(reg, operatorEnv, testenv.OperatorOptions{})
	return err
}

// startWebhook serves the HyperConverged webhooks and conversion as
// `hco-operator webhook` does.
func startWebhook() error {
	reg, err := stockRegistry()
	if err != nil {
		return err
	}
	if err := env.StartWebhook(webhook.Options{Namespace: ns, Registry: reg, Environment: operatorEnv}); err != nil {
		return err
	}
	return env.WaitWebhookServer()
}

// manifests reads the objects of a YAML file, unstructured.
func manifests(path string) ([]client.Object, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []client.Object
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(raw), 4096)
	for {
		u := &unstructured.Unstructured{}
		if err := dec.Decode(&u.Object); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, u)
	}
	return out, nil
}

// diffRoles reads config/rbac/diff_role.yaml.
func diffRoles(root string) ([]*rbacv1.ClusterRole, error) {
	raw, err := os.ReadFile(filepath.Join(root, "config", "rbac", "diff_role.yaml"))
	if err != nil {
		return nil, err
	}
	var out []*rbacv1.ClusterRole
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(raw), 4096)
	for {
		role := &rbacv1.ClusterRole{}
		if err := dec.Decode(role); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("config/rbac/diff_role.yaml: %w", err)
		}
		out = append(out, role)
	}
	return out, nil
}

// setupReviewer creates the reviewer's ServiceAccount, applies the shipped
// diff roles, binds them as config/diff does (hco-diff cluster-wide,
// hco-diff-namespace in the operator namespace), applies config/diff's
// admission policy, and writes a kubeconfig with a token of the
// ServiceAccount.
func setupReviewer(root string) error {
	ctx := context.Background()
	roles, err := diffRoles(root)
	if err != nil {
		return err
	}
	if len(roles) != 2 || roles[0].Name != "hco-diff" || roles[1].Name != "hco-diff-namespace" {
		return fmt.Errorf("config/rbac/diff_role.yaml: want the ClusterRoles hco-diff and hco-diff-namespace, got %d", len(roles))
	}
	subjects := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: reviewer, Namespace: reviewersNS}}
	objs := []client.Object{
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: reviewer, Namespace: reviewersNS}},
		roles[0], roles[1],
		&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "hco-diff-reviewer"}, Subjects: subjects,
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "hco-diff"}},
		&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "hco-diff-reviewer", Namespace: ns}, Subjects: subjects,
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "hco-diff-namespace"}},
	}
	policy, err := manifests(filepath.Join(root, "config", "diff", "dry_run_only.yaml"))
	if err != nil {
		return err
	}
	for _, obj := range append(objs, policy...) {
		if err := k.Create(ctx, obj); err != nil {
			return fmt.Errorf("create %T %s: %w", obj, obj.GetName(), err)
		}
	}
	tr := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](24 * 3600)}}
	if err := k.SubResource("token").Create(ctx, objs[0], tr); err != nil {
		return fmt.Errorf("TokenRequest for the reviewer: %w", err)
	}
	dir, err := os.MkdirTemp("", "hcokit-diff-test-")
	if err != nil {
		return err
	}
	env.AtStop(func() { _ = os.RemoveAll(dir) })
	kubeconfig = filepath.Join(dir, "reviewer.kubeconfig")
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["test"] = &clientcmdapi.Cluster{Server: env.Config.Host, CertificateAuthorityData: env.Config.CAData}
	cfg.AuthInfos["reviewer"] = &clientcmdapi.AuthInfo{Token: tr.Status.Token}
	cfg.Contexts["reviewer"] = &clientcmdapi.Context{Cluster: "test", AuthInfo: "reviewer"}
	cfg.CurrentContext = "reviewer"
	return clientcmd.WriteToFile(*cfg, kubeconfig)
}

// buildOperator builds the stock binary into a temporary directory.
func buildOperator() (string, error) {
	root, err := testenv.RepoRoot()
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "hcokit-diff-bin-")
	if err != nil {
		return "", err
	}
	env.AtStop(func() { _ = os.RemoveAll(dir) })
	out := filepath.Join(dir, "hco-operator")
	cmd := exec.Command("go", "build", "-o", out, "./cmd/hco-operator")
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/hco-operator: %w\n%s", err, b)
	}
	return out, nil
}

// result is what one run of the binary printed and its exit status.
type result struct {
	stdout, stderr string
	code           int
}

// runBinary runs the stock binary with args and only the given environment
// variables (and PATH), as the reviewer unless args say otherwise.
func runBinary(t *testing.T, vars []string, args ...string) result {
	t.Helper()
	bin, err := binary()
	if err != nil {
		t.Fatal(err)
	}
	return run(t, exec.Command(bin, args...), vars)
}

// run runs cmd with only vars and PATH in its environment.
func run(t *testing.T, cmd *exec.Cmd, vars []string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, vars...)
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
	case err != nil:
		t.Fatalf("run %v: %v", cmd.Args, err)
	}
	return r
}

// diff runs `hco-operator diff` as the reviewer with the operator's
// environment (imageVars; no operator Deployment unless a test makes one),
// vars and args.
func diff(t *testing.T, vars []string, args ...string) result {
	t.Helper()
	return runBinary(t, append(slices.Clone(imageVars), vars...), append([]string{"diff", "--kubeconfig", kubeconfig, "--operands", diffOperands}, args...)...)
}

// writeFile writes content into a file of the test's and returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// applyHC creates or updates the HyperConverged from a manifest (as an
// admin would), waits until the operator has reconciled it and its operand
// objects are in sync, and deletes it when the test ends, waiting until the
// operator has finalized it.
func applyHC(t *testing.T, manifest string) {
	t.Helper()
	ctx := context.Background()
	hc := &v1beta1.HyperConverged{}
	obj := decodeHC(t, manifest)
	key := client.ObjectKey{Namespace: ns, Name: hcov1.HyperConvergedName}
	err := k.Get(ctx, key, hc)
	switch {
	case apierrors.IsNotFound(err):
		if err := k.Create(ctx, obj); err != nil {
			t.Fatalf("create HyperConverged: %v", err)
		}
		t.Cleanup(func() { deleteHC(t) })
	case err != nil:
		t.Fatal(err)
	default:
		obj.SetResourceVersion(hc.ResourceVersion)
		obj.SetFinalizers(hc.Finalizers)
		if err := k.Update(ctx, obj); err != nil {
			t.Fatalf("update HyperConverged: %v", err)
		}
	}
	waitReconciled(t)
}

// waitReconciled waits until the operator has reconciled the current
// generation of the HyperConverged completely.
func waitReconciled(t *testing.T) {
	t.Helper()
	testenv.Eventually(t, "HyperConverged reconciled", func() error {
		hc := &hcov1.HyperConverged{}
		if err := k.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: hcov1.HyperConvergedName}, hc); err != nil {
			return err
		}
		c := meta.FindStatusCondition(hc.Status.Conditions, hcov1.ConditionReconcileComplete)
		if c == nil || c.Status != metav1.ConditionTrue || c.ObservedGeneration != hc.Generation {
			return fmt.Errorf("ReconcileComplete %+v at generation %d", c, hc.Generation)
		}
		return nil
	})
}

// deleteHC deletes the HyperConverged and waits until it is gone.
func deleteHC(t *testing.T) {
	t.Helper()
	testenv.DeleteAndWait(t, k, &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: hcov1.HyperConvergedName}})
}

// decodeHC reads a HyperConverged manifest of either version.
func decodeHC(t *testing.T, manifest string) client.Object {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := utilyaml.NewYAMLOrJSONDecoder(strings.NewReader(manifest), 4096).Decode(&u.Object); err != nil {
		t.Fatalf("manifest: %v", err)
	}
	if u.GetNamespace() == "" {
		u.SetNamespace(ns)
	}
	return u
}
