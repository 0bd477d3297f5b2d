package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

// writeKeyPair writes a new self-signed certificate and key for name into
// dir as tls.crt and tls.key.
func writeKeyPair(t *testing.T, dir, name string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: name}, DNSNames: []string{name},
		NotBefore: time.Now().Add(-time.Minute), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	keyDER, err := x509.MarshalECPrivateKey(key)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tls.crt"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tls.key"), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600))
}

// The metrics certificate from --metrics-cert-path: refused while its files
// are missing (a Secret not filled yet), served once they exist, and the
// new one once they change.
func TestMetricsCertificateFollowsItsFiles(t *testing.T) {
	dir := t.TempDir()
	f := metricsFlags{addr: ":0", secure: true, certPath: dir, certName: "tls.crt", certKey: "tls.key"}
	o, err := f.serverOptions()
	require.NoError(t, err, "missing files are not an error at start")
	cfg := &tls.Config{}
	for _, opt := range o.TLSOpts {
		opt(cfg)
	}
	require.NotNil(t, cfg.GetCertificate)
	_, err = cfg.GetCertificate(nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not mounted yet")

	served := func() string {
		t.Helper()
		c, err := cfg.GetCertificate(nil)
		require.NoError(t, err)
		leaf, err := x509.ParseCertificate(c.Certificate[0])
		require.NoError(t, err)
		return leaf.Subject.CommonName
	}
	writeKeyPair(t, dir, "first")
	assert.Equal(t, "first", served())
	writeKeyPair(t, dir, "second")
	assert.Equal(t, "second", served())
}
