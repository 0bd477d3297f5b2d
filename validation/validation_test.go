package validation_test

import (
	ocpconfigv1 "github.com/openshift/api/config/v1"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/featuregates"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/operands/cdi"
	"github.com/hcokit/hcokit/operands/cnao"
	"github.com/hcokit/hcokit/operands/hpp"
	"github.com/hcokit/hcokit/operands/kubevirt"
	"github.com/hcokit/hcokit/operands/ssp"
	"github.com/hcokit/hcokit/validation"
)

const ns = hcov1.DefaultNamespace

func stockOptions(t testing.TB) validation.Options {
	t.Helper()
	reg, err := hco.NewRegistry(kubevirt.New(), cdi.New(), cnao.New(), ssp.New(), hpp.New())
	require.NoError(t, err)
	return validation.Options{Registry: reg, Environment: hco.Environment{Namespace: ns, CommonTemplatesNamespace: hco.DefaultCommonTemplatesNamespace}}
}

// defaulted returns a HyperConverged as the API server stores it, CRD defaults filled.
func defaulted(mutate func(*hcov1.HyperConverged)) *hcov1.HyperConverged {
	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: ns}}
	hcov1.Default(hc)
	if mutate != nil {
		mutate(hc)
	}
	return hc
}

// placements returns hc's spec.deployment.nodePlacements, creating it when unset.
func placements(hc *hcov1.HyperConverged) *hcov1.NodePlacements {
	if hc.Spec.Deployment.NodePlacements == nil {
		hc.Spec.Deployment.NodePlacements = &hcov1.NodePlacements{}
	}
	return hc.Spec.Deployment.NodePlacements
}

func dur(d time.Duration) *metav1.Duration { return &metav1.Duration{Duration: d} }

func placement(reqs ...corev1.NodeSelectorRequirement) *hcov1.NodePlacement {
	return &hcov1.NodePlacement{Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: reqs}},
		},
	}}}
}

