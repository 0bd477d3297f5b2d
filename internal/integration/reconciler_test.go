package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	conditionsv1 "github.com/openshift/custom-resource-status/conditions/v1"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kvv1 "kubevirt.io/api/core/v1"
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	sspv1beta3 "kubevirt.io/ssp-operator/api/v1beta3"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/extensions/upgrade"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hcostatus"
	"github.com/hcokit/hcokit/internal/testenv"
	cnaov1 "github.com/hcokit/hcokit/operands/cnao/api/v1"
	hppv1beta1 "github.com/hcokit/hcokit/operands/hpp/api/v1beta1"
)

var (
	kvKey   = client.ObjectKey{Namespace: ns, Name: "kubevirt-kubevirt-hyperconverged"}
	cdiKey  = client.ObjectKey{Name: "cdi-kubevirt-hyperconverged"}
	cnaoKey = client.ObjectKey{Name: "cluster"}
	sspKey  = client.ObjectKey{Namespace: ns, Name: "ssp-kubevirt-hyperconverged"}
	hppKey  = client.ObjectKey{Name: "hostpath-provisioner"}
)

func get[T client.Object](t *testing.T, key client.ObjectKey, obj T) T {
	t.Helper()
	testenv.Eventually(t, fmt.Sprintf("get %T %s", obj, key), func() error { return k.Get(context.Background(), key, obj) })
	return obj
}

func condition(hc *v1beta1.HyperConverged, typ string) *metav1.Condition {
	return meta.FindStatusCondition(hc.Status.Conditions, typ)
}

// waitCondition waits for the HyperConverged's condition to have status and reason.
func waitCondition(t *testing.T, typ string, status metav1.ConditionStatus, reason string) *v1beta1.HyperConverged {
	t.Helper()
	var hc *v1beta1.HyperConverged
	testenv.Eventually(t, fmt.Sprintf("condition %s=%s/%s", typ, status, reason), func() error {
		hc = getHC(t)
		c := condition(hc, typ)
		if c == nil {
			return fmt.Errorf("no %s condition in %+v", typ, hc.Status.Conditions)
		}
		if c.Status != status || (reason != "" && c.Reason != reason) {
			return fmt.Errorf("%s is %s/%s: %s", typ, c.Status, c.Reason, c.Message)
		}
		if c.ObservedGeneration != hc.Generation {
			return fmt.Errorf("%s observed generation %d, object at %d", typ, c.ObservedGeneration, hc.Generation)
		}
		return nil
	})
	return hc
}

func TestCreateGivesTheFourDefaultOperands(t *testing.T) {
	env.Require(t)
	createHC(t, nil)

	kv := get(t, kvKey, &kvv1.KubeVirt{})
	assert.Equal(t, "hco-operator", kv.Labels[hco.LabelManagedBy])
	assert.Equal(t, "1.0.0", kv.Labels[hco.LabelVersion])
	assert.Equal(t, "64Mi", kv.Spec.Configuration.MigrationConfiguration.BandwidthPerMigration.String(), "CRD defaults reach KubeVirt")
	assert.Equal(t, int64(800), *kv.Spec.Configuration.MigrationConfiguration.CompletionTimeoutPerGiB)
	// A v1beta1 HyperConverged gets upstream's v1beta1 gate defaults (03da3cf):
	// its beta gates on.
	assert.Contains(t, kv.Spec.Configuration.DeveloperConfiguration.FeatureGates, "DeclarativeHotplugVolumes")
	assert.Contains(t, kv.Spec.Configuration.DeveloperConfiguration.FeatureGates, "DecentralizedLiveMigration")
	assert.NotContains(t, kv.Spec.Configuration.DeveloperConfiguration.FeatureGates, "HotplugVolumes")

	cdiCR := get(t, cdiKey, &cdiv1beta1.CDI{})
	assert.Equal(t, cdiv1beta1.CDIUninstallStrategyBlockUninstallIfWorkloadsExist, *cdiCR.Spec.UninstallStrategy)
	nac := get(t, cnaoKey, &cnaov1.NetworkAddonsConfig{})
	assert.Nil(t, nac.Spec.Ovs, "no deployOVS annotation, no OvS")
	sspCR := get(t, sspKey, &sspv1beta3.SSP{})
	assert.Equal(t, "openshift", sspCR.Spec.CommonTemplates.Namespace)

	err := k.Get(context.Background(), hppKey, &hppv1beta1.HostPathProvisioner{})
	assert.True(t, apierrors.IsNotFound(err), "no HostPathProvisioner without spec.hostpathProvisioner: %v", err)

	hc := waitCondition(t, v1beta1.ConditionReconcileComplete, metav1.ConditionTrue, hcostatus.ReasonReconcileCompleted)
	assert.Contains(t, hc.Finalizers, hco.FinalizerName)
	assert.Len(t, hc.Status.RelatedObjects, 4)
	assert.Equal(t, []v1beta1.Version{{Name: "operator", Version: "1.0.0"}}, hc.Status.Versions,
		"the operator's version from the first status, as upstream's setInitialConditions records it")
	assert.Equal(t, v1beta1.SystemHealthError, hc.Status.SystemHealthStatus, "operands have not reported yet: not Available, an error as upstream's")
	avail := condition(hc, v1beta1.ConditionAvailable)
	assert.Equal(t, metav1.ConditionFalse, avail.Status)
	assert.Equal(t, "SSPConditions", avail.Reason, "upstream's: the last component without conditions (SSP, after KubeVirt, CDI, NetworkAddonsConfig) names it")

	assertEvent(t, hco.EventCreated, "Created KubeVirt kubevirt-kubevirt-hyperconverged")

	// Upstream's HyperConverged carries the eviction strategy its webhook
	// wrote into its operator's first update: here None (no Node, not highly
	// available), stored once.
	testenv.Eventually(t, "spec.evictionStrategy stored", func() error {
		if got := getHC(t).Spec.EvictionStrategy; got == nil || *got != kvv1.EvictionStrategyNone {
			return fmt.Errorf("spec.evictionStrategy %v", got)
		}
		return nil
	})
}

