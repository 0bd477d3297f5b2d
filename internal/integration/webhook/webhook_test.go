package webhook

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	kvv1 "kubevirt.io/api/core/v1"
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	sspv1beta3 "kubevirt.io/ssp-operator/api/v1beta3"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/featuregates"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/internal/testenv"
	cnaov1 "github.com/hcokit/hcokit/operands/cnao/api/v1"
)

func errText(err error) string {
	if err == nil {
		return "<allowed>"
	}
	return err.Error()
}

func TestCreateOnlyTheSingletonInTheOperatorNamespace(t *testing.T) {
	env.Require(t)
	ctx := context.Background()

	err := k.Create(ctx, newHC(func(hc *v1beta1.HyperConverged) { hc.Namespace = "default" }))
	assert.Equal(t, denial(`metadata.namespace: Invalid value: "default": the HyperConverged must be created in the operator namespace "kubevirt-hyperconverged"`), errText(err))

	err = k.Create(ctx, newHC(func(hc *v1beta1.HyperConverged) { hc.Name = "second" }))
	assert.Equal(t, denial(`metadata.name: Invalid value: "second": the HyperConverged is a singleton; name it "kubevirt-hyperconverged"`), errText(err))

	hc := createHC(t, nil)
	assert.Equal(t, v1beta1.UninstallStrategyBlockUninstallIfWorkloadsExist, hc.Spec.UninstallStrategy, "CRD defaults applied before admission")
}

func TestDeleteIsBlockedWhileWorkloadsExist(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	hc := createHC(t, nil)
	vmB, vmA, dv := newVM(workloadNS, "vm-b"), newVM(workloadNS, "vm-a"), newDV(workloadNS, "dv-a")
	createWorkload(t, vmB)

	err := k.Delete(ctx, hc)
	assert.Equal(t, denial("spec.uninstallStrategy: Forbidden: cannot delete the HyperConverged while uninstallStrategy is BlockUninstallIfWorkloadsExist and workloads exist: "+
		"found 1 VirtualMachine, e.g. workloads/vm-b; delete them first, or set spec.uninstallStrategy to RemoveWorkloads to delete them together with the HyperConverged"), errText(err))

	createWorkload(t, vmA)
	createWorkload(t, dv)
	err = k.Delete(ctx, hc)
	assert.Equal(t, denial("spec.uninstallStrategy: Forbidden: cannot delete the HyperConverged while uninstallStrategy is BlockUninstallIfWorkloadsExist and workloads exist: "+
		"found 2 VirtualMachines, e.g. workloads/vm-a and 1 DataVolume, e.g. workloads/dv-a; delete them first, or set spec.uninstallStrategy to RemoveWorkloads to delete them together with the HyperConverged"), errText(err))

	deleteWorkload(t, vmA)
	deleteWorkload(t, vmB)
	err = k.Delete(ctx, hc)
	assert.Equal(t, denial("spec.uninstallStrategy: Forbidden: cannot delete the HyperConverged while uninstallStrategy is BlockUninstallIfWorkloadsExist and workloads exist: "+
		"found 1 DataVolume, e.g. workloads/dv-a; delete them first, or set spec.uninstallStrategy to RemoveWorkloads to delete them together with the HyperConverged"), errText(err))

	deleteWorkload(t, dv)
	require.NoError(t, k.Delete(ctx, hc), "no workloads left")
}

func TestDeleteWithoutWorkloadsIsAllowed(t *testing.T) {
	env.Require(t)
	hc := createHC(t, nil)
	require.NoError(t, k.Delete(context.Background(), hc))
}

func TestRemoveWorkloadsAllowsDeletion(t *testing.T) {
	env.Require(t)
	hc := createHC(t, func(hc *v1beta1.HyperConverged) { hc.Spec.UninstallStrategy = v1beta1.UninstallStrategyRemoveWorkloads })
	createWorkload(t, newVM(workloadNS, "vm-kept"))
	createWorkload(t, newDV(workloadNS, "dv-kept"))
	require.NoError(t, k.Delete(context.Background(), hc))
}

func TestWorkloadPlacementIsFrozenWhileWorkloadsExist(t *testing.T) {
	env.Require(t)
	createHC(t, nil)
	selector := func(v string) func(*v1beta1.HyperConverged) {
		return func(hc *v1beta1.HyperConverged) {
			hc.Spec.Workloads.NodePlacement = &v1beta1.NodePlacement{NodeSelector: map[string]string{"virt": v}}
		}
	}
	require.NoError(t, updateHC(t, selector("a")), "no workloads: the placement may change")

	createWorkload(t, newDV(workloadNS, "dv-pinned"))
	err := updateHC(t, selector("b"))
	assert.Equal(t, denial("spec.workloads.nodePlacement: Forbidden: cannot change while workloads exist, since the pods serving them would move: found 1 DataVolume, e.g. workloads/dv-pinned; "+
		"revert the change, or delete every VirtualMachine and DataVolume first"), errText(err))

	assert.NoError(t, updateHC(t, func(hc *v1beta1.HyperConverged) {
		hc.Spec.Infra.NodePlacement = &v1beta1.NodePlacement{NodeSelector: map[string]string{"infra": "yes"}}
	}), "the infra placement may change")
	assert.NoError(t, updateHC(t, func(hc *v1beta1.HyperConverged) { hc.Labels = map[string]string{"team": "virt"} }), "metadata may change")
}