func TestSpec(t *testing.T) {
	opts := stockOptions(t)
	const reqPath = "spec.deployment.nodePlacements.workload.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0]"
	tests := []struct {
		name   string
		mutate func(*hcov1.HyperConverged)
		want   string // Message of the errors; empty: valid
	}{
		{name: "defaults", want: ""},
		{name: "bandwidth quantity", mutate: func(hc *hcov1.HyperConverged) {
			hc.Spec.Virtualization.LiveMigrationConfig.BandwidthPerMigration = ptr.To("1Gi")
		}},
		{name: "bandwidth zero means no limit", mutate: func(hc *hcov1.HyperConverged) {
			hc.Spec.Virtualization.LiveMigrationConfig.BandwidthPerMigration = ptr.To("0")
		}},
		{
			name: "bandwidth not a quantity",
			mutate: func(hc *hcov1.HyperConverged) {
				hc.Spec.Virtualization.LiveMigrationConfig.BandwidthPerMigration = ptr.To("64 MB/s")
			},
			want: `spec.virtualization.liveMigrationConfig.bandwidthPerMigration: Invalid value: "64 MB/s": must be a non-negative quantity of bytes per second, such as "64Mi" ("0" for no limit)`,
		},
		{
			name: "bandwidth negative",
			mutate: func(hc *hcov1.HyperConverged) {
				hc.Spec.Virtualization.LiveMigrationConfig.BandwidthPerMigration = ptr.To("-1Mi")
			},
			want: `spec.virtualization.liveMigrationConfig.bandwidthPerMigration: Invalid value: "-1Mi": must be a non-negative quantity of bytes per second, such as "64Mi" ("0" for no limit)`,
		},
		{name: "golden image switched off, any case", mutate: func(hc *hcov1.HyperConverged) {
			hc.Spec.WorkloadSources.DataImportCronTemplates = []hcov1.DataImportCronTemplate{
				{ObjectMeta: metav1.ObjectMeta{Name: "centos-stream9-image-cron", Annotations: map[string]string{"dataimportcrontemplate.kubevirt.io/enable": "FALSE"}}},
			}
		}},
		{
			name: "golden image switch neither true nor false",
			mutate: func(hc *hcov1.HyperConverged) {
				hc.Spec.WorkloadSources.DataImportCronTemplates = []hcov1.DataImportCronTemplate{
					{ObjectMeta: metav1.ObjectMeta{Name: "centos-stream9-image-cron", Annotations: map[string]string{"dataimportcrontemplate.kubevirt.io/enable": "no"}}},
				}
			},
			want: `spec.workloadSources.dataImportCronTemplates[0].metadata.annotations[dataimportcrontemplate.kubevirt.io/enable]: Invalid value: "no": must be "true" or "false": "false" leaves the golden image out, "true" (or no annotation) keeps it`,
		},
		{name: "tlsSecurityProfile Modern", mutate: func(hc *hcov1.HyperConverged) {
			hc.Spec.Security.TLSSecurityProfile = &ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileModernType, Modern: &ocpconfigv1.ModernTLSProfile{}}
		}},
		{name: "tlsSecurityProfile Custom with an HTTP/2 cipher", mutate: func(hc *hcov1.HyperConverged) {
			hc.Spec.Security.TLSSecurityProfile = customTLS(ocpconfigv1.VersionTLS12, "ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-RSA-AES256-GCM-SHA384")
		}},
		{name: "tlsSecurityProfile Custom TLS 1.3 without ciphers", mutate: func(hc *hcov1.HyperConverged) {
			hc.Spec.Security.TLSSecurityProfile = customTLS(ocpconfigv1.VersionTLS13)
		}},
		{
			name: "tlsSecurityProfile Custom type without custom",
			mutate: func(hc *hcov1.HyperConverged) {
				hc.Spec.Security.TLSSecurityProfile = &ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileCustomType}
			},
			want: `spec.security.tlsSecurityProfile.custom: Required value: type Custom needs the custom profile (ciphers and minTLSVersion)`,
		},
		{
			name: "tlsSecurityProfile Custom without an HTTP/2 cipher",
			mutate: func(hc *hcov1.HyperConverged) {
				hc.Spec.Security.TLSSecurityProfile = customTLS(ocpconfigv1.VersionTLS12, "ECDHE-RSA-AES256-GCM-SHA384")
			},
			want: `spec.security.tlsSecurityProfile.custom.ciphers: Invalid value: ["ECDHE-RSA-AES256-GCM-SHA384"]: below TLS 1.3, HTTP/2 needs one of ECDHE-RSA-AES128-GCM-SHA256 or ECDHE-ECDSA-AES128-GCM-SHA256: add one`,
		},
		{
			name: "tlsSecurityProfile Custom TLS 1.3 with ciphers",
			mutate: func(hc *hcov1.HyperConverged) {
				hc.Spec.Security.TLSSecurityProfile = customTLS(ocpconfigv1.VersionTLS13, "ECDHE-RSA-AES128-GCM-SHA256")
			},
			want: `spec.security.tlsSecurityProfile.custom.ciphers: Invalid value: ["ECDHE-RSA-AES128-GCM-SHA256"]: with minTLSVersion VersionTLS13 no cipher can be chosen (TLS 1.3 suites are not configurable): remove the list`,
		},
		{
			name: "tlsSecurityProfile Custom unknown version",
			mutate: func(hc *hcov1.HyperConverged) {
				hc.Spec.Security.TLSSecurityProfile = customTLS("TLSv1.2", "ECDHE-RSA-AES128-GCM-SHA256")
			},
			want: `spec.security.tlsSecurityProfile.custom.minTLSVersion: Unsupported value: "TLSv1.2": supported values: "VersionTLS10", "VersionTLS11", "VersionTLS12", "VersionTLS13"`,
		},
		{name: "certConfig at the minimum", mutate: func(hc *hcov1.HyperConverged) {
			hc.Spec.Security.CertConfig = hcov1.HyperConvergedCertConfig{
				CA:     hcov1.CertRotateConfigCA{Duration: dur(10 * time.Minute), RenewBefore: dur(10 * time.Minute)},
				Server: hcov1.CertRotateConfigServer{Duration: dur(10 * time.Minute), RenewBefore: dur(10 * time.Minute)},
			}
		}},
		{
			name:   "certConfig duration too short",
			mutate: func(hc *hcov1.HyperConverged) { hc.Spec.Security.CertConfig.Server.Duration = dur(5 * time.Minute) },
			want: `spec.security.certConfig.server.duration: Invalid value: "5m0s": must be at least 10m0s; ` +
				`spec.security.certConfig.server.renewBefore: Invalid value: "12h0m0s": must not exceed spec.security.certConfig.server.duration (5m0s); lower renewBefore or raise duration`,
		},
		{
			name:   "certConfig renewBefore too short",
			mutate: func(hc *hcov1.HyperConverged) { hc.Spec.Security.CertConfig.CA.RenewBefore = dur(time.Minute) },
			want:   `spec.security.certConfig.ca.renewBefore: Invalid value: "1m0s": must be at least 10m0s`,
		},
		{
			name:   "certConfig renewBefore above duration",
			mutate: func(hc *hcov1.HyperConverged) { hc.Spec.Security.CertConfig.CA.RenewBefore = dur(72 * time.Hour) },
			want:   `spec.security.certConfig.ca.renewBefore: Invalid value: "72h0m0s": must not exceed spec.security.certConfig.ca.duration (48h0m0s); lower renewBefore or raise duration`,
		},
		{
			name:   "certConfig server outlives CA",
			mutate: func(hc *hcov1.HyperConverged) { hc.Spec.Security.CertConfig.Server.Duration = dur(96 * time.Hour) },
			want:   `spec.security.certConfig.server.duration: Invalid value: "96h0m0s": must not exceed spec.security.certConfig.ca.duration (48h0m0s): a server certificate cannot outlive its CA; lower server.duration or raise ca.duration`,
		},
		{name: "node affinity valid", mutate: func(hc *hcov1.HyperConverged) {
			placements(hc).Workload = placement(
				corev1.NodeSelectorRequirement{Key: "kubernetes.io/arch", Operator: corev1.NodeSelectorOpIn, Values: []string{"amd64"}},
				corev1.NodeSelectorRequirement{Key: "cpu-count", Operator: corev1.NodeSelectorOpGt, Values: []string{"8"}},
				corev1.NodeSelectorRequirement{Key: "gpu", Operator: corev1.NodeSelectorOpExists},
			)
		}},
		{
			name: "node affinity In without values",
			mutate: func(hc *hcov1.HyperConverged) {
				placements(hc).Workload = placement(corev1.NodeSelectorRequirement{Key: "zone", Operator: corev1.NodeSelectorOpIn})
			},
			want: reqPath + `.values: Required value: operator In needs at least one value; list the values, or use Exists or DoesNotExist`,
		},
		{
			name: "node affinity Gt not an integer",
			mutate: func(hc *hcov1.HyperConverged) {
				placements(hc).Workload = placement(corev1.NodeSelectorRequirement{Key: "cpus", Operator: corev1.NodeSelectorOpGt, Values: []string{"many"}})
			},
			want: reqPath + `.values[0]: Invalid value: "many": operator Gt takes an integer value, e.g. "8"`,
		},
		{
			name: "node affinity Lt two values",
			mutate: func(hc *hcov1.HyperConverged) {
				placements(hc).Workload = placement(corev1.NodeSelectorRequirement{Key: "cpus", Operator: corev1.NodeSelectorOpLt, Values: []string{"1", "2"}})
			},
			want: reqPath + `.values: Invalid value: ["1","2"]: operator Lt takes exactly one integer value`,
		},
		{
			name: "node affinity Exists with values",
			mutate: func(hc *hcov1.HyperConverged) {
				placements(hc).Workload = placement(corev1.NodeSelectorRequirement{Key: "gpu", Operator: corev1.NodeSelectorOpExists, Values: []string{"x"}})
			},
			want: reqPath + `.values: Forbidden: operator Exists takes no values; remove them, or use In or NotIn`,
		},
		{
			name: "node affinity unknown operator and bad key",
			mutate: func(hc *hcov1.HyperConverged) {
				placements(hc).Workload = placement(corev1.NodeSelectorRequirement{Key: "bad key", Operator: "Equals", Values: []string{"x"}})
			},
			want: reqPath + `.key: Invalid value: "bad key": label key: name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'); ` +
				reqPath + `.operator: Unsupported value: "Equals": supported values: "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"`,
		},
		{
			name: "infra node selector label value",
			mutate: func(hc *hcov1.HyperConverged) {
				placements(hc).Infra = &hcov1.NodePlacement{NodeSelector: map[string]string{"role": "infra nodes"}}
			},
			want: `spec.deployment.nodePlacements.infra.nodeSelector[role]: Invalid value: "infra nodes": label value: a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
		},
		{
			name: "toleration Exists with a value",
			mutate: func(hc *hcov1.HyperConverged) {
				placements(hc).Infra = &hcov1.NodePlacement{Tolerations: []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpExists, Value: "v"}}}
			},
			want: `spec.deployment.nodePlacements.infra.tolerations[0].value: Invalid value: "v": operator Exists takes no value; remove it, or use operator Equal`,
		},
		{
			name: "tolerationSeconds without NoExecute",
			mutate: func(hc *hcov1.HyperConverged) {
				secs := int64(30)
				placements(hc).Workload = &hcov1.NodePlacement{Tolerations: []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpEqual, Value: "v", Effect: corev1.TaintEffectNoSchedule, TolerationSeconds: &secs}}}
			},
			want: `spec.deployment.nodePlacements.workload.tolerations[0].tolerationSeconds: Invalid value: 30: applies only to the NoExecute effect; set effect: NoExecute or remove tolerationSeconds`,
		},
		{
			name: "toleration Equal with a value that is no label value",
			mutate: func(hc *hcov1.HyperConverged) {
				placements(hc).Workload = &hcov1.NodePlacement{Tolerations: []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpEqual, Value: "not valid!"}}}
			},
			want: `spec.deployment.nodePlacements.workload.tolerations[0].value: Invalid value: "not valid!": taint value: a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
		},
		{
			name: "the seeds' toleration",
			mutate: func(hc *hcov1.HyperConverged) {
				placements(hc).Workload = &hcov1.NodePlacement{Tolerations: []corev1.Toleration{{Key: "key", Operator: corev1.TolerationOpEqual, Value: "kubevirt", Effect: corev1.TaintEffectNoSchedule}}}
			},
		},
		{name: "PCI selectors", mutate: func(hc *hcov1.HyperConverged) {
			hc.Spec.Virtualization.PermittedHostDevices = &hcov1.PermittedHostDevices{PciHostDevices: []hcov1.PciHostDevice{
				{PCIDeviceSelector: "10DE:1EB8", ResourceName: "nvidia.com/T4"}, {PCIDeviceSelector: "8086:6f54", ResourceName: "intel.com/qat"},
			}}
		}},
		{
			name: "PCI selector not hex",
			mutate: func(hc *hcov1.HyperConverged) {
				hc.Spec.Virtualization.PermittedHostDevices = &hcov1.PermittedHostDevices{PciHostDevices: []hcov1.PciHostDevice{{PCIDeviceSelector: "10DE-1EB8", ResourceName: "r"}}}
			},
			want: `spec.virtualization.permittedHostDevices.pciHostDevices[0].pciDeviceSelector: Invalid value: "10DE-1EB8": must be VENDOR:DEVICE in hex, e.g. "10DE:1EB8" (see lspci -nn)`,
		},
		{
			name: "PCI selector neither set",
			mutate: func(hc *hcov1.HyperConverged) {
				hc.Spec.Virtualization.PermittedHostDevices = &hcov1.PermittedHostDevices{PciHostDevices: []hcov1.PciHostDevice{{ResourceName: "r"}}}
			},
			want: `spec.virtualization.permittedHostDevices.pciHostDevices[0].pciDeviceSelector: Required value: set it to the device's VENDOR:DEVICE id in hex, e.g. "10DE:1EB8" (see lspci -nn)`,
		},
		{name: "jsonpatch that applies", mutate: func(hc *hcov1.HyperConverged) {
			hc.Annotations = map[string]string{hcov1.KubeVirtJSONPatchAnnotation: `[{"op":"add","path":"/spec/configuration/cpuRequest","value":"200m"}]`}
		}},
		{
			name: "jsonpatch not RFC 6902",
			mutate: func(hc *hcov1.HyperConverged) {
				hc.Annotations = map[string]string{hcov1.CDIJSONPatchAnnotation: `{"op":"add"}`}
			},
			want: `metadata.annotations[containerizeddataimporter.kubevirt.io/jsonpatch]: Invalid value: annotation "containerizeddataimporter.kubevirt.io/jsonpatch": not an RFC 6902 JSON patch (a JSON array of {"op", "path", "value"} objects): json: cannot unmarshal object into Go value of type jsonpatch.Patch; fix the patch or remove the annotation`,
		},
		{
			name: "jsonpatch outside spec",
			mutate: func(hc *hcov1.HyperConverged) {
				hc.Annotations = map[string]string{hcov1.SSPJSONPatchAnnotation: `[{"op":"add","path":"/metadata/labels/x","value":"y"}]`}
			},
			want: `metadata.annotations[ssp.kubevirt.io/jsonpatch]: Invalid value: annotation "ssp.kubevirt.io/jsonpatch", operation 0: add "/metadata/labels/x": only paths under /spec may be patched; fix the patch or remove the annotation`,
		},
		{
			name: "jsonpatch that does not apply",
			mutate: func(hc *hcov1.HyperConverged) {
				hc.Annotations = map[string]string{hcov1.KubeVirtJSONPatchAnnotation: `[{"op":"replace","path":"/spec/nosuch/field","value":1}]`}
			},
			want: `metadata.annotations[kubevirt.kubevirt.io/jsonpatch]: Invalid value: annotation "kubevirt.kubevirt.io/jsonpatch", operation 0: does not apply to KubeVirt: replace operation does not apply: doc is missing path: /spec/nosuch/field: missing value; fix the patch or remove the annotation`,
		},
		{
			// The operand's CRD, not our Go mirror, says which fields exist.
			name: "jsonpatch setting a field the Go mirror lacks",
			mutate: func(hc *hcov1.HyperConverged) {
				hc.Annotations = map[string]string{hcov1.CNAOJSONPatchAnnotation: `[{"op":"add","path":"/spec/tlsSecurityProfile","value":{"type":"Old","old":{}}}]`}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hc := defaulted(tt.mutate)
			before := hc.DeepCopy()
			got := validation.Message(validation.Spec(hc, opts))
			assert.Equal(t, tt.want, got)
			assert.Equal(t, before, hc, "validation must not change its input")
		})
	}
}

