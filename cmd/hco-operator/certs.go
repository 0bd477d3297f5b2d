package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/open-policy-agent/cert-controller/pkg/rotator"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	ctrl "sigs.k8s.io/controller-runtime"
	crwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/hcokit/hcokit/operands/aie"
	"github.com/hcokit/hcokit/operands/netresinjector"
)

// hyperConvergedCRD is the CRD whose conversion webhook is served at /convert.
const hyperConvergedCRD = "hyperconvergeds.hco.kubevirt.io"

// certsConfig is how the webhook manages its own serving certificate
// (--manage-certs): open-policy-agent/cert-controller's rotator keeps a CA
// and a serving certificate in a Secret of the operator namespace, renews
// them, and injects the CA into the validating and mutating webhook
// configurations and the HyperConverged CRD's conversion webhook. The Secret
// reaches --cert-dir as a mounted volume; the server reloads it when it
// changes. Without --manage-certs someone else (OLM, cert-manager) provides
// the certificate and the caBundles.
//
// With --manage-certs it also manages the certificates of the webhooks the
// operator deploys (workloadCerts: the network-resources-injector's,
// operands/netresinjector, and the AIE webhook's, operands/aie): a rotator
// each keeps a CA of its own and a serving certificate for the workload's
// Service in its Secret (which the manifests create empty, as the
// webhook's) and injects that CA into the workload's
// MutatingWebhookConfiguration once the operator has made it. The
// workloads' pods mount their Secret; they never see another's CA key.
// Likewise for the component operators' webhooks that the install deploys
// (operatorCerts: hostpath-provisioner-operator's, and ssp-operator's on
// OpenShift), which upstream's install gives cert-manager certificates: their
// Secrets (created empty by the install) and their
// ValidatingWebhookConfigurations (shipped by the install).
// With --metrics-cert-secret, one more keeps the metrics endpoints'
// certificate (for the metrics Services of --metrics-cert-services), which
// the operator's and the webhook's pods mount at --metrics-cert-path.
// Each rotator's cache holds its own objects only (withNames).
type certsConfig struct {
	manage         bool
	secretName     string
	serviceName    string
	webhookName    string
	extraDNSNames  string
	injectorSecret string
	aieSecret      string
	// hppOperatorSecret and sspOperatorSecret: the component operators'
	// webhook certificates (empty: not managed).
	hppOperatorSecret string
	sspOperatorSecret string
	// metricsSecret and metricsServices: the metrics endpoints'
	// certificate, for each of those Services.
	metricsSecret   string
	metricsServices string
}

// workloadCert is the certificate of a webhook the operator or the install
// deploys.
type workloadCert struct {
	secret                   *string
	service, webhook, caName string
	controller               string
	// validating: the webhook configuration is a
	// ValidatingWebhookConfiguration (else a Mutating one).
	validating bool
}

// The component operators' webhooks, as the install names them
// (operands/hpp/operator and operands/ssp/operator: upstream HCO's names).
const (
	hppOperatorService = "hostpath-provisioner-operator-service"
	hppOperatorWebhook = "hostpathprovisioner.kubevirt.io"
	hppOperatorSecret  = "hostpath-provisioner-operator-webhook-service-cert"
	sspOperatorService = "ssp-operator-service"
	sspOperatorWebhook = "vssp.kb.io"
	sspOperatorSecret  = "ssp-operator-service-cert"
)

func (c *certsConfig) workloadCerts() []workloadCert {
	return []workloadCert{
		{secret: &c.injectorSecret, service: netresinjector.ServiceName, webhook: netresinjector.WebhookConfigName, caName: "virt-network-resources-injector-ca", controller: "netresinjector-cert-rotator"},
		{secret: &c.aieSecret, service: aie.ObjectName, webhook: aie.ObjectName, caName: "kubevirt-aie-webhook-ca", controller: "aie-cert-rotator"},
		{secret: &c.hppOperatorSecret, service: hppOperatorService, webhook: hppOperatorWebhook, caName: "hostpath-provisioner-operator-ca", controller: "hpp-operator-cert-rotator", validating: true},
		{secret: &c.sspOperatorSecret, service: sspOperatorService, webhook: sspOperatorWebhook, caName: "ssp-operator-ca", controller: "ssp-operator-cert-rotator", validating: true},
	}
}

