package main

import (
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/hcokit/hcokit/metricsauth"
)

// metricsFlags are the metrics endpoint's flags, shared by the operator and
// the webhook; they keep kubebuilder's names and defaults.
type metricsFlags struct {
	addr                        string
	secure                      bool
	certPath, certName, certKey string
}

// defaultMetricsAddr is kubebuilder's HTTPS metrics port.
const defaultMetricsAddr = ":8443"

func addMetricsFlags(fs *flag.FlagSet, f *metricsFlags) {
	fs.StringVar(&f.addr, "metrics-bind-address", defaultMetricsAddr, `Address of the metrics endpoint; "0" disables it.`)
	fs.BoolVar(&f.secure, "metrics-secure", true, "Serve metrics over HTTPS, only to clients whose token the API server authenticates and allows to GET /metrics (TokenReview, SubjectAccessReview); false serves plain HTTP to anyone.")
	fs.StringVar(&f.certPath, "metrics-cert-path", "", "Directory holding the metrics serving certificate and key, reloaded when they change; empty means a self-signed certificate made at start.")
	fs.StringVar(&f.certName, "metrics-cert-name", "tls.crt", "Certificate file name in --metrics-cert-path.")
	fs.StringVar(&f.certKey, "metrics-cert-key", "tls.key", "Key file name in --metrics-cert-path.")
}

// serverOptions are controller-runtime's metrics server options for the
// flags. Secure serving authenticates and authorizes every scrape against
// the API server (metricsauth: TokenReview and SubjectAccessReview, the
// decisions cached), and speaks HTTP/1.1 only, as kubebuilder does (HTTP/2 stream-reset
// attacks). The TLS versions and ciphers are the HyperConverged's TLS
// profile, per connection: hco.NewManager (operator) and runWebhook add
// that option. A --metrics-cert-path whose files are missing is an error: the
// server would otherwise fall back to a self-signed certificate silently.
func (f metricsFlags) serverOptions() (metricsserver.Options, error) {
	o := metricsserver.Options{BindAddress: f.addr}
	if !f.secure {
		return o, nil
	}
	o.SecureServing = true
	o.FilterProvider = metricsauth.FilterProvider(metricsauth.Options{})
	o.TLSOpts = []func(*tls.Config){func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} }}
	if f.certPath == "" {
		return o, nil
	}
	for _, name := range []string{f.certName, f.certKey} {
		p := filepath.Join(f.certPath, name)
		if _, err := os.Stat(p); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return o, fmt.Errorf("--metrics-cert-path: %s does not exist; mount the certificate Secret there, or leave the flag empty for a self-signed certificate", p)
			}
			return o, fmt.Errorf("--metrics-cert-path: %w", err)
		}
	}
	o.CertDir, o.CertName, o.KeyName = f.certPath, f.certName, f.certKey
	return o, nil
}
