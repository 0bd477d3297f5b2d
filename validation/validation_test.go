package validation_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/operands/cdi"
	"github.com/hcokit/hcokit/operands/cnao"
	"github.com/hcokit/hcokit/operands/hpp"
	"github.com/hcokit/hcokit/operands/kubevirt"
	"github.com/hcokit/hcokit/operands/ssp"
	"github.com/hcokit/hcokit/validation"
)

const ns = v1beta1.DefaultNamespace

func stockOptions(t testing.TB) validation.Options {
	t.Helper()
	reg, err := hco.NewRegistry(kubevirt.New(), cdi.New(), cnao.New(), ssp.New(), hpp.New())
	require.NoError(t, err)
	return validation.Options{Registry: reg, Environment: hco.Environment{Namespace: ns, CommonTemplatesNamespace: hco.DefaultCommonTemplatesNamespace}}
}

// defaulted returns a HyperConverged as the API server stores it, CRD defaults filled.
func defaulted(mutate func(*v1beta1.HyperConverged)) *v1beta1.HyperConverged {
	hc := &v1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: v1beta1.HyperConvergedName, Namespace: ns}}
	v1beta1.Default(hc)
	if mutate != nil {
		mutate(hc)
	}
	return hc
}

func dur(d time.Duration) *metav1.Duration { return &metav1.Duration{Duration: d} }

func placement(reqs ...corev1.NodeSelectorRequirement) *v1beta1.NodePlacement {
	return &v1beta1.NodePlacement{Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: reqs}},
		},
	}}}
}