func addCertsFlags(fs *flag.FlagSet, c *certsConfig) {
	fs.BoolVar(&c.manage, "manage-certs", false, "Create and rotate the serving certificate in --cert-secret and inject its CA into the webhook configurations and the HyperConverged CRD (leader-elected among the replicas).")
	fs.StringVar(&c.secretName, "cert-secret", "hco-webhook-cert", "Secret in the operator namespace holding the managed CA and serving certificate; it must exist (the manifests create it empty).")
	fs.StringVar(&c.serviceName, "service-name", "hco-webhook", "Service in front of the webhook: the managed certificate is for <service>.<namespace>.svc.")
	fs.StringVar(&c.webhookName, "webhook-configuration-name", "hco-webhook", "Name of the ValidatingWebhookConfiguration and the MutatingWebhookConfiguration whose caBundle is managed.")
	fs.StringVar(&c.extraDNSNames, "cert-extra-dns-names", "", "Comma-separated extra DNS names of the managed serving certificate (a webhook reached by URL).")
	fs.StringVar(&c.injectorSecret, "injector-cert-secret", netresinjector.SecretName, "With --manage-certs, the Secret in the operator namespace that holds the network-resources-injector's managed CA and serving certificate; it must exist (the manifests create it empty). Empty: the injector's certificate is not managed.")
	fs.StringVar(&c.metricsSecret, "metrics-cert-secret", "", "With --manage-certs, the Secret in the operator namespace that holds the metrics endpoints' managed CA and serving certificate (for each of --metrics-cert-services; the operator and the webhook mount it at --metrics-cert-path, and a ServiceMonitor verifies it with its ca.crt); it must exist (the manifests create it empty). Empty: not managed.")
	fs.StringVar(&c.metricsServices, "metrics-cert-services", "kubevirt-hyperconverged-operator-metrics,hyperconverged-cluster-webhook-operator-metrics", "Comma-separated Services of the metrics endpoints: the certificate in --metrics-cert-secret is for <service>.<namespace>.svc of each.")
	fs.StringVar(&c.hppOperatorSecret, "hpp-operator-cert-secret", hppOperatorSecret, "With --manage-certs, the Secret in the operator namespace that holds hostpath-provisioner-operator's webhook CA and serving certificate (for Service "+hppOperatorService+", injected into ValidatingWebhookConfiguration "+hppOperatorWebhook+"); it must exist (the install creates it empty). Empty: not managed.")
	fs.StringVar(&c.sspOperatorSecret, "ssp-operator-cert-secret", "", "With --manage-certs, the Secret in the operator namespace that holds ssp-operator's webhook CA and serving certificate (for Service "+sspOperatorService+", injected into ValidatingWebhookConfiguration "+sspOperatorWebhook+"); it must exist (config/overlays/openshift creates it empty and sets this to "+sspOperatorSecret+"). Empty: not managed.")
	fs.StringVar(&c.aieSecret, "aie-cert-secret", aie.SecretName, "With --manage-certs, the Secret in the operator namespace that holds the AIE webhook's managed CA and serving certificate; it must exist (the manifests create it empty). Empty: the AIE webhook's certificate is not managed.")
}

// configureCerts sets what the manager needs for certificates: leader
// election for the rotator when it is on (so that two replicas do not write
// competing certificates; every replica serves), and a webhook server that
// starts once the certificate files exist, so that readiness waits for them.
func configureCerts(o *ctrl.Options, c certsConfig, namespace string, server crwebhook.Options) {
	o.WebhookServer = &certWaitingServer{Server: crwebhook.NewServer(server), certDir: server.CertDir, certName: server.CertName, keyName: server.KeyName}
	if c.manage {
		o.LeaderElection = true
		o.LeaderElectionID = "hco-webhook-cert-rotator"
		o.LeaderElectionNamespace = namespace
		o.LeaderElectionReleaseOnCancel = true
	}
}

