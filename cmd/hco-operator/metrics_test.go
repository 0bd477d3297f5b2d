package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMetricsAreSecureByDefaultOnBothSubcommands(t *testing.T) {
	getenv := func(string) string { return "" }
	op, _, _, err := parse(nil, getenv)
	if err != nil {
		t.Fatal(err)
	}
	wh, _, err := parseWebhook(nil, getenv)
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]metricsFlags{"operator": op.metrics, "webhook": wh.metrics} {
		o, err := f.serverOptions()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if o.BindAddress != ":8443" || !o.SecureServing || o.FilterProvider == nil || o.CertDir != "" {
			t.Errorf("%s: bind %q, secure %v, filter %v, cert dir %q; want :8443, HTTPS with authentication and authorization, self-signed",
				name, o.BindAddress, o.SecureServing, o.FilterProvider != nil, o.CertDir)
		}
	}
}

func TestMetricsInsecureServesPlainHTTPWithoutFilter(t *testing.T) {
	c, _, _, err := parse([]string{"--metrics-secure=false", "--metrics-bind-address=:8080"}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	o, err := c.metrics.serverOptions()
	if err != nil {
		t.Fatal(err)
	}
	if o.SecureServing || o.FilterProvider != nil || o.BindAddress != ":8080" {
		t.Errorf("secure %v, filter %v, bind %q; want plain HTTP on :8080", o.SecureServing, o.FilterProvider != nil, o.BindAddress)
	}
}

func TestMetricsCertPathMustHoldTheFiles(t *testing.T) {
	dir := t.TempDir()
	f := metricsFlags{addr: ":8443", secure: true, certPath: dir, certName: "tls.crt", certKey: "tls.key"}
	if _, err := f.serverOptions(); err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "tls.crt")) {
		t.Errorf("empty directory: err = %v, want one naming %s", err, filepath.Join(dir, "tls.crt"))
	}
	for _, name := range []string{"tls.crt", "tls.key"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	o, err := f.serverOptions()
	if err != nil {
		t.Fatal(err)
	}
	if o.CertDir != dir || o.CertName != "tls.crt" || o.KeyName != "tls.key" {
		t.Errorf("cert dir %q, name %q, key %q", o.CertDir, o.CertName, o.KeyName)
	}
}