func TestSpec(t *testing.T) {
	opts := stockOptions(t)
	const reqPath = "spec.workloads.nodePlacement.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0]"
	tests := []struct {
		name   string
		mutate func(*v1beta1.HyperConverged)
		want   string // Message of the errors; empty: valid
	}{
		{name: "defaults", want: ""},
		{name: "bandwidth quantity", mutate: func(hc *v1beta1.HyperConverged) { hc.Spec.LiveMigrationConfig.BandwidthPerMigration = ptr.To("1Gi") }},
		{name: "bandwidth zero means no limit", mutate: func(hc *v1beta1.HyperConverged) { hc.Spec.LiveMigrationConfig.BandwidthPerMigration = ptr.To("0") }},
		{
			name: "bandwidth not a quantity",
			mutate: func(hc *v1beta1.HyperConverged) {
				hc.Spec.LiveMigrationConfig.BandwidthPerMigration = ptr.To("64 MB/s")
			},
			want: `spec.liveMigrationConfig.bandwidthPerMigration: Invalid value: "64 MB/s": must be a non-negative quantity of bytes per second, such as "64Mi" ("0" for no limit)`,
		},
		{
			name:   "bandwidth negative",
			mutate: func(hc *v1beta1.HyperConverged) { hc.Spec.LiveMigrationConfig.BandwidthPerMigration = ptr.To("-1Mi") },
			want:   `spec.liveMigrationConfig.bandwidthPerMigration: Invalid value: "-1Mi": must be a non-negative quantity of bytes per second, such as "64Mi" ("0" for no limit)`,
		},
		{name: "certConfig at the minimum", mutate: func(hc *v1beta1.HyperConverged) {
			hc.Spec.CertConfig = v1beta1.HyperConvergedCertConfig{
				CA:     v1beta1.CertRotateConfigCA{Duration: dur(10 * time.Minute), RenewBefore: dur(10 * time.Minute)},
				Server: v1beta1.CertRotateConfigServer{Duration: dur(10 * time.Minute), RenewBefore: dur(10 * time.Minute)},
			}
		}},
		{
			name:   "certConfig duration too short",
			mutate: func(hc *v1beta1.HyperConverged) { hc.Spec.CertConfig.Server.Duration = dur(5 * time.Minute) },
			want: `spec.certConfig.server.duration: Invalid value: "5m0s": must be at least 10m0s; ` +
				`spec.certConfig.server.renewBefore: Invalid value: "12h0m0s": must not exceed spec.certConfig.server.duration (5m0s); lower renewBefore or raise duration`,
		},
		{
			name:   "certConfig renewBefore too short",
			mutate: func(hc *v1beta1.HyperConverged) { hc.Spec.CertConfig.CA.RenewBefore = dur(time.Minute) },
			want:   `spec.certConfig.ca.renewBefore: Invalid value: "1m0s": must be at least 10m0s`,
		},
		{
			name:   "certConfig renewBefore above duration",
			mutate: func(hc *v1beta1.HyperConverged) { hc.Spec.CertConfig.CA.RenewBefore = dur(72 * time.Hour) },
			want:   `spec.certConfig.ca.renewBefore: Invalid value: "72h0m0s": must not exceed spec.certConfig.ca.duration (48h0m0s); lower renewBefore or raise duration`,
		},
		{
			name:   "certConfig server outlives CA",
			mutate: func(hc *v1beta1.HyperConverged) { hc.Spec.CertConfig.Server.Duration = dur(96 * time.Hour) },
			want:   `spec.certConfig.server.duration: Invalid value: "96h0m0s": must not exceed spec.certConfig.ca.duration (48h0m0s): a server certificate cannot outlive its CA; lower server.duration or raise ca.duration`,
		},
		{name: "node affinity valid", mutate: func(hc *v1beta1.HyperConverged) {
			hc.Spec.Workloads.NodePlacement = placement(
				corev1.NodeSelectorRequirement{Key: "kubernetes.io/arch", Operator: corev1.NodeSelectorOpIn, Values: []string{"amd64"}},
				corev1.NodeSelectorRequirement{Key: "cpu-count", Operator: corev1.NodeSelectorOpGt, Values: []string{"8"}},
				corev1.NodeSelectorRequirement{Key: "gpu", Operator: corev1.NodeSelectorOpExists},
			)
		}},
		{
			name: "node affinity In without values",
			mutate: func(hc *v1beta1.HyperConverged) {
				hc.Spec.Workloads.NodePlacement = placement(corev1.NodeSelectorRequirement{Key: "zone", Operator: corev1.NodeSelectorOpIn})
			},
			want: reqPath + `.values: Required value: operator In needs at least one value; list the values, or use Exists or DoesNotExist`,
		},
		{
			name: "node affinity Gt not an integer",
			mutate: func(hc *v1beta1.HyperConverged) {
				hc.Spec.Workloads.NodePlacement = placement(corev1.NodeSelectorRequirement{Key: "cpus", Operator: corev1.NodeSelectorOpGt, Values: []string{"many"}})
			},
			want: reqPath + `.values[0]: Invalid value: "many": operator Gt takes an integer value, e.g. "8"`,
		},
		{
			name: "node affinity Lt two values",
			mutate: func(hc *v1beta1.HyperConverged) {
				hc.Spec.Workloads.NodePlacement = placement(corev1.NodeSelectorRequirement{Key: "cpus", Operator: corev1.NodeSelectorOpLt, Values: []string{"1", "2"}})
			},
			want: reqPath + `.values: Invalid value: ["1","2"]: operator Lt takes exactly one integer value`,
		},
		{
			name: "node affinity Exists with values",
			mutate: func(hc *v1beta1.HyperConverged) {
				hc.Spec.Workloads.NodePlacement = placement(corev1.NodeSelectorRequirement{Key: "gpu", Operator: corev1.NodeSelectorOpExists, Values: []string{"x"}})
			},
			want: reqPath + `.values: Forbidden: operator Exists takes no values; remove them, or use In or NotIn`,
		},
		{
			name: "node affinity unknown operator and bad key",
			mutate: func(hc *v1beta1.HyperConverged) {
				hc.Spec.Workloads.NodePlacement = placement(corev1.NodeSelectorRequirement{Key: "bad key", Operator: "Equals", Values: []string{"x"}})
			},
			want: reqPath + `.key: Invalid value: "bad key": label key: name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'); ` +
				reqPath + `.operator: Unsupported value: "Equals": supported values: "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"`,
		},
		{
			name: "infra node selector label value",
			mutate: func(hc *v1beta1.HyperConverged) {
				hc.Spec.Infra.NodePlacement = &v1beta1.NodePlacement{NodeSelector: map[string]string{"role": "infra nodes"}}
			},
			want: `spec.infra.nodePlacement.nodeSelector[role]: Invalid value: "infra nodes": label value: a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
		},
		{
			name: "toleration Exists with a value",
			mutate: func(hc *v1beta1.HyperConverged) {
				hc.Spec.Infra.NodePlacement = &v1beta1.NodePlacement{Tolerations: []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpExists, Value: "v"}}}
			},
			want: `spec.infra.nodePlacement.tolerations[0].value: Invalid value: "v": operator Exists takes no value; remove it, or use operator Equal`,
		},
		{
			name: "tolerationSeconds without NoExecute",
			mutate: func(hc *v1beta1.HyperConverged) {
				secs := int64(30)
				hc.Spec.Workloads.NodePlacement = &v1beta1.NodePlacement{Tolerations: []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpEqual, Value: "v", Effect: corev1.TaintEffectNoSchedule, TolerationSeconds: &secs}}}
			},
			want: `spec.workloads.nodePlacement.tolerations[0].tolerationSeconds: Invalid value: 30: applies only to the NoExecute effect; set effect: NoExecute or remove tolerationSeconds`,
		},
		{
			name: "toleration Equal with a value that is no label value",
			mutate: func(hc *v1beta1.HyperConverged) {
				hc.Spec.Workloads.NodePlacement = &v1beta1.NodePlacement{Tolerations: []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpEqual, Value: "not valid!"}}}
			},
			want: `spec.workloads.nodePlacement.tolerations[0].value: Invalid value: "not valid!": taint value: a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
		},
		{
			name: "the seeds' toleration",
			mutate: func(hc *v1beta1.HyperConverged) {
				hc.Spec.Workloads.NodePlacement = &v1beta1.NodePlacement{Tolerations: []corev1.Toleration{{Key: "key", Operator: corev1.TolerationOpEqual, Value: "kubevirt", Effect: corev1.TaintEffectNoSchedule}}}
			},
		},
		{name: "PCI selectors", mutate: func(hc *v1beta1.HyperConverged) {
			hc.Spec.PermittedHostDevices = &v1beta1.PermittedHostDevices{PciHostDevices: []v1beta1.PciHostDevice{
				{PCIDeviceSelector: "10DE:1EB8", ResourceName: "nvidia.com/T4"}, {PCIVendorSelector: "8086:6f54", ResourceName: "intel.com/qat"},
			}}
		}},
		{
			name: "PCI selector not hex",
			mutate: func(hc *v1beta1.HyperConverged) {
				hc.Spec.PermittedHostDevices = &v1beta1.PermittedHostDevices{PciHostDevices: []v1beta1.PciHostDevice{{PCIDeviceSelector: "10DE-1EB8", ResourceName: "r"}}}
			},
			want: `spec.permittedHostDevices.pciHostDevices[0].pciDeviceSelector: Invalid value: "10DE-1EB8": must be VENDOR:DEVICE in hex, e.g. "10DE:1EB8" (see lspci -nn)`,
		},
		{
			name: "PCI selector both set",
			mutate: func(hc *v1beta1.HyperConverged) {
				hc.Spec.PermittedHostDevices = &v1beta1.PermittedHostDevices{PciHostDevices: []v1beta1.PciHostDevice{{PCIDeviceSelector: "10DE:1EB8", PCIVendorSelector: "10DE:1EB8", ResourceName: "r"}}}
			},
			want: `spec.permittedHostDevices.pciHostDevices[0].pciVendorSelector: Invalid value: "10DE:1EB8": set only one of pciDeviceSelector and pciVendorSelector (two names for the same selector); remove pciVendorSelector`,
		},
		{
			name: "PCI selector neither set",
			mutate: func(hc *v1beta1.HyperConverged) {
				hc.Spec.PermittedHostDevices = &v1beta1.PermittedHostDevices{PciHostDevices: []v1beta1.PciHostDevice{{ResourceName: "r"}}}
			},
			want: `spec.permittedHostDevices.pciHostDevices[0].pciDeviceSelector: Required value: set it to the device's VENDOR:DEVICE id in hex, e.g. "10DE:1EB8" (see lspci -nn)`,
		},
		{name: "jsonpatch that applies", mutate: func(hc *v1beta1.HyperConverged) {
			hc.Annotations = map[string]string{v1beta1.KubeVirtJSONPatchAnnotation: `[{"op":"add","path":"/spec/configuration/cpuRequest","value":"200m"}]`}
		}},
		{
			name: "jsonpatch not RFC 6902",
			mutate: func(hc *v1beta1.HyperConverged) {
				hc.Annotations = map[string]string{v1beta1.CDIJSONPatchAnnotation: `{"op":"add"}`}
			},
			want: `metadata.annotations[containerizeddataimporter.kubevirt.io/jsonpatch]: Invalid value: annotation "containerizeddataimporter.kubevirt.io/jsonpatch": not an RFC 6902 JSON patch (a JSON array of {"op", "path", "value"} objects): json: cannot unmarshal object into Go value of type jsonpatch.Patch; fix the patch or remove the annotation`,
		},
		{
			name: "jsonpatch outside spec",
			mutate: func(hc *v1beta1.HyperConverged) {
				hc.Annotations = map[string]string{v1beta1.SSPJSONPatchAnnotation: `[{"op":"add","path":"/metadata/labels/x","value":"y"}]`}
			},
			want: `metadata.annotations[ssp.kubevirt.io/jsonpatch]: Invalid value: annotation "ssp.kubevirt.io/jsonpatch", operation 0: add "/metadata/labels/x": only paths under /spec may be patched; fix the patch or remove the annotation`,
		},
		{
			name: "jsonpatch that does not apply",
			mutate: func(hc *v1beta1.HyperConverged) {
				hc.Annotations = map[string]string{v1beta1.KubeVirtJSONPatchAnnotation: `[{"op":"replace","path":"/spec/nosuch/field","value":1}]`}
			},
			want: `metadata.annotations[kubevirt.kubevirt.io/jsonpatch]: Invalid value: annotation "kubevirt.kubevirt.io/jsonpatch", operation 0: does not apply to KubeVirt: replace operation does not apply: doc is missing path: /spec/nosuch/field: missing value; fix the patch or remove the annotation`,
		},
		{
			// The operand's CRD, not our Go mirror, says which fields exist.
			name: "jsonpatch setting a field the Go mirror lacks",
			mutate: func(hc *v1beta1.HyperConverged) {
				hc.Annotations = map[string]string{v1beta1.CNAOJSONPatchAnnotation: `[{"op":"add","path":"/spec/tlsSecurityProfile","value":{"type":"Old","old":{}}}]`}
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
	hc := defaulted(func(hc *v1beta1.HyperConverged) {
		hc.Annotations = map[string]string{v1beta1.KubeVirtJSONPatchAnnotation: `[{"op":"replace","path":"/spec/nosuch/field","value":1}]`}
	})
	assert.Empty(t, validation.Spec(hc, validation.Options{}), "applies cleanly is only known with the operands")
	hc.Annotations[v1beta1.KubeVirtJSONPatchAnnotation] = `not json`
	assert.Len(t, validation.Spec(hc, validation.Options{}), 1)
}

func TestIdentity(t *testing.T) {
	assert.Empty(t, validation.Identity(defaulted(nil), ns))
	hc := defaulted(func(hc *v1beta1.HyperConverged) { hc.Name, hc.Namespace = "second", "default" })
	assert.Equal(t,
		`metadata.namespace: Invalid value: "default": the HyperConverged must be created in the operator namespace "kubevirt-hyperconverged"; `+
			`metadata.name: Invalid value: "second": the HyperConverged is a singleton; name it "kubevirt-hyperconverged"`,
		validation.Message(validation.Identity(hc, ns)))
}

func TestFeatureGateWarnings(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want []string
	}{
		{name: "known gates", raw: `{"spec":{"featureGates":{"downwardMetrics":true,"alignCPUs":false}}}`},
		{name: "no spec", raw: `{}`},
		{name: "not JSON", raw: `{`},
		{name: "featureGates not an object", raw: `{"spec":{"featureGates":[1]}}`},
		{name: "deprecated", raw: `{"spec":{"featureGates":{"nonRoot":true}}}`,
			want: []string{"spec.featureGates.nonRoot is deprecated and ignored; remove it"}},
		{name: "unknown, any value", raw: `{"spec":{"featureGates":{"zeta":"yes","enableMagic":true}}}`,
			want: []string{
				"spec.featureGates.enableMagic is not a known feature gate and is ignored; remove it (known gates: alignCPUs, decentralizedLiveMigration, declarativeHotplugVolumes, deployKubeSecondaryDNS, disableMDevConfiguration, downwardMetrics, persistentReservation, withHostPassthroughCPU)",
				"spec.featureGates.zeta is not a known feature gate and is ignored; remove it (known gates: alignCPUs, decentralizedLiveMigration, declarativeHotplugVolumes, deployKubeSecondaryDNS, disableMDevConfiguration, downwardMetrics, persistentReservation, withHostPassthroughCPU)",
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, validation.FeatureGateWarnings([]byte(tt.raw)))
		})
	}
}

func TestKnownFeatureGatesIncludeDeprecated(t *testing.T) {
	known := validation.KnownFeatureGates()
	assert.Contains(t, known, "withHostPassthroughCPU")
	assert.Contains(t, known, "nonRoot")
	assert.Len(t, known, 17)
}

func TestDeletion(t *testing.T) {
	vms := validation.Workloads{Kind: "VirtualMachine", Count: 3, Example: "ns1/vm-a"}
	dvs := validation.Workloads{Kind: "DataVolume", Count: 1, Example: "ns2/dv-a"}
	none := []validation.Workloads{{Kind: "VirtualMachine"}, {Kind: "DataVolume"}}

	assert.Empty(t, validation.Deletion(defaulted(nil), none))
	assert.Equal(t,
		"spec.uninstallStrategy: Forbidden: cannot delete the HyperConverged while uninstallStrategy is BlockUninstallIfWorkloadsExist and workloads exist: "+
			"found 3 VirtualMachines, e.g. ns1/vm-a and 1 DataVolume, e.g. ns2/dv-a; delete them first, or set spec.uninstallStrategy to RemoveWorkloads to delete them together with the HyperConverged",
		validation.Message(validation.Deletion(defaulted(nil), []validation.Workloads{vms, dvs})))
	unset := defaulted(func(hc *v1beta1.HyperConverged) { hc.Spec.UninstallStrategy = "" })
	assert.Len(t, validation.Deletion(unset, []validation.Workloads{dvs}), 1, "unset strategy is the blocking default")
	remove := defaulted(func(hc *v1beta1.HyperConverged) { hc.Spec.UninstallStrategy = v1beta1.UninstallStrategyRemoveWorkloads })
	assert.Empty(t, validation.Deletion(remove, []validation.Workloads{vms, dvs}))
}

func TestWorkloadPlacementUpdate(t *testing.T) {
	vm := []validation.Workloads{{Kind: "VirtualMachine", Count: 1, Example: "ns1/vm-a"}}
	old := defaulted(nil)
	moved := defaulted(func(hc *v1beta1.HyperConverged) {
		hc.Spec.Workloads.NodePlacement = &v1beta1.NodePlacement{NodeSelector: map[string]string{"virt": "yes"}}
	})
	emptied := defaulted(func(hc *v1beta1.HyperConverged) {
		hc.Spec.Workloads.NodePlacement = &v1beta1.NodePlacement{NodeSelector: map[string]string{}}
	})
	infra := defaulted(func(hc *v1beta1.HyperConverged) {
		hc.Spec.Infra.NodePlacement = &v1beta1.NodePlacement{NodeSelector: map[string]string{"infra": "yes"}}
	})

	assert.Equal(t,
		"spec.workloads.nodePlacement: Forbidden: cannot change while workloads exist, since the pods serving them would move: found 1 VirtualMachine, e.g. ns1/vm-a; "+
			"revert the change, or delete every VirtualMachine and DataVolume first",
		validation.Message(validation.WorkloadPlacementUpdate(old, moved, vm)))
	assert.Empty(t, validation.WorkloadPlacementUpdate(old, moved, nil), "no workloads")
	assert.Empty(t, validation.WorkloadPlacementUpdate(old, emptied, vm), "absent and empty placement are the same")
	assert.Empty(t, validation.WorkloadPlacementUpdate(old, infra, vm), "infra placement may change")
	assert.True(t, validation.Changed(old, infra))
	assert.False(t, validation.Changed(old, defaulted(func(hc *v1beta1.HyperConverged) { hc.Finalizers = []string{"x"} })))
}

// BenchmarkSpec is the pure part of an admission: every rule, and the stock
// operands built to check a jsonpatch annotation.
func BenchmarkSpec(b *testing.B) {
	opts := stockOptions(b)
	hc := defaulted(func(hc *v1beta1.HyperConverged) {
		hc.Annotations = map[string]string{v1beta1.KubeVirtJSONPatchAnnotation: `[{"op":"add","path":"/spec/configuration/cpuRequest","value":"200m"}]`}
		hc.Spec.Workloads.NodePlacement = placement(corev1.NodeSelectorRequirement{Key: "kubernetes.io/arch", Operator: corev1.NodeSelectorOpIn, Values: []string{"amd64"}})
	})
	for b.Loop() {
		if errs := validation.Spec(hc, opts); len(errs) > 0 {
			b.Fatal(errs)
		}
	}
}
