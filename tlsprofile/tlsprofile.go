package tlsprofile

import (
	"slices"

	ocpconfigv1 "github.com/openshift/api/config/v1"
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
)

// Default returns upstream's default profile, Intermediate, as upstream writes
// it into the operands: {type: Intermediate, intermediate: {}}.
func Default() *ocpconfigv1.TLSSecurityProfile {
	return &ocpconfigv1.TLSSecurityProfile{
		Type:         ocpconfigv1.TLSProfileIntermediateType,
		Intermediate: &ocpconfigv1.IntermediateTLSProfile{},
	}
}

// Resolve returns the profile the operands get: a copy of fromHC
// (spec.security.tlsSecurityProfile) when set, else of fromCluster (the
// OpenShift APIServer's; nil on Kubernetes), else [Default]. A Custom profile
// without custom settings gets Intermediate's ciphers and minimum version, as
// upstream does. The result is never nil and shares nothing with the inputs.
func Resolve(fromHC, fromCluster *ocpconfigv1.TLSSecurityProfile) *ocpconfigv1.TLSSecurityProfile {
	var p *ocpconfigv1.TLSSecurityProfile
	switch {
	case fromHC != nil:
		p = fromHC.DeepCopy()
	case fromCluster != nil:
		p = fromCluster.DeepCopy()
	default:
		return Default()
	}
	if p.Type == ocpconfigv1.TLSProfileCustomType && p.Custom == nil {
		p.Custom = &ocpconfigv1.CustomTLSProfile{TLSProfileSpec: predefined(ocpconfigv1.TLSProfileIntermediateType)}
	}
	return p
}

// Spec returns the ciphers (OpenSSL names) and the minimum TLS version of a
// resolved profile: Custom's own settings, or the TLSProfiles entry of Old,
// Intermediate or Modern. A nil profile, or a type the table does not know,
// gives Intermediate's (where upstream would fail). The result shares nothing
// with p or the table.
func Spec(p *ocpconfigv1.TLSSecurityProfile) ocpconfigv1.TLSProfileSpec {
	if p == nil {
		return predefined(ocpconfigv1.TLSProfileIntermediateType)
	}
	if p.Type == ocpconfigv1.TLSProfileCustomType {
		if p.Custom == nil {
			return predefined(ocpconfigv1.TLSProfileIntermediateType)
		}
		return ocpconfigv1.TLSProfileSpec{Ciphers: slices.Clone(p.Custom.Ciphers), MinTLSVersion: p.Custom.MinTLSVersion}
	}
	return predefined(p.Type)
}

// predefined returns a copy of the table entry of t, Intermediate's when the
// table has none.
func predefined(t ocpconfigv1.TLSProfileType) ocpconfigv1.TLSProfileSpec {
	s, ok := ocpconfigv1.TLSProfiles[t]
	if !ok || s == nil {
		s = ocpconfigv1.TLSProfiles[ocpconfigv1.TLSProfileIntermediateType]
	}
	return ocpconfigv1.TLSProfileSpec{Ciphers: slices.Clone(s.Ciphers), MinTLSVersion: s.MinTLSVersion}
}

// ForCDI converts a resolved profile to CDI's own type
// (spec.config.tlsSecurityProfile of the CDI CR), field for field as
// upstream does: the type, the empty Old/Intermediate/Modern markers as set,
// and Custom's ciphers and minimum version. nil gives nil.
func ForCDI(p *ocpconfigv1.TLSSecurityProfile) *cdiv1beta1.TLSSecurityProfile {
	if p == nil {
		return nil
	}
	out := &cdiv1beta1.TLSSecurityProfile{Type: cdiv1beta1.TLSProfileType(p.Type)}
	if p.Old != nil {
		out.Old = &cdiv1beta1.OldTLSProfile{}
	}
	if p.Intermediate != nil {
		out.Intermediate = &cdiv1beta1.IntermediateTLSProfile{}
	}
	if p.Modern != nil {
		out.Modern = &cdiv1beta1.ModernTLSProfile{}
	}
	if p.Custom != nil {
		out.Custom = &cdiv1beta1.CustomTLSProfile{TLSProfileSpec: cdiv1beta1.TLSProfileSpec{
			Ciphers:       slices.Clone(p.Custom.Ciphers),
			MinTLSVersion: cdiv1beta1.TLSProtocolVersion(p.Custom.MinTLSVersion),
		}}
	}
	return out
}