func TestJSONPatchAnnotations(t *testing.T) {
	env.Require(t)
	createHC(t, nil)
	annotate := func(key, value string) func(*v1beta1.HyperConverged) {
		return func(hc *v1beta1.HyperConverged) { hc.Annotations = map[string]string{key: value} }
	}
	tests := []struct {
		name, key, value, want string
	}{
		{name: "applies", key: v1beta1.KubeVirtJSONPatchAnnotation, value: `[{"op":"add","path":"/spec/configuration/cpuRequest","value":"200m"}]`},
		{name: "not RFC 6902", key: v1beta1.CDIJSONPatchAnnotation, value: `{"op":"add"}`,
			want: `metadata.annotations[containerizeddataimporter.kubevirt.io/jsonpatch]: Invalid value: annotation "containerizeddataimporter.kubevirt.io/jsonpatch": not an RFC 6902 JSON patch (a JSON array of {"op", "path", "value"} objects): json: cannot unmarshal object into Go value of type jsonpatch.Patch; fix the patch or remove the annotation`},
		{name: "outside /spec", key: v1beta1.SSPJSONPatchAnnotation, value: `[{"op":"add","path":"/metadata/labels/x","value":"y"}]`,
			want: `metadata.annotations[ssp.kubevirt.io/jsonpatch]: Invalid value: annotation "ssp.kubevirt.io/jsonpatch", operation 0: add "/metadata/labels/x": only paths under /spec may be patched; fix the patch or remove the annotation`},
		{name: "does not apply", key: v1beta1.KubeVirtJSONPatchAnnotation, value: `[{"op":"replace","path":"/spec/nosuch/field","value":1}]`,
			want: `metadata.annotations[kubevirt.kubevirt.io/jsonpatch]: Invalid value: annotation "kubevirt.kubevirt.io/jsonpatch", operation 0: does not apply to KubeVirt: replace operation does not apply: doc is missing path: /spec/nosuch/field: missing value; fix the patch or remove the annotation`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := updateHC(t, annotate(tt.key, tt.value))
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			assert.Equal(t, denial(tt.want), errText(err))
		})
	}
}

