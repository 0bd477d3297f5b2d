package tlsprofile

import (
	"crypto/tls"
	"fmt"

	ocpconfigv1 "github.com/openshift/api/config/v1"
)

// ForGoServer returns the minimum version and the cipher suites a Go TLS
// server (crypto/tls) serves for a resolved profile (see [Resolve]; nil
// means Intermediate). The ciphers are the profile's, in its order, mapped
// through their IANA names to crypto/tls's suite IDs, those crypto/tls does
// not implement dropped (Old's DHE suites, say); TLS 1.3 suites are left
// out, since Go serves all of them whatever the list. A profile whose TLS
// 1.0–1.2 ciphers are all unknown to Go is an error: an empty list would
// mean Go's defaults, wider than what the admin asked for.
func ForGoServer(p *ocpconfigv1.TLSSecurityProfile) (minVersion uint16, cipherSuites []uint16, err error) {
	s := Spec(p)
	minVersion = goVersion(s.MinTLSVersion)
	if minVersion >= tls.VersionTLS13 {
		return minVersion, nil, nil
	}
	ids := map[string]uint16{}
	for _, list := range [][]*tls.CipherSuite{tls.CipherSuites(), tls.InsecureCipherSuites()} {
		for _, c := range list {
			ids[c.Name] = c.ID
		}
	}
	for _, name := range IANACiphers(s.Ciphers) {
		if id, ok := ids[name]; ok && !isTLS13Suite(id) {
			cipherSuites = append(cipherSuites, id)
		}
	}
	if len(cipherSuites) == 0 {
		return 0, nil, fmt.Errorf("spec.security.tlsSecurityProfile: none of the ciphers %v is a TLS 1.0-1.2 cipher Go implements; list one (e.g. ECDHE-RSA-AES128-GCM-SHA256) or set minTLSVersion VersionTLS13", s.Ciphers)
	}
	return minVersion, cipherSuites, nil
}

// goVersion maps a TLS version; anything unknown is TLS 1.2, as upstream.
func goVersion(v ocpconfigv1.TLSProtocolVersion) uint16 {
	switch v {
	case ocpconfigv1.VersionTLS10:
		return tls.VersionTLS10
	case ocpconfigv1.VersionTLS11:
		return tls.VersionTLS11
	case ocpconfigv1.VersionTLS13:
		return tls.VersionTLS13
	default:
		return tls.VersionTLS12
	}
}

func isTLS13Suite(id uint16) bool {
	return id == tls.TLS_AES_128_GCM_SHA256 || id == tls.TLS_AES_256_GCM_SHA384 || id == tls.TLS_CHACHA20_POLY1305_SHA256
}