func TestSpecWithoutRegistryOnlyParsesPatches(t *testing.T) {
	hc := defaulted(func(hc *hcov1.HyperConverged) {
		hc.Annotations = map[string]string{hcov1.KubeVirtJSONPatchAnnotation: `[{"op":"replace","path":"/spec/nosuch/field","value":1}]`}
	})
	assert.Empty(t, validation.Spec(hc, validation.Options{}), "applies cleanly is only known with the operands")
	hc.Annotations[hcov1.KubeVirtJSONPatchAnnotation] = `not json`
	assert.Len(t, validation.Spec(hc, validation.Options{}), 1)
}

func TestIdentity(t *testing.T) {
	assert.Empty(t, validation.Identity(defaulted(nil), ns))
	hc := defaulted(func(hc *hcov1.HyperConverged) { hc.Name, hc.Namespace = "second", "default" })
	assert.Equal(t,
		`metadata.namespace: Invalid value: "default": the HyperConverged must be created in the operator namespace "kubevirt-hyperconverged"; `+
			`metadata.name: Invalid value: "second": the HyperConverged is a singleton; name it "kubevirt-hyperconverged"`,
		validation.Message(validation.Identity(hc, ns)))
}

func TestFeatureGateWarnings(t *testing.T) {
	known := "(known gates: " + strings.Join(featuregates.Known(), ", ") + ")"
	assert.Contains(t, known, "decentralizedLiveMigration, declarativeHotplugVolumes, deployKubeSecondaryDNS")
	off := hcov1.FeatureGateDisabled
	tests := []struct {
		name  string
		gates hcov1.FeatureGates
		want  []string
	}{
		{name: "known gates", gates: hcov1.FeatureGates{{Name: "downwardMetrics"}, {Name: "alignCPUs", State: &off}}},
		{name: "no gates"},
		// Acted on (featuregates.Enabled compares names case-insensitively),
		// so not called unknown.
		{name: "a known gate in KubeVirt's casing", gates: hcov1.FeatureGates{{Name: "DownwardMetrics"}}},
		{name: "deprecated", gates: hcov1.FeatureGates{{Name: "nonRoot"}},
			want: []string{`spec.featureGates "nonRoot" is deprecated and ignored; remove it`}},
		{name: "deprecated, even when off", gates: hcov1.FeatureGates{{Name: "enableApplicationAwareQuota", State: &off}},
			want: []string{`spec.featureGates "enableApplicationAwareQuota" is deprecated and ignored; remove it`}},
		{name: "unknown, in list order", gates: hcov1.FeatureGates{{Name: "zeta", State: &off}, {Name: "downwardMetrics"}, {Name: "enableMagic"}},
			want: []string{
				`spec.featureGates "zeta" is not a known feature gate and is ignored; remove it ` + known,
				`spec.featureGates "enableMagic" is not a known feature gate and is ignored; remove it ` + known,
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, validation.FeatureGateWarnings(tt.gates))
		})
	}
	assert.True(t, featuregates.Enabled(hcov1.FeatureGates{{Name: "DownwardMetrics"}}, "downwardMetrics"), "the casing is acted on")
}

