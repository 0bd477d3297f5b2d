package tlsprofile

import (
	"slices"

	ocpconfigv1 "github.com/openshift/api/config/v1"

	aaqv1alpha1 "github.com/hcokit/hcokit/operands/aaq/api/v1alpha1"
)

// ForAAQ converts a resolved profile to the AAQ's own
// type (spec.tlsSecurityProfile), field for field as upstream's
// openshift2AAQSecProfile: the type, the empty Old/Intermediate/Modern
// markers as set, and Custom's ciphers and minimum version. nil gives nil.
func ForAAQ(p *ocpconfigv1.TLSSecurityProfile) *aaqv1alpha1.TLSSecurityProfile {
	if p == nil {
		return nil
	}
	out := &aaqv1alpha1.TLSSecurityProfile{Type: aaqv1alpha1.TLSProfileType(p.Type)}
	if p.Old != nil {
		out.Old = &aaqv1alpha1.OldTLSProfile{}
	}
	if p.Intermediate != nil {
		out.Intermediate = &aaqv1alpha1.IntermediateTLSProfile{}
	}
	if p.Modern != nil {
		out.Modern = &aaqv1alpha1.ModernTLSProfile{}
	}
	if p.Custom != nil {
		out.Custom = &aaqv1alpha1.CustomTLSProfile{TLSProfileSpec: aaqv1alpha1.TLSProfileSpec{
			Ciphers:       slices.Clone(p.Custom.Ciphers),
			MinTLSVersion: aaqv1alpha1.TLSProtocolVersion(p.Custom.MinTLSVersion),
		}}
	}
	return out
}
