package localcluster

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/api/v1beta1"
)

// Options configures a local control plane.
type Options struct {
	// Root is the repository root: binaries in Root/bin/k8s, CRDs in
	// Root/config/crd/{bases,operands}.
	Root string
	// StateDir receives the kubeconfig (and the audit log, if asked for).
	StateDir string
	// AuditPolicy, when set, is written as the audit policy and the
	// apiserver logs to StateDir/audit.log.
	AuditPolicy string
	// Scheme is used for the CRD install; nil means client-go plus
	// apiextensions. Both HyperConverged versions are added when missing.
	Scheme *runtime.Scheme
	// WebhookConfigs are Validating and MutatingWebhookConfiguration manifests to install,
	// pointed at a local webhook server (see Cluster.Webhook).
	WebhookConfigs []string
	// HyperConvergedCRD, when set, is a directory holding the HyperConverged
	// CRD to install instead of Root/config/crd/bases (upstream HCO's own,
	// when hcobench measures upstream's operator); the operand CRDs are
	// Root/config/crd/operands either way.
	HyperConvergedCRD string
}

// WebhookServer is where the installed webhook configurations send their
// requests: a local HTTPS server with the certificate in CertDir
// (tls.crt, tls.key), which the apiserver trusts.
type WebhookServer struct {
	Host    string
	Port    int
	CertDir string
}

// Cluster is a running local control plane.
type Cluster struct {
	// Config reaches the apiserver as a system:masters user.
	Config *rest.Config
	// Kubeconfig is the path of a kubeconfig for the same user.
	Kubeconfig string
	// AuditLog is the audit log path, empty without an audit policy.
	AuditLog string
	// Webhook is where the webhook configurations of Options.WebhookConfigs
	// and the HyperConverged CRD's conversion send their requests.
	Webhook *WebhookServer

	env *envtest.Environment
}

// Start starts etcd and kube-apiserver and installs the HyperConverged and
// operand CRDs.
func Start(opts Options) (*Cluster, error) {
	bin := filepath.Join(opts.Root, "bin", "k8s")
	for _, b := range []string{"kube-apiserver", "etcd"} {
		if _, err := os.Stat(filepath.Join(bin, b)); err != nil {
			return nil, fmt.Errorf("%s is missing from %s: run `make controlplane` first: %w", b, bin, err)
		}
	}
	if err := os.MkdirAll(opts.StateDir, 0o755); err != nil {
		return nil, err
	}
	scheme := opts.Scheme
	if scheme == nil {
		scheme = runtime.NewScheme()
		if err := errors.Join(clientgoscheme.AddToScheme(scheme), apiextensionsv1.AddToScheme(scheme)); err != nil {
			return nil, err
		}
	}
	// Both HyperConverged versions, so that envtest points the CRD's
	// conversion at the local webhook server (hco-operator webhook serves
	// /convert there); a CRD it sees no conversion for gets strategy None,
	// which would store v1beta1 objects as v1 unconverted. Without a webhook
	// server only v1 requests work.
	for _, gv := range []schema.GroupVersion{hcov1.GroupVersion, v1beta1.GroupVersion} {
		if !scheme.IsVersionRegistered(gv) {
			add := map[string]func(*runtime.Scheme) error{"v1": hcov1.AddToScheme, "v1beta1": v1beta1.AddToScheme}[gv.Version]
			if err := add(scheme); err != nil {
				return nil, err
			}
		}
	}
	hcCRD := filepath.Join(opts.Root, "config", "crd", "bases")
	if opts.HyperConvergedCRD != "" {
		hcCRD = opts.HyperConvergedCRD
	}
	env := &envtest.Environment{
		Scheme:                   scheme,
		CRDDirectoryPaths:        []string{hcCRD, filepath.Join(opts.Root, "config", "crd", "operands")},
		ErrorIfCRDPathMissing:    true,
		BinaryAssetsDirectory:    bin,
		ControlPlaneStartTimeout: 90 * time.Second,
		ControlPlaneStopTimeout:  30 * time.Second,
	}
	env.WebhookInstallOptions.Paths = opts.WebhookConfigs
	env.ControlPlane.GetAPIServer().Path = filepath.Join(bin, "kube-apiserver")
	env.ControlPlane.Etcd = &envtest.Etcd{Path: filepath.Join(bin, "etcd")}
	c := &Cluster{env: env}
	if opts.AuditPolicy != "" {
		policy := filepath.Join(opts.StateDir, "audit-policy.yaml")
		if err := os.WriteFile(policy, []byte(opts.AuditPolicy), 0o644); err != nil {
			return nil, err
		}
		c.AuditLog = filepath.Join(opts.StateDir, "audit.log")
		_ = os.Remove(c.AuditLog)
		args := env.ControlPlane.GetAPIServer().Configure()
		args.Set("audit-policy-file", policy)
		args.Set("audit-log-path", c.AuditLog)
		args.Set("audit-log-mode", "blocking")
	}
	cfg, err := env.Start()
	if err != nil {
		_ = env.Stop()
		return nil, fmt.Errorf("start local control plane: %w", err)
	}
	c.Config = cfg
	w := env.WebhookInstallOptions
	c.Webhook = &WebhookServer{Host: w.LocalServingHost, Port: w.LocalServingPort, CertDir: w.LocalServingCertDir}
	user, err := env.AddUser(envtest.User{Name: "local-admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		_ = env.Stop()
		return nil, fmt.Errorf("create local admin: %w", err)
	}
	kc, err := user.KubeConfig()
	if err != nil {
		_ = env.Stop()
		return nil, err
	}
	c.Kubeconfig = filepath.Join(opts.StateDir, "kubeconfig")
	if err := os.WriteFile(c.Kubeconfig, kc, 0o600); err != nil {
		_ = env.Stop()
		return nil, err
	}
	return c, nil
}

// AddUser returns a kubeconfig path for a new user in the given groups, so a
// process's requests can be told apart in the audit log.
func (c *Cluster) AddUser(name string, groups ...string) (string, error) {
	user, err := c.env.AddUser(envtest.User{Name: name, Groups: groups}, nil)
	if err != nil {
		return "", err
	}
	kc, err := user.KubeConfig()
	if err != nil {
		return "", err
	}
	p := filepath.Join(filepath.Dir(c.Kubeconfig), name+".kubeconfig")
	return p, os.WriteFile(p, kc, 0o600)
}

// Stop stops the control plane and removes its data.
func (c *Cluster) Stop() error {
	return c.env.Stop()
}
