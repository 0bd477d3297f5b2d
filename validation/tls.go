package validation

import (
	"slices"

	ocpconfigv1 "github.com/openshift/api/config/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// http2Ciphers are the ciphers of which HTTP/2 requires one below TLS 1.3
// (RFC 7540 section 9.2.2: TLS_ECDHE_*_WITH_AES_128_GCM_SHA256); Go's HTTP/2
// server refuses to start without it.
var http2Ciphers = []string{"ECDHE-RSA-AES128-GCM-SHA256", "ECDHE-ECDSA-AES128-GCM-SHA256"}

// TLSSecurityProfile checks spec.security.tlsSecurityProfile as upstream
// HCO's webhook does: a Custom type needs its custom profile, a custom
// minimum version must be a known one, below TLS 1.3 the ciphers must hold
// one that HTTP/2 requires, and at TLS 1.3 no cipher may be listed (Go
// serves all TLS 1.3 suites and lets none be chosen).
func TLSSecurityProfile(p *ocpconfigv1.TLSSecurityProfile, path *field.Path) field.ErrorList {
	if p == nil {
		return nil
	}
	if p.Custom == nil {
		if p.Type == ocpconfigv1.TLSProfileCustomType {
			return field.ErrorList{field.Required(path.Child("custom"), "type Custom needs the custom profile (ciphers and minTLSVersion)")}
		}
		return nil
	}
	custom := path.Child("custom")
	switch v := p.Custom.MinTLSVersion; v {
	case ocpconfigv1.VersionTLS10, ocpconfigv1.VersionTLS11, ocpconfigv1.VersionTLS12:
		if !slices.ContainsFunc(p.Custom.Ciphers, func(c string) bool { return slices.Contains(http2Ciphers, c) }) {
			return field.ErrorList{field.Invalid(custom.Child("ciphers"), p.Custom.Ciphers,
				"below TLS 1.3, HTTP/2 needs one of ECDHE-RSA-AES128-GCM-SHA256 or ECDHE-ECDSA-AES128-GCM-SHA256: add one")}
		}
	case ocpconfigv1.VersionTLS13:
		if len(p.Custom.Ciphers) > 0 {
			return field.ErrorList{field.Invalid(custom.Child("ciphers"), p.Custom.Ciphers,
				"with minTLSVersion VersionTLS13 no cipher can be chosen (TLS 1.3 suites are not configurable): remove the list")}
		}
	default:
		return field.ErrorList{field.NotSupported(custom.Child("minTLSVersion"), v,
			[]string{string(ocpconfigv1.VersionTLS10), string(ocpconfigv1.VersionTLS11), string(ocpconfigv1.VersionTLS12), string(ocpconfigv1.VersionTLS13)})}
	}
	return nil
}
