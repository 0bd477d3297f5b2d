package testenv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	crwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/webhook"
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

	// WebhookInstallOptions is passed to envtest, for tests that serve
	// admission webhooks; Env.Environment.WebhookInstallOptions holds the
	// resulting host, port and certificate directory. The installed
	// HyperConverged CRD converts through a webhook at /convert on that same
	// host and port: when WebhookInstallOptions holds webhooks, the test
	// serves it (webhook.Register does); otherwise Start serves it itself.
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

	// AuditPolicy, when set, is the apiserver's audit policy; the log is
	// written to Env.AuditLog (JSON lines, blocking mode: an event is in
	// the file before its response is sent).
	AuditPolicy string
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
	// AuditLog is the apiserver's audit log, empty without Options.AuditPolicy.
	AuditLog string

	stopHooks []func()
	certDir   string
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
	// Both HyperConverged versions, so that envtest points the CRD's
	// conversion at the local webhook server (a CRD it sees no conversion
	// for would get strategy None, and v1beta1 objects would be stored as v1
	// unconverted).
	adders := append([]func(*runtime.Scheme) error{clientgoscheme.AddToScheme, apiextensionsv1.AddToScheme,
		hcov1.AddToScheme, v1beta1.AddToScheme}, opts.AddToScheme...)
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
	webhooks := opts.WebhookInstallOptions
	if webhooks.LocalServingHost == "" {
		webhooks.LocalServingHost = "127.0.0.1" // before envtest issues the serving certificate for it
	}
	te := &envtest.Environment{
		Scheme:                   scheme,
		CRDDirectoryPaths:        crdPaths,
		ErrorIfCRDPathMissing:    true,
		WebhookInstallOptions:    webhooks,
		BinaryAssetsDirectory:    binDir,
		AttachControlPlaneOutput: opts.AttachControlPlaneOutput,
		ControlPlaneStartTimeout: timeout,
		ControlPlaneStopTimeout:  30 * time.Second,
	}
	// Explicit paths, so TEST_ASSET_* and KUBEBUILDER_ASSETS cannot point
	// envtest somewhere other than the directory checked above.
	te.ControlPlane.GetAPIServer().Path = apiserverPath
	te.ControlPlane.Etcd = &envtest.Etcd{Path: etcdPath}
	// A certificate directory of our own, which envtest keeps across a
	// restart of the apiserver (a directory of its own it would replace,
	// and with it the serving certificate clients trust).
	certDir, err := os.MkdirTemp("", "hcokit-apiserver-")
	if err != nil {
		return nil, err
	}
	te.ControlPlane.GetAPIServer().CertDir = certDir
	var auditLog string
	if opts.AuditPolicy != "" {
		policy := filepath.Join(certDir, "audit-policy.yaml")
		if err := os.WriteFile(policy, []byte(opts.AuditPolicy), 0o600); err != nil {
			_ = os.RemoveAll(certDir)
			return nil, err
		}
		auditLog = filepath.Join(certDir, "audit.log")
		args := te.ControlPlane.GetAPIServer().Configure()
		args.Set("audit-policy-file", policy)
		args.Set("audit-log-path", auditLog)
		args.Set("audit-log-mode", "blocking")
	}

	cfg, err := te.Start()
	if err != nil {
		_ = te.Stop()
		_ = os.RemoveAll(certDir)
		return nil, fmt.Errorf("starting test control plane from %s: %w", binDir, err)
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		_ = te.Stop()
		_ = os.RemoveAll(certDir)
		return nil, fmt.Errorf("building test client: %w", err)
	}
	env := &Env{Config: cfg, Client: c, Scheme: scheme, Environment: te, AuditLog: auditLog, certDir: certDir}
	// With admission webhooks (given, or read from Paths), the test serves
	// /convert on its webhook server; otherwise this process does.
	if w := te.WebhookInstallOptions; len(w.ValidatingWebhooks)+len(w.MutatingWebhooks) == 0 {
		if err := env.serveConversion(); err != nil {
			_ = env.Stop()
			return nil, err
		}
	}
	return env, nil
}

// serveConversion serves the HyperConverged conversion webhook where envtest
// pointed the CRD, until Stop.
func (e *Env) serveConversion() error {
	handler, err := webhook.ConversionHandler()
	if err != nil {
		return err
	}
	o := e.Environment.WebhookInstallOptions
	srv := crwebhook.NewServer(crwebhook.Options{Host: o.LocalServingHost, Port: o.LocalServingPort, CertDir: o.LocalServingCertDir})
	srv.Register(webhook.ConversionPath, handler)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Start(ctx) }()
	e.AtStop(func() { cancel(); <-done })
	started := srv.StartedChecker()
	for deadline := time.Now().Add(10 * time.Second); started(nil) != nil; time.Sleep(10 * time.Millisecond) {
		select {
		case err := <-done:
			done <- err
			return fmt.Errorf("serving the conversion webhook: %w", err)
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("serving the conversion webhook: not up after 10s: %w", started(nil))
		}
	}
	return nil
}

// KillAPIServer kills kube-apiserver (SIGKILL: a crash, no graceful
// shutdown, which would wait for busy clients to go quiet); etcd, and
// everything stored, stays. Clients get connection errors until
// StartAPIServer.
func (e *Env) KillAPIServer() error {
	s := e.Environment.ControlPlane.GetAPIServer()
	pid, err := pidWithArg(filepath.Base(s.Path), "--cert-dir="+e.certDir)
	if err != nil {
		return err
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		return fmt.Errorf("kill kube-apiserver (pid %d): %w", pid, err)
	}
	// Once envtest has seen the process exit, its Stop has nothing left to
	// do; until then it signals a process group that is gone (ESRCH).
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		err := s.Stop()
		if err == nil || !errors.Is(err, syscall.ESRCH) {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("kube-apiserver (pid %d) killed, but envtest does not see it exit: %w", pid, err)
		}
	}
}

// pidWithArg finds the process named name whose command line has arg.
func pidWithArg(name, arg string) (int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	for _, d := range entries {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		raw, err := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(string(raw), "\x00")
		if filepath.Base(args[0]) == name && slices.Contains(args, arg) {
			return pid, nil
		}
	}
	return 0, fmt.Errorf("no %s process with %s", name, arg)
}

// StartAPIServer starts kube-apiserver again after KillAPIServer, at the
// same address, with the same serving certificate and users, so that
// existing clients and rest.Configs reconnect; it returns once it is healthy.
func (e *Env) StartAPIServer() error {
	return e.Environment.ControlPlane.GetAPIServer().Start()
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
	err := e.Environment.Stop()
	if e.certDir != "" {
		_ = os.RemoveAll(e.certDir)
	}
	if err != nil {
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
