package tlsprofile_test

import (
	"crypto/tls"
	"testing"

	ocpconfigv1 "github.com/openshift/api/config/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hcokit/hcokit/tlsprofile"
)

func TestForGoServer(t *testing.T) {
	intermediate := []uint16{
		tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
		tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
		tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
	}
	custom := func(min ocpconfigv1.TLSProtocolVersion, ciphers ...string) *ocpconfigv1.TLSSecurityProfile {
		return &ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileCustomType, Custom: &ocpconfigv1.CustomTLSProfile{
			TLSProfileSpec: ocpconfigv1.TLSProfileSpec{Ciphers: ciphers, MinTLSVersion: min}}}
	}
	for _, tc := range []struct {
		name    string
		profile *ocpconfigv1.TLSSecurityProfile
		min     uint16
		suites  []uint16
		wantErr string
	}{
		{name: "unset is Intermediate: TLS 1.2, its six 1.2 suites", min: tls.VersionTLS12, suites: intermediate},
		{name: "Modern: TLS 1.3, no list", profile: &ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileModernType, Modern: &ocpconfigv1.ModernTLSProfile{}}, min: tls.VersionTLS13},
		{name: "Old: TLS 1.0, the suites Go implements, insecure ones included as asked",
			profile: &ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileOldType, Old: &ocpconfigv1.OldTLSProfile{}}, min: tls.VersionTLS10},
		{name: "Custom: its order, unknown and TLS 1.3 names dropped",
			profile: custom(ocpconfigv1.VersionTLS11, "TLS_AES_128_GCM_SHA256", "ECDHE-RSA-AES256-GCM-SHA384", "DHE-RSA-AES128-GCM-SHA256", "ECDHE-RSA-AES128-GCM-SHA256"),
			min:     tls.VersionTLS11, suites: []uint16{tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384, tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256}},
		{name: "Custom with no cipher Go knows is refused, naming the field",
			profile: custom(ocpconfigv1.VersionTLS12, "DHE-RSA-AES128-GCM-SHA256"), wantErr: "spec.security.tlsSecurityProfile"},
		{name: "Custom TLS 1.3 needs no cipher", profile: custom(ocpconfigv1.VersionTLS13), min: tls.VersionTLS13},
	} {
		t.Run(tc.name, func(t *testing.T) {
			min, suites, err := tlsprofile.ForGoServer(tc.profile)
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.min, min)
			if tc.profile != nil && tc.profile.Type == ocpconfigv1.TLSProfileOldType {
				assert.Contains(t, suites, tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA)
				assert.Contains(t, suites, tls.TLS_RSA_WITH_3DES_EDE_CBC_SHA, "Old names DES-CBC3-SHA")
				return
			}
			assert.Equal(t, tc.suites, suites)
		})
	}
}
