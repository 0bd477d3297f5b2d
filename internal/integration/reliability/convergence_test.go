package reliability

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kvv1 "kubevirt.io/api/core/v1"
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	sspv1beta3 "kubevirt.io/ssp-operator/api/v1beta3"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hcostatus"
	cnaov1 "github.com/hcokit/hcokit/operands/cnao/api/v1"
	hppv1beta1 "github.com/hcokit/hcokit/operands/hpp/api/v1beta1"
)

// fullHC sets every kind of setting the operands translate: placement,
// feature gates, live migration, host devices, deployOVS and the
// hostpath provisioner (so all five operands have a CR).
func fullHC(hc *v1beta1.HyperConverged) {
	hc.Annotations = map[string]string{v1beta1.DeployOVSAnnotation: "true"}
	hc.Spec.Infra.NodePlacement = &v1beta1.NodePlacement{NodeSelector: map[string]string{"nodeType": "infra"}}
	hc.Spec.Workloads.NodePlacement = &v1beta1.NodePlacement{
		NodeSelector: map[string]string{"nodeType": "nested-virtualization"},
		Tolerations:  []corev1.Toleration{{Key: "key", Operator: corev1.TolerationOpEqual, Value: "kubevirt", Effect: corev1.TaintEffectNoSchedule}},
	}
	hc.Spec.FeatureGates.WithHostPassthroughCPU = ptrTo(true)
	hc.Spec.LiveMigrationConfig = v1beta1.LiveMigrationConfigurations{
		BandwidthPerMigration: ptrTo("128Mi"), CompletionTimeoutPerGiB: ptrTo(int64(400)),
		ParallelMigrationsPerCluster: ptrTo(uint32(10)), ParallelOutboundMigrationsPerNode: ptrTo(uint32(4)), ProgressTimeout: ptrTo(int64(300)),
	}
	hc.Spec.PermittedHostDevices = &v1beta1.PermittedHostDevices{
		PciHostDevices: []v1beta1.PciHostDevice{
			{PCIVendorSelector: "10DE:1EB8", ResourceName: "nvidia.com/TU104GL_Tesla_T4", ExternalResourceProvider: true},
			{PCIDeviceSelector: "8086:6F54", ResourceName: "intel.com/qat", Disabled: true},
		},
		MediatedDevices: []v1beta1.MediatedHostDevice{{MDEVNameSelector: "GRID T4-1Q", ResourceName: "nvidia.com/GRID_T4-1Q"}},
	}
	hc.Spec.HostpathProvisioner = &v1beta1.HostpathProvisionerConfig{StoragePools: []v1beta1.HostpathStoragePool{{Name: "local", Path: "/var/hpp"}}}
}