// An unknown feature gate, which the CRD keeps, survives the operator's
// writes to the HyperConverged (finalizer, adoption).
func TestUnknownFeatureGateSurvives(t *testing.T) {
	env.Require(t)
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(v1beta1.GroupVersion.WithKind("HyperConverged"))
	u.SetNamespace(ns)
	u.SetName(v1beta1.HyperConvergedName)
	require.NoError(t, unstructured.SetNestedField(u.Object, true, "spec", "featureGates", "someFutureGate"))
	require.NoError(t, k.Create(context.Background(), u))
	t.Cleanup(func() { deleteHC(t) })

	hc := waitCondition(t, v1beta1.ConditionReconcileComplete, metav1.ConditionTrue, "")
	require.Contains(t, hc.Finalizers, hco.FinalizerName)
	assert.Equal(t, "kubevirt-hyperconverged", hc.Labels["app"], "upstream's app label, stored with the finalizer (no webhook here)")
	require.NoError(t, k.Get(context.Background(), client.ObjectKeyFromObject(u), u))
	gate, found, err := unstructured.NestedBool(u.Object, "spec", "featureGates", "someFutureGate")
	require.NoError(t, err)
	assert.True(t, found && gate, "the operator kept the admin's unknown feature gate")
}

func assertEvent(t *testing.T, reason, note string) {
	t.Helper()
	testenv.Eventually(t, "event "+reason, func() error {
		var events eventsv1.EventList
		if err := k.List(context.Background(), &events, client.InNamespace(ns)); err != nil {
			return err
		}
		for _, e := range events.Items {
			if e.Reason == reason && strings.Contains(e.Note, note) && e.Regarding.Name == v1beta1.HyperConvergedName {
				return nil
			}
		}
		return fmt.Errorf("no %s event with %q among %d events", reason, note, len(events.Items))
	})
}

