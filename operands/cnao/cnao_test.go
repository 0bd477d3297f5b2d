package cnao_test

import (
	"testing"

	ocpconfigv1 "github.com/openshift/api/config/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/featuregates"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/operands/cnao"
	cnaov1 "github.com/hcokit/hcokit/operands/cnao/api/v1"
)

var env = hco.Facts{Environment: hco.Environment{Namespace: hcov1.DefaultNamespace, Version: "1.0.0"}}

func ptr[T any](v T) *T { return &v }

// fieldCase is one HyperConverged setting, written in both API versions,
// and what the NetworkAddonsConfig must hold for it (or the error Desired
// must return).
type fieldCase[W any] struct {
	name    string
	v1      func(*hcov1.HyperConverged)
	v1beta1 func(*v1beta1.HyperConverged)
	want    W
	wantErr string
}

// hyperConvergeds returns the setting written in v1, and the same setting
// written in v1beta1 and converted to the hub, as the API server hands it to
// the operator. Both start from defaulted objects unless defaulted is false.
func hyperConvergeds(t *testing.T, defaulted bool, setV1 func(*hcov1.HyperConverged), setV1beta1 func(*v1beta1.HyperConverged)) map[string]*hcov1.HyperConverged {
	t.Helper()
	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: hcov1.DefaultNamespace}}
	old := &v1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: v1beta1.HyperConvergedName, Namespace: v1beta1.DefaultNamespace}}
	if defaulted {
		hcov1.Default(hc)
		v1beta1.Default(old)
	}
	if setV1 != nil {
		setV1(hc)
	}
	if setV1beta1 != nil {
		setV1beta1(old)
	}
	hub := &hcov1.HyperConverged{}
	require.NoError(t, old.ConvertTo(hub))
	return map[string]*hcov1.HyperConverged{"v1": hc, "v1beta1": hub}
}

func run[W any](t *testing.T, cases []fieldCase[W], got func(*cnaov1.NetworkAddonsConfig) W) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for version, hc := range hyperConvergeds(t, true, tc.v1, tc.v1beta1) {
				objs, err := cnao.New().Desired(hc, env)
				if tc.wantErr != "" {
					require.Error(t, err, version)
					assert.Contains(t, err.Error(), tc.wantErr, version)
					assert.Nil(t, objs, version)
					continue
				}
				require.NoError(t, err, version)
				require.Len(t, objs, 1, version)
				nac, ok := objs[0].(*cnaov1.NetworkAddonsConfig)
				require.True(t, ok, "%s: %T", version, objs[0])
				assert.Equal(t, tc.want, got(nac), version)
			}
		})
	}
}

func TestKubeMacPool(t *testing.T) {
	run(t, []fieldCase[*cnaov1.KubeMacPool]{
		{name: "unset: deployed with kubemacpool's own range", want: &cnaov1.KubeMacPool{}},
		{
			name: "the configured range",
			v1: func(hc *hcov1.HyperConverged) {
				hc.Spec.Networking = &hcov1.NetworkingConfig{KubeMacPoolConfiguration: &hcov1.KubeMacPoolConfig{
					RangeStart: ptr("02:00:00:00:00:00"), RangeEnd: ptr("02:00:00:00:FF:FF"),
				}}
			},
			v1beta1: func(hc *v1beta1.HyperConverged) {
				hc.Spec.KubeMacPoolConfiguration = &hcov1.KubeMacPoolConfig{RangeStart: ptr("02:00:00:00:00:00"), RangeEnd: ptr("02:00:00:00:FF:FF")}
			},
			want: &cnaov1.KubeMacPool{RangeStart: "02:00:00:00:00:00", RangeEnd: "02:00:00:00:FF:FF"},
		},
		{
			name: "an empty configuration",
			v1: func(hc *hcov1.HyperConverged) {
				hc.Spec.Networking = &hcov1.NetworkingConfig{KubeMacPoolConfiguration: &hcov1.KubeMacPoolConfig{}}
			},
			v1beta1: func(hc *v1beta1.HyperConverged) { hc.Spec.KubeMacPoolConfiguration = &hcov1.KubeMacPoolConfig{} },
			want:    &cnaov1.KubeMacPool{},
		},
	}, func(nac *cnaov1.NetworkAddonsConfig) *cnaov1.KubeMacPool { return nac.Spec.KubeMacPool })
}