// converged says why the cluster does not yet hold what fullHC asks for,
// with spec.liveMigrationConfig.progressTimeout at progressTimeout: every
// setting in its operand CR, exactly one CR of each kind, and a status that
// says so and references those very CRs.
func converged(ctx context.Context, progressTimeout int64) error {
	kv := &kvv1.KubeVirt{}
	if err := k.Get(ctx, kvKey, kv); err != nil {
		return err
	}
	c := kv.Spec.Configuration
	switch {
	case kv.Spec.Infra == nil || kv.Spec.Infra.NodePlacement.NodeSelector["nodeType"] != "infra":
		return fmt.Errorf("KubeVirt infra placement %+v", kv.Spec.Infra)
	case kv.Spec.Workloads == nil || len(kv.Spec.Workloads.NodePlacement.Tolerations) != 1 || kv.Spec.Workloads.NodePlacement.Tolerations[0].Value != "kubevirt":
		return fmt.Errorf("KubeVirt workloads placement %+v", kv.Spec.Workloads)
	case c.DeveloperConfiguration == nil || !slices.Contains(c.DeveloperConfiguration.FeatureGates, "WithHostPassthroughCPU"):
		return fmt.Errorf("KubeVirt feature gates %+v", c.DeveloperConfiguration)
	case c.MigrationConfiguration == nil || c.MigrationConfiguration.BandwidthPerMigration.String() != "128Mi" ||
		*c.MigrationConfiguration.ParallelMigrationsPerCluster != 10 || *c.MigrationConfiguration.ProgressTimeout != progressTimeout:
		return fmt.Errorf("KubeVirt migrations %+v", c.MigrationConfiguration)
	case c.PermittedHostDevices == nil || len(c.PermittedHostDevices.PciHostDevices) != 1 || c.PermittedHostDevices.PciHostDevices[0].PCIVendorSelector != "10DE:1EB8" ||
		len(c.PermittedHostDevices.MediatedDevices) != 1:
		return fmt.Errorf("KubeVirt host devices %+v", c.PermittedHostDevices)
	}
	cdiCR := &cdiv1beta1.CDI{}
	if err := k.Get(ctx, cdiKey, cdiCR); err != nil {
		return err
	}
	if cdiCR.Spec.Infra.NodeSelector["nodeType"] != "infra" || cdiCR.Spec.Workloads.NodeSelector["nodeType"] != "nested-virtualization" {
		return fmt.Errorf("CDI placement %+v %+v", cdiCR.Spec.Infra, cdiCR.Spec.Workloads)
	}
	nac := &cnaov1.NetworkAddonsConfig{}
	if err := k.Get(ctx, cnaoKey, nac); err != nil {
		return err
	}
	if nac.Spec.Ovs == nil || nac.Spec.PlacementConfiguration == nil || nac.Spec.PlacementConfiguration.Infra.NodeSelector["nodeType"] != "infra" {
		return fmt.Errorf("NetworkAddonsConfig ovs %v placement %+v", nac.Spec.Ovs, nac.Spec.PlacementConfiguration)
	}
	sspCR := &sspv1beta3.SSP{}
	if err := k.Get(ctx, sspKey, sspCR); err != nil {
		return err
	}
	if sspCR.Spec.TemplateValidator == nil || sspCR.Spec.TemplateValidator.Placement == nil || sspCR.Spec.TemplateValidator.Placement.NodeSelector["nodeType"] != "infra" {
		return fmt.Errorf("SSP placement %+v", sspCR.Spec.TemplateValidator)
	}
	hppCR := &hppv1beta1.HostPathProvisioner{}
	if err := k.Get(ctx, hppKey, hppCR); err != nil {
		return err
	}
	if hppCR.Spec.Workload.NodeSelector["nodeType"] != "nested-virtualization" || len(hppCR.Spec.StoragePools) != 1 {
		return fmt.Errorf("HostPathProvisioner %+v", hppCR.Spec)
	}
	if err := oneOfEachKind(ctx); err != nil {
		return err
	}

	hc := &v1beta1.HyperConverged{}
	if err := k.Get(ctx, client.ObjectKey{Namespace: ns, Name: v1beta1.HyperConvergedName}, hc); err != nil {
		return err
	}
	if !controllerutil.ContainsFinalizer(hc, hco.FinalizerName) {
		return fmt.Errorf("HyperConverged finalizers %v", hc.Finalizers)
	}
	if err := checkCondition(hc, v1beta1.ConditionReconcileComplete, metav1.ConditionTrue, hcostatus.ReasonReconcileCompleted); err != nil {
		return err
	}
	if hc.Status.ObservedGeneration != hc.Generation {
		return fmt.Errorf("status.observedGeneration %d, generation %d", hc.Status.ObservedGeneration, hc.Generation)
	}
	live := map[string]client.Object{"KubeVirt": kv, "CDI": cdiCR, "NetworkAddonsConfig": nac, "SSP": sspCR, "HostPathProvisioner": hppCR}
	if len(hc.Status.RelatedObjects) != len(live) {
		return fmt.Errorf("relatedObjects %+v, want one per operand CR", hc.Status.RelatedObjects)
	}
	for _, ref := range hc.Status.RelatedObjects {
		obj, ok := live[ref.Kind]
		if !ok || ref.Name != obj.GetName() || ref.UID != obj.GetUID() {
			return fmt.Errorf("relatedObjects entry %+v does not match the live %s", ref, ref.Kind)
		}
	}
	return nil
}

// oneOfEachKind says which operand kind has more or fewer than one object
// in the whole cluster.
func oneOfEachKind(ctx context.Context) error {
	lists := map[string]client.ObjectList{
		"KubeVirt": &kvv1.KubeVirtList{}, "CDI": &cdiv1beta1.CDIList{}, "NetworkAddonsConfig": &cnaov1.NetworkAddonsConfigList{},
		"SSP": &sspv1beta3.SSPList{}, "HostPathProvisioner": &hppv1beta1.HostPathProvisionerList{},
	}
	for kind, list := range lists {
		if err := k.List(ctx, list); err != nil {
			return err
		}
		if n := lenOf(list); n != 1 {
			return fmt.Errorf("%d %s objects, want 1", n, kind)
		}
	}
	return nil
}

func lenOf(list client.ObjectList) int {
	switch l := list.(type) {
	case *kvv1.KubeVirtList:
		return len(l.Items)
	case *cdiv1beta1.CDIList:
		return len(l.Items)
	case *cnaov1.NetworkAddonsConfigList:
		return len(l.Items)
	case *sspv1beta3.SSPList:
		return len(l.Items)
	case *hppv1beta1.HostPathProvisionerList:
		return len(l.Items)
	}
	return -1
}

// snapshot is the resourceVersion and spec of every operand CR that exists.
type snapshot map[string]string

func takeSnapshot(t interface {
	Helper()
	Fatal(...any)
}) snapshot {
	t.Helper()
	out := snapshot{}
	for _, obj := range operandObjects() {
		key := client.ObjectKeyFromObject(obj)
		if err := k.Get(context.Background(), key, obj); err != nil {
			if client.IgnoreNotFound(err) != nil {
				t.Fatal(err)
			}
			continue
		}
		spec, err := json.Marshal(specOf(obj))
		if err != nil {
			t.Fatal(err)
		}
		out[fmt.Sprintf("%T %s", obj, key)] = fmt.Sprintf("rv=%s uid=%s spec=%s", obj.GetResourceVersion(), obj.GetUID(), spec)
	}
	return out
}

func specOf(obj client.Object) any {
	switch o := obj.(type) {
	case *kvv1.KubeVirt:
		return o.Spec
	case *cdiv1beta1.CDI:
		return o.Spec
	case *cnaov1.NetworkAddonsConfig:
		return o.Spec
	case *sspv1beta3.SSP:
		return o.Spec
	case *hppv1beta1.HostPathProvisioner:
		return o.Spec
	}
	return nil
}

func ptrTo[T any](v T) *T { return &v }