func TestSpecRules(t *testing.T) {
	env.Require(t)
	createHC(t, nil)
	const reqPath = "spec.infra.nodePlacement.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0]"
	affinity := func(req corev1.NodeSelectorRequirement) func(*v1beta1.HyperConverged) {
		return func(hc *v1beta1.HyperConverged) {
			hc.Spec.Infra.NodePlacement = &v1beta1.NodePlacement{Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{req}}}},
			}}}
		}
	}
	certs := func(f func(*v1beta1.HyperConvergedCertConfig)) func(*v1beta1.HyperConverged) {
		return func(hc *v1beta1.HyperConverged) { f(&hc.Spec.CertConfig) }
	}
	d := func(s string) *metav1.Duration {
		v, err := time.ParseDuration(s)
		require.NoError(t, err)
		return &metav1.Duration{Duration: v}
	}
	pci := func(devs ...v1beta1.PciHostDevice) func(*v1beta1.HyperConverged) {
		return func(hc *v1beta1.HyperConverged) {
			hc.Spec.PermittedHostDevices = &v1beta1.PermittedHostDevices{PciHostDevices: devs}
		}
	}
	const invalid = `HyperConverged.hco.kubevirt.io "kubevirt-hyperconverged" is invalid: `
	tests := []struct {
		name   string
		mutate func(*v1beta1.HyperConverged)
		want   string // the full error; empty: allowed
	}{
		{name: "bandwidth", mutate: func(hc *v1beta1.HyperConverged) { hc.Spec.LiveMigrationConfig.BandwidthPerMigration = ptr.To("128Mi") }},
		{name: "bandwidth negative (webhook)",
			mutate: func(hc *v1beta1.HyperConverged) { hc.Spec.LiveMigrationConfig.BandwidthPerMigration = ptr.To("-1Mi") },
			want:   denial(`spec.liveMigrationConfig.bandwidthPerMigration: Invalid value: "-1Mi": must be a non-negative quantity of bytes per second, such as "64Mi" ("0" for no limit)`)},
		{name: "bandwidth not a quantity (CRD pattern)",
			mutate: func(hc *v1beta1.HyperConverged) {
				hc.Spec.LiveMigrationConfig.BandwidthPerMigration = ptr.To("64 MB/s")
			},
			want: invalid + `spec.liveMigrationConfig.bandwidthPerMigration: Invalid value: "64 MB/s": spec.liveMigrationConfig.bandwidthPerMigration in body should match '^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$'`},
		{name: "certConfig", mutate: certs(func(c *v1beta1.HyperConvergedCertConfig) {
			c.CA.Duration, c.CA.RenewBefore, c.Server.Duration, c.Server.RenewBefore = d("720h"), d("24h"), d("10m"), d("10m")
		})},
		{name: "certConfig duration below 10m (CEL)",
			mutate: certs(func(c *v1beta1.HyperConvergedCertConfig) { c.Server.Duration, c.Server.RenewBefore = d("5m"), d("5m") }),
			want:   invalid + `[spec.certConfig.server.duration: Invalid value: must be at least 10m0s, spec.certConfig.server.renewBefore: Invalid value: must be at least 10m0s]`},
		{name: "certConfig renewBefore above duration (CEL)",
			mutate: certs(func(c *v1beta1.HyperConvergedCertConfig) { c.CA.Duration, c.CA.RenewBefore = d("48h"), d("72h") }),
			want:   invalid + `spec.certConfig.ca.renewBefore: Invalid value: must not exceed spec.certConfig.ca.duration; lower renewBefore or raise duration`},
		{name: "certConfig server outlives CA (CEL)",
			mutate: certs(func(c *v1beta1.HyperConvergedCertConfig) { c.CA.Duration, c.Server.Duration = d("48h"), d("96h") }),
			want:   invalid + `spec.certConfig.server.duration: Invalid value: must not exceed spec.certConfig.ca.duration: a server certificate cannot outlive its CA; lower server.duration or raise ca.duration`},
		{name: "node affinity",
			mutate: affinity(corev1.NodeSelectorRequirement{Key: "cpus", Operator: corev1.NodeSelectorOpGt, Values: []string{"8"}})},
		{name: "node affinity In without values",
			mutate: affinity(corev1.NodeSelectorRequirement{Key: "zone", Operator: corev1.NodeSelectorOpIn}),
			want:   denial(reqPath + `.values: Required value: operator In needs at least one value; list the values, or use Exists or DoesNotExist`)},
		{name: "node affinity Lt not an integer",
			mutate: affinity(corev1.NodeSelectorRequirement{Key: "cpus", Operator: corev1.NodeSelectorOpLt, Values: []string{"eight"}}),
			want:   denial(reqPath + `.values[0]: Invalid value: "eight": operator Lt takes an integer value, e.g. "8"`)},
		{name: "PCI selectors", mutate: pci(v1beta1.PciHostDevice{PCIDeviceSelector: "10DE:1EB8", ResourceName: "nvidia.com/T4"})},
		{name: "PCI selector not hex (CRD pattern)",
			mutate: pci(v1beta1.PciHostDevice{PCIDeviceSelector: "10DE-1EB8", ResourceName: "r"}),
			want:   invalid + `spec.permittedHostDevices.pciHostDevices[0].pciDeviceSelector: Invalid value: "10DE-1EB8": spec.permittedHostDevices.pciHostDevices[0].pciDeviceSelector in body should match '^[0-9a-fA-F]{4}:[0-9a-fA-F]{4}$'`},
		{name: "PCI selector twice (CEL)",
			mutate: pci(v1beta1.PciHostDevice{PCIDeviceSelector: "10DE:1EB8", PCIVendorSelector: "10DE:1EB8", ResourceName: "r"}),
			want:   invalid + `spec.permittedHostDevices.pciHostDevices[0]: Invalid value: set exactly one of pciDeviceSelector and pciVendorSelector`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := updateHC(t, tt.mutate)
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			assert.Equal(t, tt.want, errText(err))
		})
	}
}

