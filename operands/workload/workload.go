package workload

import (
	"strings"

	ocpconfigv1 "github.com/openshift/api/config/v1"
	corev1 "k8s.io/api/core/v1"
)

// RestrictedSecurityContext is the security context of a container that
// meets the restricted Pod Security Standard, as upstream HCO sets it on
// the workloads it deploys: no privilege escalation, a read-only root
// filesystem, a non-root user, every capability dropped and the runtime's
// default seccomp profile. Each call returns a new one.
func RestrictedSecurityContext() *corev1.SecurityContext {
	return &corev1.SecurityContext{
		AllowPrivilegeEscalation: new(false),
		ReadOnlyRootFilesystem:   new(true),
		RunAsNonRoot:             new(true),
		Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
		SeccompProfile:           &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
	}
}

// TLSFlags are the TLS arguments of a workload serving with Go's usual
// flags, each named with dash ("-" or "--") before it: tls-min-version when
// minVersion is set, and, below TLS 1.3 (where Go lets no cipher be
// chosen), tls-cipher-suites with ciphers comma-separated when there are
// any, as upstream HCO passes them.
func TLSFlags(dash string, minVersion ocpconfigv1.TLSProtocolVersion, ciphers []string) []string {
	var args []string
	if minVersion != "" {
		args = append(args, dash+"tls-min-version="+string(minVersion))
	}
	if minVersion < ocpconfigv1.VersionTLS13 && len(ciphers) > 0 {
		args = append(args, dash+"tls-cipher-suites="+strings.Join(ciphers, ","))
	}
	return args
}
