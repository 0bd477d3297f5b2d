package tlsprofile

import (
	ocpconfigv1 "github.com/openshift/api/config/v1"
	kvv1 "kubevirt.io/api/core/v1"
)

// ForKubeVirt returns KubeVirt's configuration.tlsConfiguration for a
// resolved profile (see [Resolve]; nil means Intermediate), as upstream HCO
// does: the minimum version, and the ciphers as IANA names, those without
// one dropped. A Modern profile sets only the minimum version (Go does not
// let TLS 1.3 suites be chosen).
func ForKubeVirt(p *ocpconfigv1.TLSSecurityProfile) *kvv1.TLSConfiguration {
	s := Spec(p)
	out := &kvv1.TLSConfiguration{MinTLSVersion: kubeVirtVersion(s.MinTLSVersion)}
	if p != nil && p.Type != ocpconfigv1.TLSProfileCustomType && p.Modern != nil {
		return out
	}
	out.Ciphers = IANACiphers(s.Ciphers)
	return out
}

// kubeVirtVersion maps a TLS version; anything unknown is TLS 1.2, as upstream.
func kubeVirtVersion(v ocpconfigv1.TLSProtocolVersion) kvv1.TLSProtocolVersion {
	switch v {
	case ocpconfigv1.VersionTLS10:
		return kvv1.VersionTLS10
	case ocpconfigv1.VersionTLS11:
		return kvv1.VersionTLS11
	case ocpconfigv1.VersionTLS13:
		return kvv1.VersionTLS13
	default:
		return kvv1.VersionTLS12
	}
}

// IANACiphers returns the IANA names of the OpenSSL cipher names, in order,
// dropping those without one, as openshift/library-go's
// OpenSSLToIANACipherSuites (which upstream HCO uses) does. Nil when none is
// left.
func IANACiphers(openssl []string) []string {
	var out []string
	for _, c := range openssl {
		if iana := IANACipher(c); iana != "" {
			out = append(out, iana)
		}
	}
	return out
}

// IANACipher returns the IANA name of an OpenSSL cipher name, "" when it has
// none. TLS 1.3 suites have the same name in both.
func IANACipher(openssl string) string {
	switch openssl {
	// TLS 1.3
	case "TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256":
		return openssl
	// TLS 1.2
	case "ECDHE-ECDSA-AES128-GCM-SHA256":
		return "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"
	case "ECDHE-RSA-AES128-GCM-SHA256":
		return "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"
	case "ECDHE-ECDSA-AES256-GCM-SHA384":
		return "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"
	case "ECDHE-RSA-AES256-GCM-SHA384":
		return "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384"
	case "ECDHE-ECDSA-CHACHA20-POLY1305":
		return "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256"
	case "ECDHE-RSA-CHACHA20-POLY1305":
		return "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256"
	case "ECDHE-ECDSA-AES128-SHA256":
		return "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256"
	case "ECDHE-RSA-AES128-SHA256":
		return "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256"
	case "AES128-GCM-SHA256":
		return "TLS_RSA_WITH_AES_128_GCM_SHA256"
	case "AES256-GCM-SHA384":
		return "TLS_RSA_WITH_AES_256_GCM_SHA384"
	case "AES128-SHA256":
		return "TLS_RSA_WITH_AES_128_CBC_SHA256"
	// TLS 1.0
	case "ECDHE-ECDSA-AES128-SHA":
		return "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA"
	case "ECDHE-RSA-AES128-SHA":
		return "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA"
	case "ECDHE-ECDSA-AES256-SHA":
		return "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA"
	case "ECDHE-RSA-AES256-SHA":
		return "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA"
	// SSL 3.0
	case "AES128-SHA":
		return "TLS_RSA_WITH_AES_128_CBC_SHA"
	case "AES256-SHA":
		return "TLS_RSA_WITH_AES_256_CBC_SHA"
	case "DES-CBC3-SHA":
		return "TLS_RSA_WITH_3DES_EDE_CBC_SHA"
	}
	return ""
}
