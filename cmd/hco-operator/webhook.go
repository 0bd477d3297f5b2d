package main

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"time"

	ocpconfigv1 "github.com/openshift/api/config/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	crwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/clustertls"
	"github.com/hcokit/hcokit/extensions"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/webhook"
)

// webhookConfig is everything the webhook subcommand reads from flags and
// the environment.
type webhookConfig struct {
	env                        hco.Environment
	kubeconfig                 string
	operands                   string
	certDir, certName, keyName string
	port                       int
	metrics                    metricsFlags
	probeAddr                  string
	lookupTimeout              time.Duration
	certs                      certsConfig
}

func parseWebhook(args []string, getenv func(string) string) (webhookConfig, *zap.Options, error) {
	c := webhookConfig{env: hco.Environment{
		Namespace:                orDefault(getenv("OPERATOR_NAMESPACE"), hcov1.DefaultNamespace),
		Version:                  operatorVersion(getenv),
		CommonTemplatesNamespace: hco.DefaultCommonTemplatesNamespace,
		KVMEmulation:             getenv("KVM_EMULATION") == "true",
	}}
	fs := flag.NewFlagSet("hco-operator webhook", flag.ContinueOnError)
	addKubeconfigFlag(fs, &c.kubeconfig)
	fs.StringVar(&c.certDir, "cert-dir", "/tmp/k8s-webhook-server/serving-certs", "Directory holding the serving certificate and key; reloaded when they change.")
	fs.StringVar(&c.certName, "cert-name", "tls.crt", "Certificate file name in --cert-dir.")
	fs.StringVar(&c.keyName, "key-name", "tls.key", "Key file name in --cert-dir.")
	fs.IntVar(&c.port, "port", 9443, "HTTPS port of the webhook.")
	addMetricsFlags(fs, &c.metrics)
	fs.StringVar(&c.probeAddr, "health-probe-bind-address", ":8081", "Address of /healthz and /readyz.")
	fs.StringVar(&c.env.Namespace, "namespace", c.env.Namespace, "Operator namespace, the only one a HyperConverged may be created in (env OPERATOR_NAMESPACE).")
	fs.StringVar(&c.operands, "operands", defaultOperands, "Comma-separated operand modules whose objects are built to check jsonpatch annotations; use the operator's value.")
	addImageFlags(fs, &c.env, getenv)
	fs.StringVar(&c.env.CommonTemplatesNamespace, "common-templates-namespace", c.env.CommonTemplatesNamespace, "Default namespace of SSP's common templates; use the operator's value.")
	fs.DurationVar(&c.lookupTimeout, "lookup-timeout", webhook.DefaultLookupTimeout, "Bound on the VirtualMachine and DataVolume existence checks of one request.")
	addCertsFlags(fs, &c.certs)
	zapOpts := &zap.Options{}
	zapOpts.BindFlags(fs)
	if err := fs.Parse(args); err != nil {
		return c, zapOpts, usageError(err)
	}
	return c, zapOpts, nil
}

// runWebhook serves the validating and mutating admission webhooks and the
// conversion webhook of the HyperConverged. Every replica serves; with
// --manage-certs the elected one also rotates the certificate (certs.go).
func runWebhook(args []string, getenv func(string) string) error {
	c, zapOpts, err := parseWebhook(args, getenv)
	if err != nil {
		return err
	}
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(zapOpts)))

	reg, scheme, restConfig, err := clusterSetup(c.operands, c.kubeconfig)
	if err != nil {
		return err
	}
	metricsOpts, err := c.metrics.serverOptions()
	if err != nil {
		return err
	}
	// The webhook and metrics endpoints follow the HyperConverged's TLS
	// profile (clustertls.ServeProfile), read from this manager's cache, which
	// exists once the manager does; the first handshake comes after start.
	var serveTLSProfile func(*tls.Config)
	followProfile := func(cfg *tls.Config) { serveTLSProfile(cfg) }
	// HTTP/1.1 only: the API server speaks it to webhooks, and HTTP/2's
	// streams would let one client hold many requests open at once.
	http1 := func(cfg *tls.Config) { cfg.NextProtos = []string{"http/1.1"} }
	server := crwebhook.Options{Port: c.port, CertDir: c.certDir, CertName: c.certName, KeyName: c.keyName, TLSOpts: []func(*tls.Config){followProfile, http1}}
	metricsOpts.TLSOpts = append(metricsOpts.TLSOpts, followProfile)
	opts := ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsOpts,
		HealthProbeBindAddress: c.probeAddr,
		// The cache holds the HyperConverged of the operator namespace
		// (and, on OpenShift, the cluster's APIServer configuration): the
		// TLS profile.
		Cache: cache.Options{DefaultNamespaces: map[string]cache.Config{c.env.Namespace: {}}},
	}
	configureCerts(&opts, c.certs, c.env.Namespace, server)
	mgr, err := ctrl.NewManager(restConfig, opts)
	if err != nil {
		return fmt.Errorf("create manager: %w", err)
	}
	openShift, err := clustertls.Served(mgr.GetRESTMapper())
	if err != nil {
		return err
	}
	profileSources := []client.Object{&hcov1.HyperConverged{}}
	if openShift {
		profileSources = append(profileSources, &ocpconfigv1.APIServer{})
	}
	for _, obj := range profileSources {
		// Started with the cache, so that the first handshake finds them synced.
		if _, err := mgr.GetCache().GetInformer(context.Background(), obj, cache.BlockUntilSynced(false)); err != nil {
			return fmt.Errorf("watch %T for the TLS profile: %w", obj, err)
		}
	}
	serveTLSProfile = clustertls.ServeProfile(mgr.GetCache(), types.NamespacedName{Namespace: c.env.Namespace, Name: hcov1.HyperConvergedName}, openShift)
	if err := addCertRotator(mgr, c.certs, c.env.Namespace, server); err != nil {
		return err
	}
	if err := webhook.Register(mgr, webhook.Options{
		Namespace: c.env.Namespace, Registry: reg, Environment: c.env, LookupTimeout: c.lookupTimeout, Extensions: extensions.Stock(),
	}); err != nil {
		return err
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return err
	}
	if err := mgr.AddReadyzCheck("webhook", mgr.GetWebhookServer().StartedChecker()); err != nil {
		return err
	}
	ctrl.Log.Info("starting hco-operator webhook", "namespace", c.env.Namespace, "port", c.port, "certDir", c.certDir, "operands", reg.Names())
	return mgr.Start(ctrl.SetupSignalHandler())
}
