package tlsprofile

import (
	ocpconfigv1 "github.com/openshift/api/config/v1"
	kvv1 "kubevirt.io/api/core/v1"
)

// Effective returns the profile in force: p, or Intermediate when p is nil.
// Upstream HCO falls back to the cluster's APIServer profile on OpenShift
// before Intermediate; hcokit does not read the APIServer.
func Effective(p *ocpconfigv1.TLSSecurityProfile) *ocpconfigv1.TLSSecurityProfile {
	if p == nil {
		return &ocpconfigv1.TLSSecurityProfile{
			Type:         ocpconfigv1.TLSProfileIntermediateType,
			Intermediate: &ocpconfigv1.IntermediateTLSProfile{},
		}
	}
	return p
}

// Spec returns the ciphers (OpenSSL names) and minimum version of p, nil
// meaning Intermediate. A Custom profile gives its own; a named one (Old,
// Intermediate, Modern) gives openshift/api's TLSProfiles entry. A type
// without an entry (or Custom without its settings) gives Intermediate's.
func Spec(p *ocpconfigv1.TLSSecurityProfile) ocpconfigv1.TLSProfileSpec {
	p = Effective(p)
	if p.Custom != nil {
		return ocpconfigv1.TLSProfileSpec{
			Ciphers:       append([]string(nil), p.Custom.Ciphers...),
			MinTLSVersion: p.Custom.MinTLSVersion,
		}
	}
	s, ok := ocpconfigv1.TLSProfiles[p.Type]
	if !ok || s == nil {
		s = ocpconfigv1.TLSProfiles[ocpconfigv1.TLSProfileIntermediateType]
	}
	return ocpconfigv1.TLSProfileSpec{Ciphers: append([]string(nil), s.Ciphers...), MinTLSVersion: s.MinTLSVersion}
}

// ForKubeVirt returns KubeVirt's configuration.tlsConfiguration for p (nil
// meaning Intermediate). As upstream HCO does, a Modern profile sets only the
// minimum version (Go does not let TLS 1.3 ciphers be chosen), and cipher
// names without an IANA equivalent are dropped.
func ForKubeVirt(p *ocpconfigv1.TLSSecurityProfile) *kvv1.TLSConfiguration {
	p = Effective(p)
	s := Spec(p)
	out := &kvv1.TLSConfiguration{MinTLSVersion: kubeVirtVersion(s.MinTLSVersion)}
	if p.Custom == nil && p.Modern != nil {
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
// dropping those without one (as openshift/library-go's
// OpenSSLToIANACipherSuites, which upstream HCO uses). Nil when none is left.
func IANACiphers(openssl []string) []string {
	var out []string
	for _, c := range openssl {
		if iana := IANACipher(c); iana != "" {
			out = append(out, iana)
		}
	}
	return out
}

// IANACipher returns the IANA name of an OpenSSL cipher name, "" when it
// has none. TLS 1.3 suites have the same name in both.
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