// The seeds' configuration examples reach the operands that support them.
func TestSeedExamplesPropagate(t *testing.T) {
	env.Require(t)
	createHC(t, func(hc *v1beta1.HyperConverged) {
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
	})
	testenv.Eventually(t, "KubeVirt reflects the HyperConverged", func() error {
		kv := &kvv1.KubeVirt{}
		if err := k.Get(context.Background(), kvKey, kv); err != nil {
			return err
		}
		c := kv.Spec.Configuration
		switch {
		case kv.Spec.Infra == nil || kv.Spec.Infra.NodePlacement.NodeSelector["nodeType"] != "infra":
			return fmt.Errorf("infra placement %+v", kv.Spec.Infra)
		case kv.Spec.Workloads == nil || kv.Spec.Workloads.NodePlacement.Tolerations[0].Value != "kubevirt":
			return fmt.Errorf("workloads placement %+v", kv.Spec.Workloads)
		case !contains(c.DeveloperConfiguration.FeatureGates, "WithHostPassthroughCPU"):
			return fmt.Errorf("gates %v", c.DeveloperConfiguration.FeatureGates)
		case c.MigrationConfiguration.BandwidthPerMigration.String() != "128Mi" || *c.MigrationConfiguration.ParallelMigrationsPerCluster != 10:
			return fmt.Errorf("migrations %+v", c.MigrationConfiguration)
		case len(c.PermittedHostDevices.PciHostDevices) != 1 || c.PermittedHostDevices.PciHostDevices[0].PCIVendorSelector != "10DE:1EB8":
			return fmt.Errorf("pci devices %+v", c.PermittedHostDevices.PciHostDevices)
		case len(c.PermittedHostDevices.MediatedDevices) != 1:
			return fmt.Errorf("mediated devices %+v", c.PermittedHostDevices.MediatedDevices)
		}
		return nil
	})
	cdiCR := get(t, cdiKey, &cdiv1beta1.CDI{})
	assert.Equal(t, "infra", cdiCR.Spec.Infra.NodeSelector["nodeType"])
	assert.Equal(t, "nested-virtualization", cdiCR.Spec.Workloads.NodeSelector["nodeType"])
	nac := get(t, cnaoKey, &cnaov1.NetworkAddonsConfig{})
	assert.Equal(t, "infra", nac.Spec.PlacementConfiguration.Infra.NodeSelector["nodeType"])
	assert.Equal(t, "nested-virtualization", nac.Spec.PlacementConfiguration.Workloads.NodeSelector["nodeType"])
	sspCR := get(t, sspKey, &sspv1beta3.SSP{})
	assert.Equal(t, "infra", sspCR.Spec.TemplateValidator.Placement.NodeSelector["nodeType"])
	assert.Empty(t, sspCR.Spec.TemplateValidator.Placement.Tolerations, "SSP takes infra placement only")
}

func TestOutOfBandEditIsRevertedAndCounted(t *testing.T) {
	env.Require(t)
	createHC(t, nil)
	waitCondition(t, v1beta1.ConditionReconcileComplete, metav1.ConditionTrue, "")
	before := counterValue(t, "kubevirt_hco_out_of_band_modifications_total", "kubevirt/kubevirt-kubevirt-hyperconverged")

	testenv.Eventually(t, "edit KubeVirt", func() error {
		kv := get(t, kvKey, &kvv1.KubeVirt{})
		kv.Spec.Configuration.MigrationConfiguration.ProgressTimeout = ptrTo(int64(1))
		kv.Spec.ImagePullPolicy = corev1.PullAlways
		return k.Update(context.Background(), kv)
	})
	testenv.Eventually(t, "edit reverted", func() error {
		kv := get(t, kvKey, &kvv1.KubeVirt{})
		if *kv.Spec.Configuration.MigrationConfiguration.ProgressTimeout != 150 || kv.Spec.ImagePullPolicy != "" {
			return fmt.Errorf("still edited: progressTimeout=%d imagePullPolicy=%q", *kv.Spec.Configuration.MigrationConfiguration.ProgressTimeout, kv.Spec.ImagePullPolicy)
		}
		return nil
	})
	testenv.Eventually(t, "counted", func() error {
		if after := counterValue(t, "kubevirt_hco_out_of_band_modifications_total", "kubevirt/kubevirt-kubevirt-hyperconverged"); after != before+1 {
			return fmt.Errorf("counter %v, want %v", after, before+1)
		}
		return nil
	})
	assertEvent(t, hco.EventOverwritten, "KubeVirt kubevirt-kubevirt-hyperconverged")
}

func TestDeletedOperandIsRecreated(t *testing.T) {
	env.Require(t)
	createHC(t, nil)
	old := get(t, cdiKey, &cdiv1beta1.CDI{})
	require.NoError(t, k.Delete(context.Background(), old))
	testenv.Eventually(t, "CDI recreated", func() error {
		cdiCR := &cdiv1beta1.CDI{}
		if err := k.Get(context.Background(), cdiKey, cdiCR); err != nil {
			return err
		}
		if cdiCR.UID == old.UID {
			return fmt.Errorf("still the old CDI")
		}
		return nil
	})
}

func TestLabelEditIsRestored(t *testing.T) {
	env.Require(t)
	createHC(t, nil)
	testenv.Eventually(t, "strip managed-by", func() error {
		nac := get(t, cnaoKey, &cnaov1.NetworkAddonsConfig{})
		delete(nac.Labels, hco.LabelManagedBy)
		return k.Update(context.Background(), nac)
	})
	// Nudge a reconcile through the HyperConverged: the object has left the
	// operator's cache, so only a live read finds it again.
	updateHC(t, func(hc *v1beta1.HyperConverged) { hc.Annotations = map[string]string{"test/nudge": "1"} })
	testenv.Eventually(t, "label restored", func() error {
		nac := get(t, cnaoKey, &cnaov1.NetworkAddonsConfig{})
		if nac.Labels[hco.LabelManagedBy] != hco.ManagedByValue {
			return fmt.Errorf("labels %v", nac.Labels)
		}
		return nil
	})
}

