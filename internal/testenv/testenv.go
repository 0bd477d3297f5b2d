package testenv

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// ErrBinariesMissing is returned (wrapped) by Start when kube-apiserver or
// etcd is not in the binary directory.
var ErrBinariesMissing = errors.New("control plane binaries missing: run `make controlplane` (hack/build-controlplane.sh)")

// Options configures a test control plane. The zero value is ready to use.
type Options struct {
	// AddToScheme adds the caller's types to the scheme of Env.Client, on top
	// of the client-go and apiextensions.k8s.io/v1 types that are always there.
	AddToScheme []func(*runtime.Scheme) error

	// CRDDirectoryPaths are installed before Start returns. Nil means
	// config/crd/bases and config/crd/operands under the repository root.
	// Relative paths are relative to the repository root. A path that does
	// not exist is an error.
	CRDDirectoryPaths []string

	// WebhookInstallOptions is passed to envtest unchanged, for tests that
	// serve admission webhooks; Env.Environment.WebhookInstallOptions holds
	// the resulting host, port and certificate directory.
	WebhookInstallOptions envtest.WebhookInstallOptions

	// BinaryAssetsDirectory holds kube-apiserver and etcd. Empty means
	// $KUBEBUILDER_ASSETS when set, else bin/k8s under the repository root.
	BinaryAssetsDirectory string

	// AttachControlPlaneOutput copies the apiserver and etcd output to this
	// process's stdout and stderr, for debugging.
	AttachControlPlaneOutput bool

	// StartTimeout bounds the start of each component. Zero means 60s, which
	// leaves room for a machine busy compiling.
	StartTimeout time.Duration
}

// Env is a running control plane.
type Env struct {
	// Config reaches the apiserver as a system:masters user.
	Config *rest.Config
	// Client uses Scheme.
	Client client.Client
	// Scheme holds client-go, apiextensions.k8s.io/v1 and Options.AddToScheme types.
	Scheme *runtime.Scheme
	// Environment is the underlying envtest environment.
	Environment *envtest.Environment

	stopHooks []func()
}

// AtStop registers f to run when Stop is called, before the control plane
// stops: stop managers and webhooks there, so the apiserver is not kept
// waiting on their watches. Hooks run in reverse order of registration.
func (e *Env) AtStop(f func()) {
	e.stopHooks = append(e.stopHooks, f)
}

// Start starts etcd and kube-apiserver, installs the CRDs and webhooks, and
// returns the running Env. The caller must call Stop. When a binary is
// missing the error wraps ErrBinariesMissing and nothing was started.
func Start(opts Options) (*Env, error) {
	scheme := runtime.NewScheme()
	adders := append([]func(*runtime.Scheme) error{clientgoscheme.AddToScheme, apiextensionsv1.AddToScheme}, opts.AddToScheme...)
	for _, add := range adders {
		if err := add(scheme); err != nil {
			return nil, fmt.Errorf("building test scheme: %w", err)
		}
	}

	binDir := opts.BinaryAssetsDirectory
	crdPaths := opts.CRDDirectoryPaths
	if binDir == "" {
		binDir = os.Getenv("KUBEBUILDER_ASSETS")
	}
	if binDir == "" || crdPaths == nil || !allAbs(crdPaths) {
		root, err := RepoRoot()
		if err != nil {
			return nil, err
		}
		if binDir == "" {
			binDir = filepath.Join(root, "bin", "k8s")
		}
		if crdPaths == nil {
			crdPaths = []string{"config/crd/bases", "config/crd/operands"}
		}
		crdPaths = absUnder(root, crdPaths)
	}
	apiserverPath := filepath.Join(binDir, "kube-apiserver")
	etcdPath := filepath.Join(binDir, "etcd")
	for _, p := range []string{apiserverPath, etcdPath} {
		if fi, err := os.Stat(p); err != nil || fi.IsDir() {
			return nil, fmt.Errorf("%s not found: %w", p, ErrBinariesMissing)
		}
	}

	timeout := opts.StartTimeout
	if timeout == 0 {
		timeout = 60 * time.Second
	}
	te := &envtest.Environment{
		Scheme:                   scheme,
		CRDDirectoryPaths:        crdPaths,
		ErrorIfCRDPathMissing:    true,
		WebhookInstallOptions:    opts.WebhookInstallOptions,
		BinaryAssetsDirectory:    binDir,
		AttachControlPlaneOutput: opts.AttachControlPlaneOutput,
		ControlPlaneStartTimeout: timeout,
		ControlPlaneStopTimeout:  30 * time.Second,
	}
	// Explicit paths, so TEST_ASSET_* and KUBEBUILDER_ASSETS cannot point
	// envtest somewhere other than the directory checked above.
	te.ControlPlane.GetAPIServer().Path = apiserverPath
	te.ControlPlane.Etcd = &envtest.Etcd{Path: etcdPath}

	cfg, err := te.Start()
	if err != nil {
		_ = te.Stop()
		return nil, fmt.Errorf("starting test control plane from %s: %w", binDir, err)
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		_ = te.Stop()
		return nil, fmt.Errorf("building test client: %w", err)
	}
	return &Env{Config: cfg, Client: c, Scheme: scheme, Environment: te}, nil
}

