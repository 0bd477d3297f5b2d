package workload_test

import (
	"testing"

	ocpconfigv1 "github.com/openshift/api/config/v1"
	"github.com/stretchr/testify/assert"

	"github.com/hcokit/hcokit/operands/workload"
)

func TestTLSFlags(t *testing.T) {
	ciphers := []string{"TLS_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"}
	assert.Empty(t, workload.TLSFlags("-", "", nil))
	assert.Equal(t, []string{"--tls-min-version=VersionTLS12", "--tls-cipher-suites=TLS_AES_128_GCM_SHA256,TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"},
		workload.TLSFlags("--", ocpconfigv1.VersionTLS12, ciphers))
	assert.Equal(t, []string{"-tls-min-version=VersionTLS13"}, workload.TLSFlags("-", ocpconfigv1.VersionTLS13, ciphers), "TLS 1.3: no cipher is chosen")
	assert.Equal(t, []string{"-tls-cipher-suites=TLS_AES_128_GCM_SHA256,TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"}, workload.TLSFlags("-", "", ciphers))
}

func TestRestrictedSecurityContext(t *testing.T) {
	a, b := workload.RestrictedSecurityContext(), workload.RestrictedSecurityContext()
	assert.Equal(t, a, b)
	*a.RunAsNonRoot = false
	assert.True(t, *b.RunAsNonRoot, "each call returns its own")
	assert.Equal(t, []string{"ALL"}, []string{string(b.Capabilities.Drop[0])})
}