func TestUnknownAndDeprecatedFeatureGatesAreAllowedWithWarnings(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": v1beta1.GroupVersion.String(), "kind": "HyperConverged",
		"metadata": map[string]any{"name": v1beta1.HyperConvergedName, "namespace": ns},
		"spec": map[string]any{"featureGates": map[string]any{
			"downwardMetrics": true, "nonRoot": true, "enableFutureThing": true,
		}},
	}}
	warnings.take()
	// Strict, as kubectl sends it: unknown gates must not be rejected.
	require.NoError(t, k.Create(ctx, u, client.FieldValidation(metav1.FieldValidationStrict)))
	t.Cleanup(func() { deleteHC(t, newHC(nil)) })
	known := strings.Join(featuregates.Known(), ", ")
	assert.Equal(t, []string{
		"spec.featureGates.nonRoot is deprecated and ignored; remove it",
		"spec.featureGates.enableFutureThing is not a known feature gate and is ignored; remove it (known gates: " + known + ")",
	}, warnings.take(), "warnings name the fields as written in v1beta1")

	got := &unstructured.Unstructured{}
	got.SetGroupVersionKind(u.GroupVersionKind())
	require.NoError(t, k.Get(ctx, client.ObjectKeyFromObject(u), got))
	gates, _, _ := unstructured.NestedMap(got.Object, "spec", "featureGates")
	assert.Equal(t, true, gates["enableFutureThing"], "the CRD keeps unknown gates")
	assert.Equal(t, false, gates["alignCPUs"], "and still defaults the known ones")

	// Re-read on a conflict: the operator writes the status meanwhile.
	update := func(mutate func(*unstructured.Unstructured)) error {
		return retry.RetryOnConflict(retry.DefaultRetry, func() error {
			if err := k.Get(ctx, client.ObjectKeyFromObject(u), got); err != nil {
				return err
			}
			mutate(got)
			return k.Update(ctx, got)
		})
	}
	require.NoError(t, update(func(got *unstructured.Unstructured) {
		require.NoError(t, unstructured.SetNestedField(got.Object, true, "spec", "featureGates", "alignCPUs"))
	}))
	w := warnings.take()
	// Two warnings per update sent (a conflict retried sends it again).
	assert.True(t, len(w) >= 2 && len(w)%2 == 0, "an update warns again: %v", w)
	assert.True(t, len(w) >= 2 && strings.HasPrefix(w[1], "spec.featureGates.enableFutureThing is not a known feature gate"), "%v", w)

	warnings.take() // a retried update warned as often as it was sent
	require.NoError(t, update(func(got *unstructured.Unstructured) { got.SetLabels(map[string]string{"x": "y"}) }))
	assert.Empty(t, warnings.take(), "an update that leaves the spec alone is not re-validated")
}

// The mutating webhook stores the finalizer with the create itself: the
// object the create returns carries it, before the operator has run; and
// upstream's app label, which upstream's operator adds with its first
// update (setLabels at 03da3cf).
func TestFinalizerIsStoredWithTheCreate(t *testing.T) {
	env.Require(t)
	hc := createHC(t, nil)
	assert.Equal(t, []string{hco.FinalizerName}, hc.Finalizers)
	assert.Equal(t, map[string]string{"app": "kubevirt-hyperconverged"}, hc.Labels)

	other := newHC(func(hc *v1beta1.HyperConverged) { hc.Name = "second" })
	err := k.Create(context.Background(), other)
	require.Error(t, err, "only the singleton is admitted, so no other gets a finalizer the operator would never remove")
}

// Deleted right after it is created: the finalizer was stored with the
// create, so the operator's uninstall runs and no operand CR is left.
func TestDeletionRightAfterCreationLeavesNoOperand(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	for i := range 3 {
		hc := newHC(nil)
		require.NoError(t, k.Create(ctx, hc))
		require.NoError(t, k.Delete(ctx, hc), "run %d", i)
		deleteHC(t, hc)
		for _, list := range []client.ObjectList{&kvv1.KubeVirtList{}, &cdiv1beta1.CDIList{}, &cnaov1.NetworkAddonsConfigList{}, &sspv1beta3.SSPList{}} {
			require.NoError(t, k.List(ctx, list))
			assert.Zero(t, meta.LenList(list), "run %d: %T", i, list)
		}
	}
}

// Upstream's namespace guard: the operator namespace cannot be deleted
// while its HyperConverged exists; once it is gone, it can (dry runs: the
// namespace is the package's).
func TestOperatorNamespaceDeletionWaitsForTheHyperConverged(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	operatorNS := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}
	hc := createHC(t, nil)

	err := k.Delete(ctx, operatorNS, client.DryRunAll)
	assert.Equal(t, `admission webhook "validate-namespace.hco.kubevirt.io" denied the request: HyperConverged CR is still present, please remove it before deleting the containing hcoNamespace`, errText(err))
	require.NoError(t, k.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: workloadNS}}, client.DryRunAll), "another namespace is not guarded")

	require.NoError(t, k.Delete(ctx, hc))
	testenv.Eventually(t, "HyperConverged gone", func() error {
		if err := k.Get(ctx, client.ObjectKeyFromObject(hc), hc); !apierrors.IsNotFound(err) {
			return fmt.Errorf("still there: %v", err)
		}
		return nil
	})
	testenv.Eventually(t, "the namespace's deletion admitted", func() error {
		return k.Delete(ctx, operatorNS, client.DryRunAll)
	})
}