func TestJSONPatchTaintsAndUntaints(t *testing.T) {
	env.Require(t)
	createHC(t, nil)
	waitCondition(t, v1beta1.ConditionReconcileComplete, metav1.ConditionTrue, "")
	assert.Nil(t, condition(getHC(t), v1beta1.ConditionTaintedConfiguration))

	updateHC(t, func(hc *v1beta1.HyperConverged) {
		hc.Annotations = map[string]string{v1beta1.KubeVirtJSONPatchAnnotation: `[{"op": "add", "path": "/spec/configuration/migrations", "value": {"allowPostCopy": true}}]`}
	})
	hc := waitCondition(t, v1beta1.ConditionTaintedConfiguration, metav1.ConditionTrue, hcostatus.ReasonTainted)
	assert.Equal(t, hcostatus.MessageTainted, condition(hc, v1beta1.ConditionTaintedConfiguration).Message)
	testenv.Eventually(t, "patch applied", func() error {
		kv := get(t, kvKey, &kvv1.KubeVirt{})
		if pc := kv.Spec.Configuration.MigrationConfiguration.AllowPostCopy; pc == nil || !*pc {
			return fmt.Errorf("allowPostCopy %v", pc)
		}
		return nil
	})
	assert.Equal(t, 1.0, gaugeValue(t, "kubevirt_hco_unsafe_modifications", v1beta1.KubeVirtJSONPatchAnnotation))

	updateHC(t, func(hc *v1beta1.HyperConverged) { delete(hc.Annotations, v1beta1.KubeVirtJSONPatchAnnotation) })
	testenv.Eventually(t, "untainted", func() error {
		if c := condition(getHC(t), v1beta1.ConditionTaintedConfiguration); c != nil {
			return fmt.Errorf("still %+v", c)
		}
		kv := get(t, kvKey, &kvv1.KubeVirt{})
		if pc := kv.Spec.Configuration.MigrationConfiguration.AllowPostCopy; pc == nil || *pc {
			return fmt.Errorf("allowPostCopy still %v", pc)
		}
		return nil
	})
}

func TestBrokenJSONPatchIsAConditionAndKeepsTheOperand(t *testing.T) {
	env.Require(t)
	createHC(t, nil)
	waitCondition(t, v1beta1.ConditionReconcileComplete, metav1.ConditionTrue, "")
	before := get(t, kvKey, &kvv1.KubeVirt{})

	updateHC(t, func(hc *v1beta1.HyperConverged) {
		hc.Annotations = map[string]string{v1beta1.KubeVirtJSONPatchAnnotation: `[{"op": "replace", "path": "/spec/no/such/path", "value": 1}]`}
	})
	hc := waitCondition(t, v1beta1.ConditionReconcileComplete, metav1.ConditionFalse, hcostatus.ReasonInvalidConfiguration)
	msg := condition(hc, v1beta1.ConditionReconcileComplete).Message
	assert.Contains(t, msg, `annotation "kubevirt.kubevirt.io/jsonpatch", operation 0`)
	assert.Equal(t, v1beta1.SystemHealthError, hc.Status.SystemHealthStatus)

	after := get(t, kvKey, &kvv1.KubeVirt{})
	assert.Equal(t, before.UID, after.UID, "the KubeVirt CR is kept")
	assert.Equal(t, before.Spec, after.Spec, "and left as it was")
	assertEvent(t, hco.EventInvalidConfig, "operation 0")
}

// A jsonpatch whose result the operand's CRD refuses is a condition, not a
// retry loop, and the other operands still converge.
func TestOperandRejectedByTheAPIServerIsACondition(t *testing.T) {
	env.Require(t)
	createHC(t, nil)
	waitCondition(t, v1beta1.ConditionReconcileComplete, metav1.ConditionTrue, "")
	before := get(t, cdiKey, &cdiv1beta1.CDI{})

	updateHC(t, func(hc *v1beta1.HyperConverged) {
		hc.Annotations = map[string]string{v1beta1.CDIJSONPatchAnnotation: `[{"op": "add", "path": "/spec/imagePullPolicy", "value": "Sometimes"}]`}
		hc.Spec.LiveMigrationConfig.ProgressTimeout = ptrTo(int64(222))
	})
	hc := waitCondition(t, v1beta1.ConditionReconcileComplete, metav1.ConditionFalse, hcostatus.ReasonInvalidConfiguration)
	msg := condition(hc, v1beta1.ConditionReconcileComplete).Message
	assert.Contains(t, msg, "imagePullPolicy")
	assert.Nil(t, condition(hc, v1beta1.ConditionTaintedConfiguration), "a patch that is not in effect does not taint")
	assert.Equal(t, before.ResourceVersion, get(t, cdiKey, &cdiv1beta1.CDI{}).ResourceVersion, "CDI is left as it was")
	assert.Equal(t, int64(222), *get(t, kvKey, &kvv1.KubeVirt{}).Spec.Configuration.MigrationConfiguration.ProgressTimeout, "the other operands converge")

	updateHC(t, func(hc *v1beta1.HyperConverged) { delete(hc.Annotations, v1beta1.CDIJSONPatchAnnotation) })
	waitCondition(t, v1beta1.ConditionReconcileComplete, metav1.ConditionTrue, hcostatus.ReasonReconcileCompleted)
}

