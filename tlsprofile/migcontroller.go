package tlsprofile

import (
	"slices"

	ocpconfigv1 "github.com/openshift/api/config/v1"

	migv1alpha1 "github.com/hcokit/hcokit/operands/migcontroller/api/v1alpha1"
)

// ForMigController converts a resolved profile to the MigController's own
// type (spec.tlsSecurityProfile), field for field as upstream's
// openshift2MigrationSecProfile: the type, the empty Old/Intermediate/Modern
// markers as set, and Custom's ciphers and minimum version. nil gives nil.
func ForMigController(p *ocpconfigv1.TLSSecurityProfile) *migv1alpha1.TLSSecurityProfile {
	if p == nil {
		return nil
	}
	out := &migv1alpha1.TLSSecurityProfile{Type: migv1alpha1.TLSProfileType(p.Type)}
	if p.Old != nil {
		out.Old = &migv1alpha1.OldTLSProfile{}
	}
	if p.Intermediate != nil {
		out.Intermediate = &migv1alpha1.IntermediateTLSProfile{}
	}
	if p.Modern != nil {
		out.Modern = &migv1alpha1.ModernTLSProfile{}
	}
	if p.Custom != nil {
		out.Custom = &migv1alpha1.CustomTLSProfile{TLSProfileSpec: migv1alpha1.TLSProfileSpec{
			Ciphers:       slices.Clone(p.Custom.Ciphers),
			MinTLSVersion: migv1alpha1.TLSProtocolVersion(p.Custom.MinTLSVersion),
		}}
	}
	return out
}