// Every known or deprecated gate name is accepted without an unknown-gate warning.
func TestKnownAndDeprecatedGatesAreNotUnknown(t *testing.T) {
	var gates hcov1.FeatureGates
	for _, name := range append(featuregates.Known(), featuregates.Deprecated()...) {
		gates.Set(name, true)
	}
	warnings := validation.FeatureGateWarnings(gates)
	assert.Len(t, warnings, len(featuregates.Deprecated()))
	for _, w := range warnings {
		assert.Contains(t, w, "is deprecated and ignored")
	}
	assert.Len(t, gates, len(featuregates.Known())+len(featuregates.Deprecated()), "no name is both known and deprecated")
}

func TestWarnings(t *testing.T) {
	assert.Empty(t, validation.Warnings(defaulted(nil)), "the defaults warn about nothing")
	hc := defaulted(func(hc *hcov1.HyperConverged) {
		hc.Spec.FeatureGates.Set("nonRoot", true)
		// Acted on now, or upstream's default: no warning.
		hc.Spec.Observability = &hcov1.ObservabilityConfig{AllowedAlerts: []string{"none"}}
		hc.Spec.FeatureGates.Set("deployObservabilityController", true)
		hc.Spec.Deployment.ApplicationAwareConfig.Enable = ptr.To(true)
		hc.Spec.Deployment.DeployNetworkResourcesInjector = ptr.To(true)
		hc.Spec.Virtualization.VirtualMachineOptions.DisableFreePageReporting = ptr.To(true)
		hc.Spec.WorkloadSources.EnableCommonBootImageImport = ptr.To(false)
		hc.Spec.Deployment.DeployVMConsoleProxy = ptr.To(true)
	})
	assert.Equal(t, []string{
		`spec.featureGates "nonRoot" is deprecated and ignored; remove it`,
	}, validation.Warnings(hc))

	// Set to their defaults, the same fields warn about nothing.
	hc = defaulted(func(hc *hcov1.HyperConverged) {
		hc.Spec.Virtualization.HigherWorkloadDensity.MemoryOvercommitPercentage = hcov1.DefaultMemoryOvercommitPercentage
		hc.Spec.WorkloadSources.EnableCommonBootImageImport = ptr.To(true)
		hc.Spec.Deployment.DeployVMConsoleProxy = ptr.To(false)
	})
	assert.Empty(t, validation.Warnings(hc))
}