func TestDeployOVSTogglesOvS(t *testing.T) {
	env.Require(t)
	createHC(t, func(hc *v1beta1.HyperConverged) {
		hc.Annotations = map[string]string{v1beta1.DeployOVSAnnotation: "true"}
	})
	testenv.Eventually(t, "OvS deployed", func() error {
		if get(t, cnaoKey, &cnaov1.NetworkAddonsConfig{}).Spec.Ovs == nil {
			return fmt.Errorf("no spec.ovs")
		}
		return nil
	})
	updateHC(t, func(hc *v1beta1.HyperConverged) { delete(hc.Annotations, v1beta1.DeployOVSAnnotation) })
	testenv.Eventually(t, "OvS removed", func() error {
		if get(t, cnaoKey, &cnaov1.NetworkAddonsConfig{}).Spec.Ovs != nil {
			return fmt.Errorf("spec.ovs still set")
		}
		return nil
	})
}

func TestHostpathProvisionerIsOptIn(t *testing.T) {
	env.Require(t)
	createHC(t, func(hc *v1beta1.HyperConverged) {
		hc.Spec.Workloads.NodePlacement = &v1beta1.NodePlacement{NodeSelector: map[string]string{"nodeType": "nested-virtualization"}}
		hc.Spec.HostpathProvisioner = &v1beta1.HostpathProvisionerConfig{StoragePools: []v1beta1.HostpathStoragePool{{Name: "local", Path: "/var/hpp"}}}
	})
	hpp := get(t, hppKey, &hppv1beta1.HostPathProvisioner{})
	assert.Equal(t, "nested-virtualization", hpp.Spec.Workload.NodeSelector["nodeType"])
	assert.Equal(t, corev1.PullIfNotPresent, hpp.Spec.ImagePullPolicy, "the CRD default reaches the HostPathProvisioner")

	updateHC(t, func(hc *v1beta1.HyperConverged) { hc.Spec.HostpathProvisioner = nil })
	testenv.Eventually(t, "HostPathProvisioner deleted", func() error {
		err := k.Get(context.Background(), hppKey, &hppv1beta1.HostPathProvisioner{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("still there: %v", err)
	})
}

func TestOperandConditionsAggregate(t *testing.T) {
	env.Require(t)
	createHC(t, nil)
	waitCondition(t, v1beta1.ConditionAvailable, metav1.ConditionFalse, "SSPConditions")

	reportHealthy(t)
	hc := waitCondition(t, v1beta1.ConditionAvailable, metav1.ConditionTrue, hcostatus.ReasonReconcileCompleted)
	assert.Equal(t, metav1.ConditionFalse, condition(hc, v1beta1.ConditionProgressing).Status)
	assert.Equal(t, metav1.ConditionFalse, condition(hc, v1beta1.ConditionDegraded).Status)
	assert.Equal(t, metav1.ConditionTrue, condition(hc, v1beta1.ConditionUpgradeable).Status)
	assert.Equal(t, v1beta1.SystemHealthHealthy, hc.Status.SystemHealthStatus)
	assert.Equal(t, []v1beta1.Version{{Name: "operator", Version: "1.0.0"}}, hc.Status.Versions, "the operator's version only, as upstream records it")

	// CDI degrades.
	setConditionsV1(t, cdiKey, &cdiv1beta1.CDI{}, []conditionsv1.Condition{
		{Type: "Available", Status: corev1.ConditionTrue}, {Type: "Progressing", Status: corev1.ConditionFalse},
		{Type: "Degraded", Status: corev1.ConditionTrue, Reason: "PodsCrashing", Message: "cdi-deployment is crash looping"},
	})
	hc = waitCondition(t, v1beta1.ConditionDegraded, metav1.ConditionTrue, "CDIDegraded")
	assert.Equal(t, "CDI is degraded: cdi-deployment is crash looping", condition(hc, v1beta1.ConditionDegraded).Message, "upstream's message")
	assert.Equal(t, "HCODegraded", condition(hc, v1beta1.ConditionAvailable).Reason, "upstream's chart: degraded, so not Available")
	assert.Equal(t, v1beta1.SystemHealthError, hc.Status.SystemHealthStatus)
	assert.Equal(t, 2.0, gaugeValue(t, "kubevirt_hco_system_health_status", ""))

	// SSP blocks upgrades.
	setConditionsV1(t, sspKey, &sspv1beta3.SSP{}, []conditionsv1.Condition{
		{Type: "Available", Status: corev1.ConditionTrue}, {Type: "Progressing", Status: corev1.ConditionFalse},
		{Type: "Degraded", Status: corev1.ConditionFalse}, {Type: "Upgradeable", Status: corev1.ConditionFalse, Message: "templates in use"},
	})
	waitCondition(t, v1beta1.ConditionUpgradeable, metav1.ConditionFalse, "SSPNotUpgradeable")
}

var healthyV1 = []conditionsv1.Condition{
	{Type: "Available", Status: corev1.ConditionTrue}, {Type: "Progressing", Status: corev1.ConditionFalse}, {Type: "Degraded", Status: corev1.ConditionFalse},
}

// reportHealthy plays the component operators: every operand reports
// Available, not Progressing, not Degraded, KubeVirt at v1.9.0.
func reportHealthy(t *testing.T) {
	t.Helper()
	testenv.Eventually(t, "KubeVirt status", func() error {
		kv := get(t, kvKey, &kvv1.KubeVirt{})
		kv.Status.ObservedKubeVirtVersion = "v1.9.0"
		kv.Status.Conditions = []kvv1.KubeVirtCondition{
			{Type: kvv1.KubeVirtConditionAvailable, Status: corev1.ConditionTrue},
			{Type: kvv1.KubeVirtConditionProgressing, Status: corev1.ConditionFalse},
			{Type: kvv1.KubeVirtConditionDegraded, Status: corev1.ConditionFalse},
		}
		return k.Status().Update(context.Background(), kv)
	})
	setConditionsV1(t, cdiKey, &cdiv1beta1.CDI{}, healthyV1)
	setConditionsV1(t, cnaoKey, &cnaov1.NetworkAddonsConfig{}, healthyV1)
	setConditionsV1(t, sspKey, &sspv1beta3.SSP{}, healthyV1)
}

func setConditionsV1(t *testing.T, key client.ObjectKey, obj client.Object, conds []conditionsv1.Condition) {
	t.Helper()
	testenv.Eventually(t, fmt.Sprintf("status of %T", obj), func() error {
		if err := k.Get(context.Background(), key, obj); err != nil {
			return err
		}
		switch o := obj.(type) {
		case *cdiv1beta1.CDI:
			o.Status.Conditions = conds
		case *sspv1beta3.SSP:
			o.Status.Conditions = conds
		case *cnaov1.NetworkAddonsConfig:
			o.Status.Conditions = conds
		default:
			return fmt.Errorf("unexpected %T", obj)
		}
		return k.Status().Update(context.Background(), obj)
	})
}

func TestUpgradeWaitsForOperandVersionsAndKeepsOvS(t *testing.T) {
	env.Require(t)
	createHC(t, nil)
	waitCondition(t, v1beta1.ConditionReconcileComplete, metav1.ConditionTrue, "")

	// The previous operator version recorded its version and deployed OvS.
	testenv.Eventually(t, "record the previous version", func() error {
		hc := getHC(t)
		hc.Status.Versions = []v1beta1.Version{{Name: "operator", Version: "0.9.0"}}
		return k.Status().Update(context.Background(), hc)
	})
	testenv.Eventually(t, "OvS deployed by the previous version", func() error {
		nac := get(t, cnaoKey, &cnaov1.NetworkAddonsConfig{})
		nac.Spec.Ovs = &cnaov1.Ovs{}
		return k.Update(context.Background(), nac)
	})

	hc := waitCondition(t, v1beta1.ConditionProgressing, metav1.ConditionTrue, hcostatus.ReasonUpgrading)
	testenv.Eventually(t, "deployOVS adopted", func() error {
		if hc = getHC(t); hc.Annotations[v1beta1.DeployOVSAnnotation] != "true" {
			return fmt.Errorf("annotations %v", hc.Annotations)
		}
		return nil
	})
	assert.Equal(t, "1.0.0", hc.Annotations[upgrade.AdoptedAnnotation])
	assert.Equal(t, metav1.ConditionFalse, condition(hc, v1beta1.ConditionUpgradeable).Status)
	assert.NotNil(t, get(t, cnaoKey, &cnaov1.NetworkAddonsConfig{}).Spec.Ovs)

	// Adoption happens once: the admin can still turn OvS off mid-upgrade.
	updateHC(t, func(hc *v1beta1.HyperConverged) { delete(hc.Annotations, v1beta1.DeployOVSAnnotation) })
	testenv.Eventually(t, "OvS removed as the admin asked", func() error {
		if get(t, cnaoKey, &cnaov1.NetworkAddonsConfig{}).Spec.Ovs != nil {
			return fmt.Errorf("spec.ovs still set")
		}
		return nil
	})
	assert.NotContains(t, getHC(t).Annotations, v1beta1.DeployOVSAnnotation)

	reportHealthy(t)
	hc = waitCondition(t, v1beta1.ConditionProgressing, metav1.ConditionFalse, "")
	assert.Equal(t, []v1beta1.Version{{Name: "operator", Version: "1.0.0"}}, hc.Status.Versions, "the operator's version only, as upstream records it")
	assertEvent(t, hco.EventUpgradeCompleted, "1.0.0")
}

func TestWronglyNamedHyperConvergedIsRefused(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	other := &v1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: "second", Namespace: ns}}
	require.NoError(t, k.Create(ctx, other))
	t.Cleanup(func() { _ = k.Delete(context.Background(), other) })
	testenv.Eventually(t, "InvalidRequest", func() error {
		if err := k.Get(ctx, client.ObjectKeyFromObject(other), other); err != nil {
			return err
		}
		c := condition(other, v1beta1.ConditionReconcileComplete)
		if c == nil || c.Reason != hcostatus.ReasonInvalidRequest {
			return fmt.Errorf("condition %+v", c)
		}
		if !strings.Contains(c.Message, `"kubevirt-hyperconverged" in namespace "kubevirt-hyperconverged"`) {
			return fmt.Errorf("message %q", c.Message)
		}
		return nil
	})
	assert.Empty(t, other.Finalizers)
	err := k.Get(ctx, kvKey, &kvv1.KubeVirt{})
	assert.True(t, apierrors.IsNotFound(err), "nothing created for it: %v", err)
}

