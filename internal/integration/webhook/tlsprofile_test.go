package webhook

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"testing"

	ocpconfigv1 "github.com/openshift/api/config/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	certutil "k8s.io/client-go/util/cert"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/clustertls"
)

// TestServersFollowTheTLSProfile: a server with clustertls.ServeProfile serves
// each new connection with the HyperConverged's spec.tlsSecurityProfile as
// it is then: Intermediate without one, TLS 1.3 only once it is Modern, the
// custom ciphers once it is Custom, and Intermediate again once the
// HyperConverged is gone. No restart in between.
func TestServersFollowTheTLSProfile(t *testing.T) {
	env.Require(t)
	// The option goes on the config the server listens with, as
	// controller-runtime's servers apply it (httptest would clone it).
	certPEM, keyPEM, err := certutil.GenerateSelfSignedCertKey("127.0.0.1", nil, nil)
	require.NoError(t, err)
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	require.NoError(t, err)
	cfg := &tls.Config{Certificates: []tls.Certificate{pair}}
	clustertls.ServeProfile(k, client.ObjectKey{Namespace: ns, Name: v1beta1.HyperConvergedName}, false)(cfg)
	listener, err := tls.Listen("tcp", "127.0.0.1:0", cfg)
	require.NoError(t, err)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })}
	go func() { _ = srv.Serve(listener) }()
	t.Cleanup(func() { _ = srv.Close() })
	url := "https://" + listener.Addr().String()
	roots := x509.NewCertPool()
	require.True(t, roots.AppendCertsFromPEM(certPEM))

	// dial makes a fresh connection with at most TLS 1.2 (and only the
	// given suites) or with TLS 1.3, and says whether the handshake worked.
	dial := func(maxVersion uint16, suites ...uint16) error {
		c := &http.Client{Transport: &http.Transport{
			TLSClientConfig:   &tls.Config{RootCAs: roots, ServerName: "127.0.0.1", MaxVersion: maxVersion, CipherSuites: suites},
			DisableKeepAlives: true,
		}}
		resp, err := c.Get(url)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	const aes128, aes256 = tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384

	assert.NoError(t, dial(tls.VersionTLS12), "no HyperConverged: Intermediate allows TLS 1.2")
	assert.Error(t, dial(tls.VersionTLS11), "Intermediate refuses TLS 1.1")

	createHC(t, func(hc *v1beta1.HyperConverged) {
		hc.Spec.TLSSecurityProfile = &ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileModernType, Modern: &ocpconfigv1.ModernTLSProfile{}}
	})
	assert.Error(t, dial(tls.VersionTLS12), "Modern refuses TLS 1.2")
	assert.NoError(t, dial(tls.VersionTLS13), "Modern serves TLS 1.3")

	require.NoError(t, updateHC(t, func(hc *v1beta1.HyperConverged) {
		hc.Spec.TLSSecurityProfile = &ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileCustomType, Custom: &ocpconfigv1.CustomTLSProfile{
			TLSProfileSpec: ocpconfigv1.TLSProfileSpec{MinTLSVersion: ocpconfigv1.VersionTLS12, Ciphers: []string{"ECDHE-RSA-AES128-GCM-SHA256"}}}}
	}))
	assert.NoError(t, dial(tls.VersionTLS12, aes128), "Custom serves its cipher")
	assert.Error(t, dial(tls.VersionTLS12, aes256), "Custom refuses a cipher it does not list")

	deleteHC(t, getHC(t))
	assert.NoError(t, dial(tls.VersionTLS12, aes256), "HyperConverged gone: Intermediate again")
}

func getHC(t *testing.T) *v1beta1.HyperConverged {
	t.Helper()
	hc := &v1beta1.HyperConverged{}
	require.NoError(t, k.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: v1beta1.HyperConvergedName}, hc))
	return hc
}
