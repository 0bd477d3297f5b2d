package cdi_test

import (
	"testing"

	ocpconfigv1 "github.com/openshift/api/config/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/operands/cdi"
)

var env = hco.Facts{Environment: hco.Environment{Namespace: hcov1.DefaultNamespace, Version: "1.0.0"}}

func ptr[T any](v T) *T { return &v }

// fieldCase is one HyperConverged setting, written in both API versions,
// and what the CDI CR must hold for it.
type fieldCase[W any] struct {
	name    string
	v1      func(*hcov1.HyperConverged)
	v1beta1 func(*v1beta1.HyperConverged)
	want    W
}

// build returns the CDI CR of the setting written in v1, and of the same
// setting written in v1beta1 and converted to the hub, as the API server
// hands it to the operator. Both start from defaulted objects.
func build(t *testing.T, setV1 func(*hcov1.HyperConverged), setV1beta1 func(*v1beta1.HyperConverged)) map[string]*cdiv1beta1.CDI {
	t.Helper()
	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: hcov1.DefaultNamespace}}
	hcov1.Default(hc)
	if setV1 != nil {
		setV1(hc)
	}
	old := &v1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: v1beta1.HyperConvergedName, Namespace: v1beta1.DefaultNamespace}}
	v1beta1.Default(old)
	if setV1beta1 != nil {
		setV1beta1(old)
	}
	hub := &hcov1.HyperConverged{}
	require.NoError(t, old.ConvertTo(hub))

	out := map[string]*cdiv1beta1.CDI{}
	for version, h := range map[string]*hcov1.HyperConverged{"v1": hc, "v1beta1": hub} {
		objs, err := cdi.New().Desired(h, env)
		require.NoError(t, err, version)
		require.Len(t, objs, 1, version)
		c, ok := objs[0].(*cdiv1beta1.CDI)
		require.True(t, ok, "%s: %T", version, objs[0])
		out[version] = c
	}
	return out
}

func run[W any](t *testing.T, cases []fieldCase[W], got func(*cdiv1beta1.CDI) W) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for version, c := range build(t, tc.v1, tc.v1beta1) {
				assert.Equal(t, tc.want, got(c), version)
			}
		})
	}
}

func TestFilesystemOverhead(t *testing.T) {
	overhead := &cdiv1beta1.FilesystemOverhead{Global: "0.1", StorageClass: map[string]cdiv1beta1.Percent{"local": "0.2"}}
	run(t, []fieldCase[*cdiv1beta1.FilesystemOverhead]{
		{name: "unset: CDI's default", want: nil},
		{
			name: "global and per storage class",
			v1: func(hc *hcov1.HyperConverged) {
				hc.Spec.Storage = &hcov1.StorageConfig{FilesystemOverhead: overhead.DeepCopy()}
			},
			v1beta1: func(hc *v1beta1.HyperConverged) { hc.Spec.FilesystemOverhead = overhead.DeepCopy() },
			want:    overhead,
		},
		{
			name: "global only",
			v1: func(hc *hcov1.HyperConverged) {
				hc.Spec.Storage = &hcov1.StorageConfig{FilesystemOverhead: &cdiv1beta1.FilesystemOverhead{Global: "0.08"}}
			},
			v1beta1: func(hc *v1beta1.HyperConverged) {
				hc.Spec.FilesystemOverhead = &cdiv1beta1.FilesystemOverhead{Global: "0.08"}
			},
			want: &cdiv1beta1.FilesystemOverhead{Global: "0.08"},
		},
	}, func(c *cdiv1beta1.CDI) *cdiv1beta1.FilesystemOverhead { return c.Spec.Config.FilesystemOverhead })
}

func TestLogVerbosity(t *testing.T) {
	run(t, []fieldCase[*int32]{
		{name: "unset: CDI's default", want: nil},
		{
			name: "only KubeVirt's set",
			v1: func(hc *hcov1.HyperConverged) {
				hc.Spec.Deployment.LogVerbosityConfig = &hcov1.LogVerbosityConfiguration{}
			},
			v1beta1: func(hc *v1beta1.HyperConverged) { hc.Spec.LogVerbosityConfig = &hcov1.LogVerbosityConfiguration{} },
			want:    nil,
		},
		{
			name: "CDI's",
			v1: func(hc *hcov1.HyperConverged) {
				hc.Spec.Deployment.LogVerbosityConfig = &hcov1.LogVerbosityConfiguration{CDI: ptr(int32(4))}
			},
			v1beta1: func(hc *v1beta1.HyperConverged) {
				hc.Spec.LogVerbosityConfig = &hcov1.LogVerbosityConfiguration{CDI: ptr(int32(4))}
			},
			want: ptr(int32(4)),
		},
		{
			name: "zero is kept",
			v1: func(hc *hcov1.HyperConverged) {
				hc.Spec.Deployment.LogVerbosityConfig = &hcov1.LogVerbosityConfiguration{CDI: ptr(int32(0))}
			},
			v1beta1: func(hc *v1beta1.HyperConverged) {
				hc.Spec.LogVerbosityConfig = &hcov1.LogVerbosityConfiguration{CDI: ptr(int32(0))}
			},
			want: ptr(int32(0)),
		},
	}, func(c *cdiv1beta1.CDI) *int32 { return c.Spec.Config.LogVerbosity })
}

