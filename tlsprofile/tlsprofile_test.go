package tlsprofile_test

import (
	"testing"

	ocpconfigv1 "github.com/openshift/api/config/v1"
	"github.com/stretchr/testify/assert"
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/hcokit/hcokit/tlsprofile"
)

var (
	old          = &ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileOldType, Old: &ocpconfigv1.OldTLSProfile{}}
	intermediate = &ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileIntermediateType, Intermediate: &ocpconfigv1.IntermediateTLSProfile{}}
	modern       = &ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileModernType, Modern: &ocpconfigv1.ModernTLSProfile{}}
	custom       = &ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileCustomType, Custom: &ocpconfigv1.CustomTLSProfile{
		TLSProfileSpec: ocpconfigv1.TLSProfileSpec{Ciphers: []string{"ECDHE-RSA-AES128-GCM-SHA256"}, MinTLSVersion: ocpconfigv1.VersionTLS12},
	}}
	customEmpty = &ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileCustomType}
)

func TestResolve(t *testing.T) {
	intermediateSpec := *ocpconfigv1.TLSProfiles[ocpconfigv1.TLSProfileIntermediateType]
	tests := []struct {
		name              string
		fromHC, fromClust *ocpconfigv1.TLSSecurityProfile
		want              *ocpconfigv1.TLSSecurityProfile
	}{
		{"unset everywhere: Intermediate", nil, nil, intermediate},
		{"the HyperConverged's", modern, nil, modern},
		{"the HyperConverged's wins over the cluster's", old, modern, old},
		{"the cluster's when the HyperConverged sets none", nil, modern, modern},
		{"Custom as set", custom, nil, custom},
		{"Custom without settings gets Intermediate's", customEmpty, nil,
			&ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileCustomType, Custom: &ocpconfigv1.CustomTLSProfile{TLSProfileSpec: intermediateSpec}}},
		{"the cluster's Custom without settings too", nil, customEmpty,
			&ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileCustomType, Custom: &ocpconfigv1.CustomTLSProfile{TLSProfileSpec: intermediateSpec}}},
		{"an empty profile is kept as set, as upstream", &ocpconfigv1.TLSSecurityProfile{}, nil, &ocpconfigv1.TLSSecurityProfile{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tlsprofile.Resolve(tt.fromHC, tt.fromClust)
			assert.Equal(t, tt.want, got)
			if tt.fromHC != nil {
				assert.NotSame(t, tt.fromHC, got, "a copy")
			}
		})
	}
}

func TestResolveSharesNothing(t *testing.T) {
	in := custom.DeepCopy()
	got := tlsprofile.Resolve(in, nil)
	got.Custom.Ciphers[0] = "changed"
	assert.Equal(t, custom, in)

	filled := tlsprofile.Resolve(customEmpty, nil)
	filled.Custom.Ciphers[0] = "changed"
	assert.NotEqual(t, "changed", ocpconfigv1.TLSProfiles[ocpconfigv1.TLSProfileIntermediateType].Ciphers[0], "the table is not modified")
}

func TestSpec(t *testing.T) {
	table := ocpconfigv1.TLSProfiles
	tests := []struct {
		name string
		p    *ocpconfigv1.TLSSecurityProfile
		want ocpconfigv1.TLSProfileSpec
	}{
		{"Old", old, *table[ocpconfigv1.TLSProfileOldType]},
		{"Intermediate", intermediate, *table[ocpconfigv1.TLSProfileIntermediateType]},
		{"Modern", modern, *table[ocpconfigv1.TLSProfileModernType]},
		{"Custom", custom, custom.Custom.TLSProfileSpec},
		{"Custom without settings", customEmpty, *table[ocpconfigv1.TLSProfileIntermediateType]},
		{"nil", nil, *table[ocpconfigv1.TLSProfileIntermediateType]},
		{"unknown type", &ocpconfigv1.TLSSecurityProfile{Type: "Strange"}, *table[ocpconfigv1.TLSProfileIntermediateType]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tlsprofile.Spec(tt.p)
			assert.Equal(t, tt.want, got)
			if len(got.Ciphers) > 0 {
				got.Ciphers[0] = "changed"
				assert.NotEqual(t, "changed", tt.want.Ciphers[0], "the result is a copy")
			}
		})
	}
	assert.Equal(t, ocpconfigv1.VersionTLS12, tlsprofile.Spec(tlsprofile.Resolve(nil, nil)).MinTLSVersion)
	assert.Equal(t, ocpconfigv1.VersionTLS13, tlsprofile.Spec(modern).MinTLSVersion)
}

func TestForCDI(t *testing.T) {
	tests := []struct {
		name string
		p    *ocpconfigv1.TLSSecurityProfile
		want *cdiv1beta1.TLSSecurityProfile
	}{
		{"nil", nil, nil},
		{"Old", old, &cdiv1beta1.TLSSecurityProfile{Type: cdiv1beta1.TLSProfileOldType, Old: &cdiv1beta1.OldTLSProfile{}}},
		{"Intermediate", intermediate, &cdiv1beta1.TLSSecurityProfile{Type: cdiv1beta1.TLSProfileIntermediateType, Intermediate: &cdiv1beta1.IntermediateTLSProfile{}}},
		{"Modern", modern, &cdiv1beta1.TLSSecurityProfile{Type: cdiv1beta1.TLSProfileModernType, Modern: &cdiv1beta1.ModernTLSProfile{}}},
		{"Custom", custom, &cdiv1beta1.TLSSecurityProfile{Type: cdiv1beta1.TLSProfileCustomType, Custom: &cdiv1beta1.CustomTLSProfile{
			TLSProfileSpec: cdiv1beta1.TLSProfileSpec{Ciphers: []string{"ECDHE-RSA-AES128-GCM-SHA256"}, MinTLSVersion: cdiv1beta1.VersionTLS12},
		}}},
		{"a type without its marker stays so", &ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileModernType},
			&cdiv1beta1.TLSSecurityProfile{Type: cdiv1beta1.TLSProfileModernType}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tlsprofile.ForCDI(tt.p))
		})
	}
}