func TestDeletion(t *testing.T) {
	vms := validation.Workloads{Kind: "VirtualMachine", Count: 3, Example: "ns1/vm-a"}
	dvs := validation.Workloads{Kind: "DataVolume", Count: 1, Example: "ns2/dv-a"}
	none := []validation.Workloads{{Kind: "VirtualMachine"}, {Kind: "DataVolume"}}

	assert.Empty(t, validation.Deletion(defaulted(nil), none))
	assert.Equal(t,
		"spec.deployment.uninstallStrategy: Forbidden: cannot delete the HyperConverged while uninstallStrategy is BlockUninstallIfWorkloadsExist and workloads exist: "+
			"found 3 VirtualMachines, e.g. ns1/vm-a and 1 DataVolume, e.g. ns2/dv-a; delete them first, or set spec.deployment.uninstallStrategy to RemoveWorkloads to delete them together with the HyperConverged",
		validation.Message(validation.Deletion(defaulted(nil), []validation.Workloads{vms, dvs})))
	unset := defaulted(func(hc *hcov1.HyperConverged) { hc.Spec.Deployment.UninstallStrategy = "" })
	assert.Len(t, validation.Deletion(unset, []validation.Workloads{dvs}), 1, "unset strategy is the blocking default")
	remove := defaulted(func(hc *hcov1.HyperConverged) {
		hc.Spec.Deployment.UninstallStrategy = hcov1.UninstallStrategyRemoveWorkloads
	})
	assert.Empty(t, validation.Deletion(remove, []validation.Workloads{vms, dvs}))
}