func TestKubeSecondaryDNS(t *testing.T) {
	gateV1 := func(hc *hcov1.HyperConverged) {
		hc.Spec.FeatureGates.Set(featuregates.GateDeployKubeSecondaryDNS, true)
	}
	gateV1beta1 := func(hc *v1beta1.HyperConverged) { hc.Spec.FeatureGates.DeployKubeSecondaryDNS = ptr(true) }
	ipV1 := func(ip string) func(*hcov1.HyperConverged) {
		return func(hc *hcov1.HyperConverged) {
			hc.Spec.Networking = &hcov1.NetworkingConfig{KubeSecondaryDNSNameServerIP: ptr(ip)}
		}
	}
	ipV1beta1 := func(ip string) func(*v1beta1.HyperConverged) {
		return func(hc *v1beta1.HyperConverged) { hc.Spec.KubeSecondaryDNSNameServerIP = ptr(ip) }
	}
	both := func(a, b func(*hcov1.HyperConverged)) func(*hcov1.HyperConverged) {
		return func(hc *hcov1.HyperConverged) { a(hc); b(hc) }
	}
	bothBeta := func(a, b func(*v1beta1.HyperConverged)) func(*v1beta1.HyperConverged) {
		return func(hc *v1beta1.HyperConverged) { a(hc); b(hc) }
	}
	const badIP = "spec.networking.kubeSecondaryDNSNameServerIP: "
	run(t, []fieldCase[*cnaov1.KubeSecondaryDNS]{
		{name: "gate off: not deployed", want: nil},
		{name: "gate off, name server IP set: not deployed", v1: ipV1("192.168.1.10"), v1beta1: ipV1beta1("192.168.1.10"), want: nil},
		{name: "gate on: deployed without a name server IP", v1: gateV1, v1beta1: gateV1beta1, want: &cnaov1.KubeSecondaryDNS{}},
		{
			name: "gate on, name server IP set", v1: both(gateV1, ipV1("192.168.1.10")), v1beta1: bothBeta(gateV1beta1, ipV1beta1("192.168.1.10")),
			want: &cnaov1.KubeSecondaryDNS{NameServerIP: "192.168.1.10"},
		},
		{name: "gate on, empty name server IP", v1: both(gateV1, ipV1("")), v1beta1: bothBeta(gateV1beta1, ipV1beta1("")), want: &cnaov1.KubeSecondaryDNS{}},
		{name: "an IPv6 name server IP is refused", v1: both(gateV1, ipV1("fd00::10")), v1beta1: bothBeta(gateV1beta1, ipV1beta1("fd00::10")), wantErr: badIP + `"fd00::10" is not an IPv4 address`},
		{name: "not an IP is refused", v1: both(gateV1, ipV1("dns.local")), v1beta1: bothBeta(gateV1beta1, ipV1beta1("dns.local")), wantErr: badIP + `"dns.local" is not an IPv4 address`},
		{name: "refused with the gate off too, as upstream", v1: ipV1("300.1.1.1"), v1beta1: ipV1beta1("300.1.1.1"), wantErr: badIP + `"300.1.1.1" is not an IPv4 address`},
	}, func(nac *cnaov1.NetworkAddonsConfig) *cnaov1.KubeSecondaryDNS { return nac.Spec.KubeSecondaryDNS })
}

func TestKubevirtIpamController(t *testing.T) {
	run(t, []fieldCase[*cnaov1.KubevirtIpamController]{
		{name: "always deployed, with CNAO's default namespace (upstream's choice off OpenShift)", want: &cnaov1.KubevirtIpamController{}},
	}, func(nac *cnaov1.NetworkAddonsConfig) *cnaov1.KubevirtIpamController {
		return nac.Spec.KubevirtIpamController
	})
}

