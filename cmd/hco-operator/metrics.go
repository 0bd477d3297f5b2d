package main

import (
	"crypto/tls"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sync"

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
	fs.StringVar(&f.certPath, "metrics-cert-path", "", "Directory holding the metrics serving certificate and key (a mounted Secret), read when they change; until they exist the endpoint refuses handshakes. Empty means a self-signed certificate made at start.")
	fs.StringVar(&f.certName, "metrics-cert-name", "tls.crt", "Certificate file name in --metrics-cert-path.")
	fs.StringVar(&f.certKey, "metrics-cert-key", "tls.key", "Key file name in --metrics-cert-path.")
}

// serverOptions are controller-runtime's metrics server options for the
// flags. Secure serving authenticates and authorizes every scrape against
// the API server (metricsauth: TokenReview and SubjectAccessReview, the
// decisions cached), and speaks HTTP/1.1 only, as kubebuilder does (HTTP/2
// stream-reset attacks). The TLS versions and ciphers are the
// HyperConverged's TLS profile, per connection: manager.New (operator)
// and runWebhook add that option. With --metrics-cert-path the certificate
// is read from its files (fileCertificate): a mounted Secret is filled after
// the pod starts (by the webhook's rotator, or cert-manager), so until its
// files exist the endpoint refuses handshakes rather than fall back to a
// self-signed certificate, and the process runs meanwhile.
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
	files := &fileCertificate{cert: filepath.Join(f.certPath, f.certName), key: filepath.Join(f.certPath, f.certKey)}
	o.TLSOpts = append(o.TLSOpts, func(c *tls.Config) { c.GetCertificate = files.get })
	return o, nil
}

// fileCertificate is a certificate and key read from files, again whenever
// either file changes (its modification time or size): a mounted Secret is
// updated in place by the kubelet.
type fileCertificate struct {
	cert, key string

	mu        sync.Mutex
	loaded    *tls.Certificate
	certStamp string
	keyStamp  string
}

func stamp(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%d/%d", fi.ModTime().UnixNano(), fi.Size()), nil
}

func (f *fileCertificate) get(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	cs, err := stamp(f.cert)
	if err != nil {
		return nil, fmt.Errorf("metrics certificate: %w (not mounted yet?)", err)
	}
	ks, err := stamp(f.key)
	if err != nil {
		return nil, fmt.Errorf("metrics certificate key: %w (not mounted yet?)", err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.loaded != nil && cs == f.certStamp && ks == f.keyStamp {
		return f.loaded, nil
	}
	c, err := tls.LoadX509KeyPair(f.cert, f.key)
	if err != nil {
		return nil, fmt.Errorf("metrics certificate: %w", err)
	}
	f.loaded, f.certStamp, f.keyStamp = &c, cs, ks
	return f.loaded, nil
}
