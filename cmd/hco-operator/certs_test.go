package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	ctrl "sigs.k8s.io/controller-runtime"
	crwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"
)

func TestCertsFlags(t *testing.T) {
	getenv := func(string) string { return "" }
	c, _, err := parseWebhook(nil, getenv)
	if err != nil {
		t.Fatal(err)
	}
	want := certsConfig{secretName: "hco-webhook-cert", serviceName: "hco-webhook", webhookName: "hco-webhook", injectorSecret: "virt-network-resources-injector-secret", aieSecret: "kubevirt-aie-webhook-tls",
		hppOperatorSecret: "hostpath-provisioner-operator-webhook-service-cert", metricsServices: "kubevirt-hyperconverged-operator-metrics,hyperconverged-cluster-webhook-operator-metrics"}
	if c.certs != want {
		t.Errorf("defaults: %+v, want %+v (managing certificates is off by default: OLM and cert-manager provide them)", c.certs, want)
	}
	c, _, err = parseWebhook([]string{"--manage-certs", "--cert-secret=s", "--service-name=svc", "--webhook-configuration-name=w", "--cert-extra-dns-names=localhost,a.example", "--injector-cert-secret=", "--aie-cert-secret=", "--hpp-operator-cert-secret=", "--ssp-operator-cert-secret=x", "--metrics-cert-secret=m", "--metrics-cert-services=a,b"}, getenv)
	if err != nil {
		t.Fatal(err)
	}
	want = certsConfig{manage: true, secretName: "s", serviceName: "svc", webhookName: "w", extraDNSNames: "localhost,a.example", injectorSecret: "", aieSecret: "", sspOperatorSecret: "x",
		metricsSecret: "m", metricsServices: "a,b"}
	if c.certs != want {
		t.Errorf("flags: %+v, want %+v", c.certs, want)
	}
}

// Managing certificates turns on leader election (the rotator runs on one
// replica); without it the webhook elects nothing. Either way the server
// waits for its certificate files.
func TestConfigureCerts(t *testing.T) {
	server := crwebhook.Options{CertDir: t.TempDir(), CertName: "tls.crt", KeyName: "tls.key"}
	var o ctrl.Options
	configureCerts(&o, certsConfig{}, "virt", server)
	if o.LeaderElection {
		t.Error("leader election without --manage-certs")
	}
	if _, ok := o.WebhookServer.(*certWaitingServer); !ok {
		t.Errorf("webhook server %T, want *certWaitingServer", o.WebhookServer)
	}
	configureCerts(&o, certsConfig{manage: true}, "virt", server)
	if !o.LeaderElection || o.LeaderElectionNamespace != "virt" || o.LeaderElectionID != "hco-webhook-cert-rotator" {
		t.Errorf("leader election with --manage-certs: %v %q %q", o.LeaderElection, o.LeaderElectionNamespace, o.LeaderElectionID)
	}
}

// The server does not start, and does not fail, while its certificate is
// missing: it returns when stopped.
func TestCertWaitingServerWaitsForItsFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "tls.crt"), []byte("only the certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := &certWaitingServer{Server: crwebhook.NewServer(crwebhook.Options{CertDir: dir, Port: 1}), certDir: dir, certName: "tls.crt", keyName: "tls.key"}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Start(ctx) }()
	if err := s.StartedChecker()(nil); err == nil {
		t.Error("started without a key")
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Start after stop: %v", err)
	}
}
