package tlsprofile_test

import (
	"crypto/tls"
	"testing"

	ocpconfigv1 "github.com/openshift/api/config/v1"
	"github.com/stretchr/testify/assert"
	kvv1 "kubevirt.io/api/core/v1"

	"github.com/hcokit/hcokit/tlsprofile"
)

var intermediateIANACiphers = []string{
	"TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256",
	"TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
	"TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
	"TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
}

func TestForKubeVirt(t *testing.T) {
	tests := []struct {
		name    string
		profile *ocpconfigv1.TLSSecurityProfile
		want    *kvv1.TLSConfiguration
	}{
		{name: "unset is Intermediate", want: &kvv1.TLSConfiguration{MinTLSVersion: kvv1.VersionTLS12, Ciphers: intermediateIANACiphers}},
		{
			name:    "Intermediate",
			profile: &ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileIntermediateType, Intermediate: &ocpconfigv1.IntermediateTLSProfile{}},
			want:    &kvv1.TLSConfiguration{MinTLSVersion: kvv1.VersionTLS12, Ciphers: intermediateIANACiphers},
		},
		{
			name:    "Modern: the minimum version only",
			profile: &ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileModernType, Modern: &ocpconfigv1.ModernTLSProfile{}},
			want:    &kvv1.TLSConfiguration{MinTLSVersion: kvv1.VersionTLS13},
		},
		{
			name: "Custom: its ciphers, unknown names dropped",
			profile: &ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileCustomType, Custom: &ocpconfigv1.CustomTLSProfile{
				TLSProfileSpec: ocpconfigv1.TLSProfileSpec{Ciphers: []string{"ECDHE-RSA-AES128-GCM-SHA256", "NO-SUCH-CIPHER", "AES128-SHA"}, MinTLSVersion: ocpconfigv1.VersionTLS11},
			}},
			want: &kvv1.TLSConfiguration{MinTLSVersion: kvv1.VersionTLS11, Ciphers: []string{"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_RSA_WITH_AES_128_CBC_SHA"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tlsprofile.ForKubeVirt(tlsprofile.Resolve(tc.profile, nil)))
		})
	}
}

// TestOldProfile: every cipher of openshift/api's Old profile that Go knows
// is mapped, TLS 1.0 is the minimum.
func TestForKubeVirtOld(t *testing.T) {
	got := tlsprofile.ForKubeVirt(&ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileOldType, Old: &ocpconfigv1.OldTLSProfile{}})
	assert.Equal(t, kvv1.VersionTLS10, got.MinTLSVersion)
	assert.Contains(t, got.Ciphers, "TLS_RSA_WITH_3DES_EDE_CBC_SHA")
	assert.Subset(t, got.Ciphers, intermediateIANACiphers)
	for _, c := range got.Ciphers {
		assert.NotEmpty(t, c)
	}
}

// TestIANACiphersAreGoCipherSuites: every cipher of openshift/api's
// profiles maps to a name crypto/tls knows, so KubeVirt can use it.
func TestIANACiphersAreGoCipherSuites(t *testing.T) {
	known := map[string]bool{}
	for _, c := range append(tls.CipherSuites(), tls.InsecureCipherSuites()...) {
		known[c.Name] = true
	}
	for profile, spec := range ocpconfigv1.TLSProfiles {
		for _, name := range tlsprofile.IANACiphers(spec.Ciphers) {
			if !known[name] {
				t.Errorf("profile %s: %q is not a crypto/tls cipher suite", profile, name)
			}
		}
	}
}