func TestDeletionRemovesEveryOperandThenTheFinalizer(t *testing.T) {
	env.Require(t)
	createHC(t, func(hc *v1beta1.HyperConverged) {
		hc.Spec.HostpathProvisioner = &v1beta1.HostpathProvisionerConfig{StoragePools: []v1beta1.HostpathStoragePool{{Name: "p", Path: "/p"}}}
	})
	get(t, hppKey, &hppv1beta1.HostPathProvisioner{})
	kv := get(t, kvKey, &kvv1.KubeVirt{})

	// KubeVirt holds a finalizer, as virt-operator does while it tears down:
	// CDI must wait for it.
	kv.Finalizers = []string{"test/hold"}
	require.NoError(t, k.Update(context.Background(), kv))
	require.NoError(t, k.Delete(context.Background(), getHC(t)))

	testenv.Eventually(t, "others deleted first", func() error {
		for key, obj := range map[client.ObjectKey]client.Object{cnaoKey: &cnaov1.NetworkAddonsConfig{}, sspKey: &sspv1beta3.SSP{}, hppKey: &hppv1beta1.HostPathProvisioner{}} {
			if err := k.Get(context.Background(), key, obj); !apierrors.IsNotFound(err) {
				return fmt.Errorf("%T still there: %v", obj, err)
			}
		}
		return nil
	})
	testenv.Eventually(t, "deletion waits for KubeVirt, visibly", func() error {
		c := condition(getHC(t), v1beta1.ConditionReconcileComplete)
		if c == nil || c.Reason != hcostatus.ReasonDeleting || !strings.Contains(c.Message, "KubeVirt kubevirt-kubevirt-hyperconverged (finalizers: test/hold)") {
			return fmt.Errorf("condition %+v", c)
		}
		return nil
	})
	assert.NoError(t, k.Get(context.Background(), cdiKey, &cdiv1beta1.CDI{}), "CDI waits for KubeVirt")

	// Past the deletion timeout the wait is reported as blocked, once.
	hc := waitCondition(t, v1beta1.ConditionReconcileComplete, metav1.ConditionFalse, hcostatus.ReasonDeletionBlocked)
	assert.Contains(t, condition(hc, v1beta1.ConditionReconcileComplete).Message, "test/hold")
	assertEvent(t, hco.EventDeletionBlocked, "test/hold")
	requests.reset()
	time.Sleep(2500 * time.Millisecond) // longer than the 2 s poll of a deletion in progress
	assert.Empty(t, requests.writes(), "a blocked deletion is not rewritten on every poll")
	assert.NoError(t, k.Get(context.Background(), cdiKey, &cdiv1beta1.CDI{}), "CDI still waits for KubeVirt")

	kv = get(t, kvKey, &kvv1.KubeVirt{})
	kv.Finalizers = nil
	require.NoError(t, k.Update(context.Background(), kv))
	deleteHC(t)
	for key, obj := range map[client.ObjectKey]client.Object{kvKey: &kvv1.KubeVirt{}, cdiKey: &cdiv1beta1.CDI{}} {
		err := k.Get(context.Background(), key, obj)
		assert.True(t, apierrors.IsNotFound(err), "%T: %v", obj, err)
	}
}