// Stop stops the control plane and removes its temporary files.
func (e *Env) Stop() error {
	if e == nil || e.Environment == nil {
		return nil
	}
	for i := len(e.stopHooks) - 1; i >= 0; i-- {
		e.stopHooks[i]()
	}
	e.stopHooks = nil
	if err := e.Environment.Stop(); err != nil {
		return fmt.Errorf("stopping test control plane: %w", err)
	}
	return nil
}

// Require skips t when e is nil, which is what a test sees when Main found
// no binaries outside CI. It returns e for chaining.
func (e *Env) Require(t testing.TB) *Env {
	t.Helper()
	if e == nil {
		t.Skip("test control plane not running: " + ErrBinariesMissing.Error())
	}
	return e
}

// Main runs a test package against one shared control plane: it starts it,
// calls setup (which typically stores the Env in a package variable), runs
// the tests, stops it and exits with the tests' code.
//
// When the binaries are missing it prints why; with CI=true it then exits 1
// without running tests, otherwise it runs the tests without calling setup,
// so each test's Env.Require skips it. Any other start failure exits 1.
func Main(m *testing.M, opts Options, setup func(*Env)) {
	os.Exit(run(m, opts, setup, os.Getenv("CI") == "true"))
}

func run(m *testing.M, opts Options, setup func(*Env), ci bool) (code int) {
	began := time.Now()
	env, err := Start(opts)
	switch {
	case errors.Is(err, ErrBinariesMissing) && ci:
		fmt.Fprintf(os.Stderr, "FAIL: testenv: %v\nCI=true: integration tests must not be skipped; build the binaries with `make controlplane` first.\n", err)
		return 1
	case errors.Is(err, ErrBinariesMissing):
		fmt.Fprintf(os.Stderr, "SKIP: testenv: %v\nTests that need the control plane are skipped; run `make controlplane` once to enable them.\n", err)
		return m.Run()
	case err != nil:
		fmt.Fprintf(os.Stderr, "FAIL: testenv: %v\n", err)
		return 1
	}
	fmt.Fprintf(os.Stderr, "testenv: control plane started in %.1fs\n", time.Since(began).Seconds())
	defer func() {
		if err := env.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "testenv: %v\n", err)
			if code == 0 {
				code = 1
			}
		}
	}()
	if setup != nil {
		setup(env)
	}
	return m.Run()
}

func allAbs(paths []string) bool {
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			return false
		}
	}
	return true
}

func absUnder(root string, paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		if filepath.IsAbs(p) {
			out[i] = p
		} else {
			out[i] = filepath.Join(root, p)
		}
	}
	return out
}