func TestTLSSecurityProfile(t *testing.T) {
	profile := func(p *ocpconfigv1.TLSSecurityProfile) (func(*hcov1.HyperConverged), func(*v1beta1.HyperConverged)) {
		return func(hc *hcov1.HyperConverged) { hc.Spec.Security.TLSSecurityProfile = p.DeepCopy() },
			func(hc *v1beta1.HyperConverged) { hc.Spec.TLSSecurityProfile = p.DeepCopy() }
	}
	oldV1, oldV1beta1 := profile(&ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileOldType, Old: &ocpconfigv1.OldTLSProfile{}})
	modernV1, modernV1beta1 := profile(&ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileModernType, Modern: &ocpconfigv1.ModernTLSProfile{}})
	customV1, customV1beta1 := profile(&ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileCustomType, Custom: &ocpconfigv1.CustomTLSProfile{
		TLSProfileSpec: ocpconfigv1.TLSProfileSpec{Ciphers: []string{"ECDHE-ECDSA-AES128-GCM-SHA256"}, MinTLSVersion: ocpconfigv1.VersionTLS12},
	}})
	emptyCustomV1, emptyCustomV1beta1 := profile(&ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileCustomType})
	intermediate := ocpconfigv1.TLSProfiles[ocpconfigv1.TLSProfileIntermediateType]

	run(t, []fieldCase[*cdiv1beta1.TLSSecurityProfile]{
		{
			name: "unset: Intermediate, upstream's default",
			want: &cdiv1beta1.TLSSecurityProfile{Type: cdiv1beta1.TLSProfileIntermediateType, Intermediate: &cdiv1beta1.IntermediateTLSProfile{}},
		},
		{
			name: "Old", v1: oldV1, v1beta1: oldV1beta1,
			want: &cdiv1beta1.TLSSecurityProfile{Type: cdiv1beta1.TLSProfileOldType, Old: &cdiv1beta1.OldTLSProfile{}},
		},
		{
			name: "Modern", v1: modernV1, v1beta1: modernV1beta1,
			want: &cdiv1beta1.TLSSecurityProfile{Type: cdiv1beta1.TLSProfileModernType, Modern: &cdiv1beta1.ModernTLSProfile{}},
		},
		{
			name: "Custom", v1: customV1, v1beta1: customV1beta1,
			want: &cdiv1beta1.TLSSecurityProfile{Type: cdiv1beta1.TLSProfileCustomType, Custom: &cdiv1beta1.CustomTLSProfile{
				TLSProfileSpec: cdiv1beta1.TLSProfileSpec{Ciphers: []string{"ECDHE-ECDSA-AES128-GCM-SHA256"}, MinTLSVersion: cdiv1beta1.VersionTLS12},
			}},
		},
		{
			name: "Custom without settings: Intermediate's ciphers and version", v1: emptyCustomV1, v1beta1: emptyCustomV1beta1,
			want: &cdiv1beta1.TLSSecurityProfile{Type: cdiv1beta1.TLSProfileCustomType, Custom: &cdiv1beta1.CustomTLSProfile{
				TLSProfileSpec: cdiv1beta1.TLSProfileSpec{Ciphers: intermediate.Ciphers, MinTLSVersion: cdiv1beta1.TLSProtocolVersion(intermediate.MinTLSVersion)},
			}},
		},
	}, func(c *cdiv1beta1.CDI) *cdiv1beta1.TLSSecurityProfile { return c.Spec.Config.TLSSecurityProfile })
}

func TestFeatureGates(t *testing.T) {
	run(t, []fieldCase[[]string]{
		{name: "upstream's two, whatever the HyperConverged says", want: []string{"HonorWaitForFirstConsumer", "DataVolumeClaimAdoption"}},
		{
			name:    "HyperConverged gates do not reach CDI",
			v1:      func(hc *hcov1.HyperConverged) { hc.Spec.FeatureGates.Set("downwardMetrics", true) },
			v1beta1: func(hc *v1beta1.HyperConverged) { hc.Spec.FeatureGates.DownwardMetrics = ptr(true) },
			want:    []string{"HonorWaitForFirstConsumer", "DataVolumeClaimAdoption"},
		},
	}, func(c *cdiv1beta1.CDI) []string { return c.Spec.Config.FeatureGates })
}

func TestBuildDoesNotShareTheHyperConvergedsMemory(t *testing.T) {
	hc := &hcov1.HyperConverged{}
	hcov1.Default(hc)
	hc.Spec.Storage = &hcov1.StorageConfig{FilesystemOverhead: &cdiv1beta1.FilesystemOverhead{StorageClass: map[string]cdiv1beta1.Percent{"a": "0.1"}}}
	hc.Spec.Deployment.LogVerbosityConfig = &hcov1.LogVerbosityConfiguration{CDI: ptr(int32(2))}
	hc.Spec.Security.TLSSecurityProfile = &ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileCustomType, Custom: &ocpconfigv1.CustomTLSProfile{
		TLSProfileSpec: ocpconfigv1.TLSProfileSpec{Ciphers: []string{"a"}, MinTLSVersion: ocpconfigv1.VersionTLS12},
	}}
	before := hc.DeepCopy()

	c := cdi.Build(hc, env)
	c.Spec.Config.FilesystemOverhead.StorageClass["a"] = "0.9"
	*c.Spec.Config.LogVerbosity = 9
	c.Spec.Config.TLSSecurityProfile.Custom.Ciphers[0] = "b"
	assert.Equal(t, before, hc)
}
