package consoleplugin

import (
	"fmt"
	"strings"

	ocpconfigv1 "github.com/openshift/api/config/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/tlsprofile"
)

// BuildNginxConfigMap returns the plugin's nginx configuration (NginxConfig).
func BuildNginxConfigMap(hc *hcov1.HyperConverged, facts hco.Facts) (*corev1.ConfigMap, error) {
	return &corev1.ConfigMap{
		TypeMeta:   configMapType,
		ObjectMeta: metav1.ObjectMeta{Name: NginxConfigMap, Namespace: hc.Namespace, Labels: hco.Labels(hc, facts.Environment, PluginComponent)},
		Data:       map[string]string{"nginx.conf": NginxConfig(tlsprofile.Spec(tlsprofile.Resolve(hc.Spec.Security.TLSSecurityProfile, facts.ClusterTLSProfile)))},
	}, nil
}

// NginxConfig is the plugin's nginx.conf, byte for byte upstream's (its
// templates/nginx.conf.tmpl at 03da3cf): TLS on PluginPort, IPv4 and
// IPv6, with the serving certificate, the protocols from the profile's
// minimum version up and, below TLS 1.3, its ciphers (OpenSSL names); the
// plugin's manifest and entry never cached.
func NginxConfig(s ocpconfigv1.TLSProfileSpec) string {
	var b strings.Builder
	line := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	line("error_log /dev/stdout info;")
	line("events {}")
	line("http {")
	line("\taccess_log         /dev/stdout;")
	line("\tinclude            /etc/nginx/mime.types;")
	line("\tdefault_type       application/octet-stream;")
	line("\tkeepalive_timeout  65;")
	line("\tadd_header X-Content-Type-Options nosniff;")
	line("\t\tserver {")
	line("\t\t\tlisten              %d ssl;", PluginPort)
	line("\t\t\tlisten              [::]:%d ssl;", PluginPort)
	line("\t\t\tssl_certificate     %s/tls.crt;", pluginCertPath)
	line("\t\t\tssl_certificate_key %s/tls.key;", pluginCertPath)
	line("\t\t\tssl_protocols       %s;", nginxProtocols(s.MinTLSVersion))
	if s.MinTLSVersion != ocpconfigv1.VersionTLS13 && len(s.Ciphers) > 0 {
		line("\t\t\tssl_ciphers         %s;", strings.Join(s.Ciphers, ":"))
	}
	line("\t\t\tssl_ecdh_curve SecP256r1MLKEM768:SecP384r1MLKEM1024:secp256r1:secp384r1;")
	line("\t\t\troot                /usr/share/nginx/html;")
	line("")
	line(`			# Prevent caching for plugin-manifest.json and plugin-entry.js`)
	line(`			# to avoid "Unexpected end of JSON input" error`)
	for _, file := range []string{"/plugin-manifest.json", "/plugin-entry.js"} {
		line("\t\t\tlocation = %s {", file)
		line("\t\t\t  add_header Cache-Control 'no-cache, no-store, must-revalidate, proxy-revalidate, max-age=0';")
		line("\t\t\t  add_header Pragma 'no-cache';")
		line("\t\t\t  add_header Expires '0';")
		line("\t\t\t}")
	}
	line("        }")
	line("\t}")
	return b.String()
}

// nginxProtocols lists the TLS protocols nginx serves from min up.
func nginxProtocols(min ocpconfigv1.TLSProtocolVersion) string {
	switch min {
	case ocpconfigv1.VersionTLS10:
		return "TLSv1 TLSv1.1 TLSv1.2 TLSv1.3"
	case ocpconfigv1.VersionTLS11:
		return "TLSv1.1 TLSv1.2 TLSv1.3"
	case ocpconfigv1.VersionTLS13:
		return "TLSv1.3"
	}
	return "TLSv1.2 TLSv1.3"
}