// Request counting, through the operator's own transport.
func TestWritesAreMinimal(t *testing.T) {
	env.Require(t)
	createHC(t, nil)
	reportHealthy(t)
	waitCondition(t, v1beta1.ConditionAvailable, metav1.ConditionTrue, "")
	time.Sleep(500 * time.Millisecond) // let the last events settle

	requests.reset()
	time.Sleep(2 * time.Second)
	assert.Empty(t, requests.writes(), "an idle operator makes no writes")

	// A reconcile with nothing to do: a label change on the HyperConverged.
	reconciles := reconcileCount(t, "kubevirt", "unchanged")
	updateHC(t, func(hc *v1beta1.HyperConverged) { metav1.SetMetaDataLabel(&hc.ObjectMeta, "test/nudge", "1") })
	testenv.Eventually(t, "the reconcile ran", func() error {
		if n := reconcileCount(t, "kubevirt", "unchanged"); n <= reconciles {
			return fmt.Errorf("%v unchanged kubevirt reconciles, as before", n)
		}
		return nil
	})
	time.Sleep(200 * time.Millisecond) // its status write, if it made one, would be out by now
	assert.Empty(t, requests.writes(), "a reconcile with nothing to do makes no writes")
	assert.Empty(t, requests.reads(), "and no uncached reads")

	// One spec change that affects KubeVirt only.
	requests.reset()
	updateHC(t, func(hc *v1beta1.HyperConverged) { hc.Spec.LiveMigrationConfig.ProgressTimeout = ptrTo(int64(200)) })
	testenv.Eventually(t, "KubeVirt updated", func() error {
		if got := *get(t, kvKey, &kvv1.KubeVirt{}).Spec.Configuration.MigrationConfiguration.ProgressTimeout; got != 200 {
			return fmt.Errorf("progressTimeout %d", got)
		}
		return nil
	})
	waitCondition(t, v1beta1.ConditionReconcileComplete, metav1.ConditionTrue, "")
	time.Sleep(time.Second)
	writes := requests.writes()
	assert.Equal(t, map[string]int{
		"PUT /apis/kubevirt.io/v1/namespaces/kubevirt-hyperconverged/kubevirts/kubevirt-kubevirt-hyperconverged":           1,
		"PATCH /apis/hco.kubevirt.io/v1/namespaces/kubevirt-hyperconverged/hyperconvergeds/kubevirt-hyperconverged/status": 1,
	}, writes, "one update of the affected operand and one status write")
	assert.Empty(t, requests.reads(), "no uncached reads")
}

// reconcileCount reads hcokit_operand_reconciles_total{operand, result}.
func reconcileCount(t *testing.T, operand, result string) float64 {
	t.Helper()
	families, err := metrics.Gather()
	require.NoError(t, err)
	for _, f := range families {
		if f.GetName() != "hcokit_operand_reconciles_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["operand"] == operand && labels["result"] == result {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

func counterValue(t *testing.T, name, label string) float64 {
	t.Helper()
	return metricValue(t, name, label, func(m *dto.Metric) float64 { return m.GetCounter().GetValue() })
}

func gaugeValue(t *testing.T, name, label string) float64 {
	t.Helper()
	return metricValue(t, name, label, func(m *dto.Metric) float64 { return m.GetGauge().GetValue() })
}

func metricValue(t *testing.T, name, label string, value func(*dto.Metric) float64) float64 {
	t.Helper()
	families, err := metrics.Gather()
	require.NoError(t, err)
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			if label == "" || (len(m.GetLabel()) > 0 && m.GetLabel()[0].GetValue() == label) {
				return value(m)
			}
		}
	}
	return 0
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func ptrTo[T any](v T) *T { return &v }