func TestWorkloadPlacementUpdate(t *testing.T) {
	vm := []validation.Workloads{{Kind: "VirtualMachine", Count: 1, Example: "ns1/vm-a"}}
	old := defaulted(nil)
	moved := defaulted(func(hc *hcov1.HyperConverged) {
		placements(hc).Workload = &hcov1.NodePlacement{NodeSelector: map[string]string{"virt": "yes"}}
	})
	emptied := defaulted(func(hc *hcov1.HyperConverged) {
		placements(hc).Workload = &hcov1.NodePlacement{NodeSelector: map[string]string{}}
	})
	infra := defaulted(func(hc *hcov1.HyperConverged) {
		placements(hc).Infra = &hcov1.NodePlacement{NodeSelector: map[string]string{"infra": "yes"}}
	})

	assert.Equal(t,
		"spec.deployment.nodePlacements.workload: Forbidden: cannot change while workloads exist, since the pods serving them would move: found 1 VirtualMachine, e.g. ns1/vm-a; "+
			"revert the change, or delete every VirtualMachine and DataVolume first",
		validation.Message(validation.WorkloadPlacementUpdate(old, moved, vm)))
	assert.Empty(t, validation.WorkloadPlacementUpdate(old, moved, nil), "no workloads")
	assert.Empty(t, validation.WorkloadPlacementUpdate(old, emptied, vm), "absent and empty placement are the same")
	assert.Empty(t, validation.WorkloadPlacementUpdate(old, infra, vm), "infra placement may change")
	assert.True(t, validation.Changed(old, infra))
	assert.False(t, validation.Changed(old, defaulted(func(hc *hcov1.HyperConverged) { hc.Finalizers = []string{"x"} })))
}

