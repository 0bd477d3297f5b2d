package tlsprofile

import (
	"slices"

	ocpconfigv1 "github.com/openshift/api/config/v1"

	frv1alpha1 "github.com/hcokit/hcokit/operands/filerestore/api/v1alpha1"
)

// ForFileRestore converts a resolved profile to the FileRestoreOperator's own
// type (spec.tlsSecurityProfile), field for field as upstream's
// openshift2FileRestoreSecProfile: the type, the empty Old/Intermediate/Modern
// markers as set, and Custom's ciphers and minimum version. nil gives nil.
func ForFileRestore(p *ocpconfigv1.TLSSecurityProfile) *frv1alpha1.TLSSecurityProfile {
	if p == nil {
		return nil
	}
	out := &frv1alpha1.TLSSecurityProfile{Type: frv1alpha1.TLSProfileType(p.Type)}
	if p.Old != nil {
		out.Old = &frv1alpha1.OldTLSProfile{}
	}
	if p.Intermediate != nil {
		out.Intermediate = &frv1alpha1.IntermediateTLSProfile{}
	}
	if p.Modern != nil {
		out.Modern = &frv1alpha1.ModernTLSProfile{}
	}
	if p.Custom != nil {
		out.Custom = &frv1alpha1.CustomTLSProfile{TLSProfileSpec: frv1alpha1.TLSProfileSpec{
			Ciphers:       slices.Clone(p.Custom.Ciphers),
			MinTLSVersion: frv1alpha1.TLSProtocolVersion(p.Custom.MinTLSVersion),
		}}
	}
	return out
}