func TestTLSSecurityProfile(t *testing.T) {
	profile := func(p *ocpconfigv1.TLSSecurityProfile) (func(*hcov1.HyperConverged), func(*v1beta1.HyperConverged)) {
		return func(hc *hcov1.HyperConverged) { hc.Spec.Security.TLSSecurityProfile = p.DeepCopy() },
			func(hc *v1beta1.HyperConverged) { hc.Spec.TLSSecurityProfile = p.DeepCopy() }
	}
	old := &ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileOldType, Old: &ocpconfigv1.OldTLSProfile{}}
	modern := &ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileModernType, Modern: &ocpconfigv1.ModernTLSProfile{}}
	custom := &ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileCustomType, Custom: &ocpconfigv1.CustomTLSProfile{
		TLSProfileSpec: ocpconfigv1.TLSProfileSpec{Ciphers: []string{"ECDHE-ECDSA-AES128-GCM-SHA256"}, MinTLSVersion: ocpconfigv1.VersionTLS12},
	}}
	oldV1, oldV1beta1 := profile(old)
	modernV1, modernV1beta1 := profile(modern)
	customV1, customV1beta1 := profile(custom)
	emptyCustomV1, emptyCustomV1beta1 := profile(&ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileCustomType})

	run(t, []fieldCase[*ocpconfigv1.TLSSecurityProfile]{
		{
			name: "unset: Intermediate, upstream's default",
			want: &ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileIntermediateType, Intermediate: &ocpconfigv1.IntermediateTLSProfile{}},
		},
		{name: "Old", v1: oldV1, v1beta1: oldV1beta1, want: old},
		{name: "Modern", v1: modernV1, v1beta1: modernV1beta1, want: modern},
		{name: "Custom", v1: customV1, v1beta1: customV1beta1, want: custom},
		{
			name: "Custom without settings: Intermediate's ciphers and version", v1: emptyCustomV1, v1beta1: emptyCustomV1beta1,
			want: &ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileCustomType, Custom: &ocpconfigv1.CustomTLSProfile{
				TLSProfileSpec: *ocpconfigv1.TLSProfiles[ocpconfigv1.TLSProfileIntermediateType],
			}},
		},
	}, func(nac *cnaov1.NetworkAddonsConfig) *ocpconfigv1.TLSSecurityProfile {
		return nac.Spec.TLSSecurityProfile
	})
}

// Upstream writes its default rotation intervals when certConfig is unset
// (an object the API server has not defaulted, e.g. rendered offline).
func TestSelfSignConfigurationDefaultsWhenUnset(t *testing.T) {
	for version, hc := range hyperConvergeds(t, false, nil, nil) {
		nac, err := cnao.Build(hc, env)
		require.NoError(t, err, version)
		assert.Equal(t, &cnaov1.SelfSignConfiguration{
			CARotateInterval: "48h0m0s", CAOverlapInterval: "24h0m0s", CertRotateInterval: "24h0m0s", CertOverlapInterval: "12h0m0s",
		}, nac.Spec.SelfSignConfiguration, version)
	}
}

func TestBuildDoesNotShareTheHyperConvergedsMemory(t *testing.T) {
	hc := &hcov1.HyperConverged{}
	hcov1.Default(hc)
	hc.Spec.Security.TLSSecurityProfile = &ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileCustomType, Custom: &ocpconfigv1.CustomTLSProfile{
		TLSProfileSpec: ocpconfigv1.TLSProfileSpec{Ciphers: []string{"a"}, MinTLSVersion: ocpconfigv1.VersionTLS12},
	}}
	before := hc.DeepCopy()
	nac, err := cnao.Build(hc, env)
	require.NoError(t, err)
	nac.Spec.TLSSecurityProfile.Custom.Ciphers[0] = "b"
	assert.Equal(t, before, hc)
}

// On OpenShift the cluster default network's NetworkAttachmentDefinitions
// are OVN-Kubernetes', and the secondary DNS serves under the cluster's
// base domain (both from the platform facts), as upstream.
func TestOpenShiftPlatform(t *testing.T) {
	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: hcov1.DefaultNamespace}}
	hc.Spec.FeatureGates.Set(featuregates.GateDeployKubeSecondaryDNS, true)
	facts := hco.Facts{Platform: hco.Platform{OpenShift: true, DNSBaseDomain: "example.com"}}
	nac, err := cnao.Build(hc, facts)
	require.NoError(t, err)
	assert.Equal(t, cnao.OpenShiftNADNamespace, nac.Spec.KubevirtIpamController.DefaultNetworkNADNamespace)
	assert.Equal(t, &cnaov1.KubeSecondaryDNS{Domain: "example.com"}, nac.Spec.KubeSecondaryDNS)

	nac, err = cnao.Build(hc, hco.Facts{})
	require.NoError(t, err)
	assert.Empty(t, nac.Spec.KubevirtIpamController.DefaultNetworkNADNamespace, "CNAO's default off OpenShift")
	assert.Empty(t, nac.Spec.KubeSecondaryDNS.Domain)
}