// A v1beta1 HyperConverged is validated as the hub it converts to: its
// older pciVendorSelector spelling is checked as pciDeviceSelector, and the
// errors name v1 fields (the webhook rewrites them for v1beta1 requests with
// v1beta1.FieldPathsFromV1).
func TestSpecOfAConvertedV1beta1(t *testing.T) {
	old := &v1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: ns}}
	v1beta1.Default(old)
	old.Spec.PermittedHostDevices = &v1beta1.PermittedHostDevices{PciHostDevices: []v1beta1.PciHostDevice{
		{PCIVendorSelector: "10DE:1EB8", ResourceName: "nvidia.com/T4"},
		{PCIVendorSelector: "nvidia:t4", ResourceName: "nvidia.com/T4-2"},
	}}
	old.Spec.Workloads.NodePlacement = &v1beta1.NodePlacement{NodeSelector: map[string]string{"role": "virt nodes"}}
	hub := &hcov1.HyperConverged{}
	require.NoError(t, old.ConvertTo(hub))

	got := validation.Message(validation.Spec(hub, stockOptions(t)))
	const nodeSelector = `spec.deployment.nodePlacements.workload.nodeSelector[role]: Invalid value: "virt nodes": label value: `
	const pci = `spec.virtualization.permittedHostDevices.pciHostDevices[1].pciDeviceSelector: Invalid value: "nvidia:t4": must be VENDOR:DEVICE in hex, e.g. "10DE:1EB8" (see lspci -nn)`
	assert.Contains(t, got, nodeSelector)
	assert.Contains(t, got, pci)
	assert.NotContains(t, got, "pciHostDevices[0]")

	v1beta1Message := v1beta1.FieldPathsFromV1(got)
	assert.Contains(t, v1beta1Message, `spec.workloads.nodePlacement.nodeSelector[role]: Invalid value: "virt nodes"`)
	assert.Contains(t, v1beta1Message, `spec.permittedHostDevices.pciHostDevices[1].pciDeviceSelector: Invalid value: "nvidia:t4"`)
}

// BenchmarkSpec is the pure part of an admission: every rule, and the stock
// operands built to check a jsonpatch annotation.
func BenchmarkSpec(b *testing.B) {
	opts := stockOptions(b)
	hc := defaulted(func(hc *hcov1.HyperConverged) {
		hc.Annotations = map[string]string{hcov1.KubeVirtJSONPatchAnnotation: `[{"op":"add","path":"/spec/configuration/cpuRequest","value":"200m"}]`}
		placements(hc).Workload = placement(corev1.NodeSelectorRequirement{Key: "kubernetes.io/arch", Operator: corev1.NodeSelectorOpIn, Values: []string{"amd64"}})
	})
	for b.Loop() {
		if errs := validation.Spec(hc, opts); len(errs) > 0 {
			b.Fatal(errs)
		}
	}
}

func customTLS(min ocpconfigv1.TLSProtocolVersion, ciphers ...string) *ocpconfigv1.TLSSecurityProfile {
	return &ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileCustomType, Custom: &ocpconfigv1.CustomTLSProfile{
		TLSProfileSpec: ocpconfigv1.TLSProfileSpec{Ciphers: ciphers, MinTLSVersion: min}}}
}