// addCertRotator adds cert-controller's rotator to mgr when --manage-certs is set.
func addCertRotator(mgr ctrl.Manager, c certsConfig, namespace string, server crwebhook.Options) error {
	if !c.manage {
		return nil
	}
	secrets := func(name string) map[string]string {
		return map[string]string{collectionPath("", "v1", namespace, "secrets"): name}
	}
	names := secrets(c.secretName)
	names[collectionPath("admissionregistration.k8s.io", "v1", "", "validatingwebhookconfigurations")] = c.webhookName
	names[collectionPath("admissionregistration.k8s.io", "v1", "", "mutatingwebhookconfigurations")] = c.webhookName
	names[collectionPath("apiextensions.k8s.io", "v1", "", "customresourcedefinitions")] = hyperConvergedCRD
	dnsName := fmt.Sprintf("%s.%s.svc", c.serviceName, namespace)
	err := rotator.AddRotator(withNames(mgr, names), &rotator.CertRotator{
		SecretKey:      types.NamespacedName{Namespace: namespace, Name: c.secretName},
		CertDir:        server.CertDir,
		CertName:       server.CertName,
		KeyName:        server.KeyName,
		CAName:         "hco-webhook-ca",
		CAOrganization: "hcokit",
		DNSName:        dnsName,
		ExtraDNSNames:  append([]string{dnsName + ".cluster.local"}, splitList(c.extraDNSNames)...),
		IsReady:        make(chan struct{}),
		Webhooks: []rotator.WebhookInfo{
			{Name: c.webhookName, Type: rotator.Validating},
			{Name: c.webhookName, Type: rotator.Mutating},
			{Name: hyperConvergedCRD, Type: rotator.CRDConversion},
		},
		FieldOwner:            "hco-webhook-cert-rotator",
		RequireLeaderElection: true,
	})
	if err != nil {
		return fmt.Errorf("set up the certificate rotator of Secret %s/%s: %w", namespace, c.secretName, err)
	}
	for _, w := range c.workloadCerts() {
		if *w.secret == "" {
			continue
		}
		// A controller name of its own (cert-controller registers one per
		// rotator), the same leader election. The rotator waits for its
		// files in CertDir, as if this process served them; it does not, so
		// it is pointed at the webhook's own directory, whose tls.crt (the
		// default --cert-name) this process waits for anyway.
		names := secrets(*w.secret)
		kind, typ := "mutatingwebhookconfigurations", rotator.Mutating
		if w.validating {
			kind, typ = "validatingwebhookconfigurations", rotator.Validating
		}
		names[collectionPath("admissionregistration.k8s.io", "v1", "", kind)] = w.webhook
		dnsName := fmt.Sprintf("%s.%s.svc", w.service, namespace)
		err = rotator.AddRotator(withNames(mgr, names), &rotator.CertRotator{
			SecretKey:             types.NamespacedName{Namespace: namespace, Name: *w.secret},
			CertDir:               server.CertDir,
			CertName:              "tls.crt",
			KeyName:               "tls.key",
			CAName:                w.caName,
			CAOrganization:        "hcokit",
			DNSName:               dnsName,
			ExtraDNSNames:         []string{dnsName + ".cluster.local"},
			IsReady:               make(chan struct{}),
			Webhooks:              []rotator.WebhookInfo{{Name: w.webhook, Type: typ}},
			FieldOwner:            "hco-webhook-cert-rotator",
			RequireLeaderElection: true,
			ControllerName:        w.controller,
		})
		if err != nil {
			return fmt.Errorf("set up the certificate rotator of Secret %s/%s: %w", namespace, *w.secret, err)
		}
	}
	if c.metricsSecret == "" {
		return nil
	}
	var dnsNames []string
	for _, svc := range splitList(c.metricsServices) {
		name := fmt.Sprintf("%s.%s.svc", svc, namespace)
		dnsNames = append(dnsNames, name, name+".cluster.local")
	}
	if len(dnsNames) == 0 {
		return errors.New("--metrics-cert-services: name at least one Service for the certificate in --metrics-cert-secret")
	}
	err = rotator.AddRotator(withNames(mgr, secrets(c.metricsSecret)), &rotator.CertRotator{
		SecretKey:             types.NamespacedName{Namespace: namespace, Name: c.metricsSecret},
		CertDir:               server.CertDir,
		CertName:              "tls.crt",
		KeyName:               "tls.key",
		CAName:                "hco-metrics-ca",
		CAOrganization:        "hcokit",
		DNSName:               dnsNames[0],
		ExtraDNSNames:         dnsNames[1:],
		IsReady:               make(chan struct{}),
		FieldOwner:            "hco-webhook-cert-rotator",
		RequireLeaderElection: true,
		ControllerName:        "metrics-cert-rotator",
	})
	if err != nil {
		return fmt.Errorf("set up the certificate rotator of Secret %s/%s: %w", namespace, c.metricsSecret, err)
	}
	return nil
}

// certWaitingServer is a webhook server that starts once its certificate and
// key files exist: with a managed or cert-manager certificate the Secret is
// filled after the pod starts, and controller-runtime's server fails to
// start without the files. Its StartedChecker fails until then.
type certWaitingServer struct {
	crwebhook.Server
	certDir, certName, keyName string
}

var _ crwebhook.Server = (*certWaitingServer)(nil)

// Start waits for the certificate files, then runs the server.
func (s *certWaitingServer) Start(ctx context.Context) error {
	log := ctrl.Log.WithName("webhook")
	exist := func(context.Context) (bool, error) {
		for _, name := range []string{s.certName, s.keyName} {
			if _, err := os.Stat(filepath.Join(s.certDir, name)); err != nil {
				return false, nil
			}
		}
		return true, nil
	}
	if ok, _ := exist(ctx); !ok {
		log.Info("waiting for the serving certificate", "certDir", s.certDir, "certName", s.certName, "keyName", s.keyName)
		if err := wait.PollUntilContextCancel(ctx, time.Second, true, exist); err != nil {
			if errors.Is(err, context.Canceled) || ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("wait for the serving certificate in %s: %w", s.certDir, err)
		}
	}
	return s.Server.Start(ctx)
}
