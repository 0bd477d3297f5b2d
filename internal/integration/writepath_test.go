package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	kvv1 "kubevirt.io/api/core/v1"
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	sspv1beta3 "kubevirt.io/ssp-operator/api/v1beta3"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hcostatus"
	"github.com/hcokit/hcokit/internal/testenv"
	cnaov1 "github.com/hcokit/hcokit/operands/cnao/api/v1"
)

// wire reads an operand CR in its wire form, with every field the API
// server holds, whatever our Go types know; it waits for the CR to exist.
func wire(t *testing.T, apiVersion, kind string, key client.ObjectKey) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	testenv.Eventually(t, kind+" exists", func() error { return k.Get(context.Background(), key, u) })
	return u
}

func nestedValue(u *unstructured.Unstructured, path ...string) any {
	v, _, _ := unstructured.NestedFieldNoCopy(u.Object, path...)
	return v
}

// Seed 003's example: allowPostCopy is on, and every liveMigrationConfig
// value is still in the KubeVirt CR (upstream decodes the patched document
// over the object it built).
func TestSeedJSONPatchExampleKeepsTheLiveMigrationSettings(t *testing.T) {
	env.Require(t)
	createHC(t, func(hc *v1beta1.HyperConverged) {
		hc.Annotations = map[string]string{v1beta1.KubeVirtJSONPatchAnnotation: `[{"op": "add", "path": "/spec/configuration/migrations", "value": {"allowPostCopy": true}}]`}
	})
	testenv.Eventually(t, "patch applied", func() error {
		m := get(t, kvKey, &kvv1.KubeVirt{}).Spec.Configuration.MigrationConfiguration
		if m == nil || m.AllowPostCopy == nil || !*m.AllowPostCopy {
			return fmt.Errorf("migrations %+v", m)
		}
		return nil
	})
	m := get(t, kvKey, &kvv1.KubeVirt{}).Spec.Configuration.MigrationConfiguration
	assert.Equal(t, "64Mi", m.BandwidthPerMigration.String())
	assert.Equal(t, int64(800), *m.CompletionTimeoutPerGiB)
	assert.Equal(t, uint32(5), *m.ParallelMigrationsPerCluster)
	assert.Equal(t, uint32(2), *m.ParallelOutboundMigrationsPerNode)
	assert.Equal(t, int64(150), *m.ProgressTimeout)
}

// The admin's edits of an operand CR are reverted, those of fields the
// operator does not set included; labels the operator set once and sets no
// more go, others' labels stay; the status and others' annotations are kept.
func TestOperandSpecIsOwnedAndOthersMetadataKept(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	createHC(t, nil)
	waitCondition(t, v1beta1.ConditionReconcileComplete, metav1.ConditionTrue, "")

	testenv.Eventually(t, "edit CDI by hand", func() error {
		cdi := get(t, cdiKey, &cdiv1beta1.CDI{})
		cdi.Spec.ImagePullPolicy = "Always" // the operator does not set it
		cdi.Labels["team"] = "storage"
		cdi.Annotations["note"] = "keep me"
		return k.Update(ctx, cdi)
	})
	// A label set by an earlier version of the operator, which this one no
	// longer sets: written under the operator's field manager, as it was.
	testenv.Eventually(t, "a label the operator set before", func() error {
		cdi := get(t, cdiKey, &cdiv1beta1.CDI{})
		cdi.Labels["hco.kubevirt.io/retired"] = "true"
		return k.Update(ctx, cdi, client.FieldOwner(hco.FieldOwner))
	})
	testenv.Eventually(t, "the spec edit reverted and the retired label removed", func() error {
		cdi := get(t, cdiKey, &cdiv1beta1.CDI{})
		if cdi.Spec.ImagePullPolicy != "" {
			return fmt.Errorf("imagePullPolicy still %q", cdi.Spec.ImagePullPolicy)
		}
		if _, ok := cdi.Labels["hco.kubevirt.io/retired"]; ok {
			return fmt.Errorf("labels %v", cdi.Labels)
		}
		return nil
	})
	cdi := get(t, cdiKey, &cdiv1beta1.CDI{})
	assert.Equal(t, "storage", cdi.Labels["team"], "someone else's label stays")
	assert.Equal(t, "keep me", cdi.Annotations["note"], "someone else's annotation stays")
	assert.Equal(t, hco.ManagedByValue, cdi.Labels[hco.LabelManagedBy])
	assertEvent(t, hco.EventOverwritten, "CDI cdi-kubevirt-hyperconverged")
}

// A NetworkAddonsConfig taken over from before keeps its status, also what
// our Go mirror lacks of it; its spec becomes the operator's.
func TestTakenOverNetworkAddonsConfigKeepsItsStatus(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	nac := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": cnaov1.GroupVersion.String(), "kind": "NetworkAddonsConfig",
		"metadata": map[string]any{"name": cnaoKey.Name, "labels": map[string]any{"owner": "previous-installer"}},
		"spec":     map[string]any{"imagePullPolicy": "Always"},
	}}
	require.NoError(t, k.Create(ctx, nac))
	status := map[string]any{"observedVersion": "v0.97.0", "conditions": []any{
		map[string]any{"type": "Available", "status": "True", "reason": "AsExpected", "lastTransitionTime": "2026-01-01T00:00:00Z", "lastHeartbeatTime": "2026-01-01T00:00:00Z"},
	}}
	require.NoError(t, unstructured.SetNestedField(nac.Object, status, "status"))
	require.NoError(t, k.Status().Update(ctx, nac))
	t.Cleanup(func() { _ = k.Delete(ctx, nac) })

	createHC(t, nil)
	testenv.Eventually(t, "taken over", func() error {
		got := wire(t, cnaov1.GroupVersion.String(), "NetworkAddonsConfig", cnaoKey)
		// The operator's spec has no imagePullPolicy (as upstream's): the
		// previous installer's "Always" is gone with the rest of its spec.
		_, pullPolicy, _ := unstructured.NestedFieldNoCopy(got.Object, "spec", "imagePullPolicy")
		if got.GetLabels()[hco.LabelManagedBy] != hco.ManagedByValue || pullPolicy || nestedValue(got, "spec", "selfSignConfiguration", "caRotateInterval") != "48h0m0s" {
			return fmt.Errorf("labels %v, spec %v", got.GetLabels(), got.Object["spec"])
		}
		return nil
	})
	got := wire(t, cnaov1.GroupVersion.String(), "NetworkAddonsConfig", cnaoKey)
	assert.Equal(t, "v0.97.0", nestedValue(got, "status", "observedVersion"), "the status is not the operator's")
	assert.Equal(t, "previous-installer", got.GetLabels()["owner"])
}

// Deleted right after it is created, with no mutating webhook: the
// reconciler stores the finalizer before any operand CR, so none is left.
// (When the DELETE read the HyperConverged just before the finalizer was
// stored, the API server removes it at once; the reconcile that stored the
// finalizer then takes back what it created.)
func TestDeletionRightAfterCreationLeavesNoOperand(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	for i := range 20 {
		hc := &v1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: v1beta1.HyperConvergedName, Namespace: ns}}
		require.NoError(t, k.Create(ctx, hc))
		require.NoError(t, k.Delete(ctx, hc))
		deleteHC(t)
		testenv.Eventually(t, fmt.Sprintf("run %d: no operand CR left", i), func() error {
			for key, obj := range map[client.ObjectKey]client.Object{kvKey: &kvv1.KubeVirt{}, cdiKey: &cdiv1beta1.CDI{}, cnaoKey: &cnaov1.NetworkAddonsConfig{}, sspKey: &sspv1beta3.SSP{}} {
				if err := k.Get(ctx, key, obj); !apierrors.IsNotFound(err) {
					return fmt.Errorf("%T left (labels %v): %v", obj, obj.GetLabels(), err)
				}
			}
			return nil
		})
	}
}

// denyCDIUpdates makes the API server refuse every update of a CDI with the
// given reason, as a real cluster's admission policy might, until the
// returned func is called.
func denyCDIUpdates(t *testing.T, reason metav1.StatusReason) (allow func()) {
	t.Helper()
	ctx := context.Background()
	allow = testenv.RefuseUpdates(t, k, testenv.UpdatePolicy{Name: "test-deny-cdi-updates", Group: "cdi.kubevirt.io", Resource: "cdis",
		Expression: "false", Message: "CDI changes are frozen by the test", Reason: ptr.To(reason)})
	// The policy takes effect once the API server has loaded it: probe with
	// the test's own update of the CDI.
	testenv.Eventually(t, "the policy is in force", func() error {
		cdi := get(t, cdiKey, &cdiv1beta1.CDI{})
		cdi.Annotations["probe"] = "x"
		err := k.Update(ctx, cdi)
		if err == nil || !strings.Contains(err.Error(), "frozen by the test") {
			return fmt.Errorf("update went through: %v", err)
		}
		return nil
	})
	return allow
}

// An operand write the API server keeps refusing shows in the conditions
// (naming the operand and the error), the other operands still converge and
// report, and the conditions clear once the write goes through.
func TestFailingOperandWriteIsReportedAndClears(t *testing.T) {
	env.Require(t)
	// Forbidden, and Invalid without a jsonpatch to blame (a component's
	// CRD or webhook refusing for now): both are retried, neither is the
	// admin's configuration error.
	for _, reason := range []metav1.StatusReason{metav1.StatusReasonForbidden, metav1.StatusReasonInvalid} {
		t.Run(string(reason), func(t *testing.T) {
			createHC(t, nil)
			reportHealthy(t)
			waitCondition(t, v1beta1.ConditionAvailable, metav1.ConditionTrue, "")
			allow := denyCDIUpdates(t, reason)

			updateHC(t, func(hc *v1beta1.HyperConverged) {
				hc.Spec.ScratchSpaceStorageClass = ptr.To("fast")                // CDI
				hc.Spec.LiveMigrationConfig.ProgressTimeout = ptr.To(int64(321)) // KubeVirt
			})
			hc := waitCondition(t, v1beta1.ConditionReconcileComplete, metav1.ConditionFalse, hcostatus.ReasonReconcileFailed)
			msg := condition(hc, v1beta1.ConditionReconcileComplete).Message
			assert.Contains(t, msg, "operand cdi: update CDI cdi-kubevirt-hyperconverged")
			assert.Contains(t, msg, "frozen by the test")
			assert.Equal(t, metav1.ConditionTrue, condition(hc, v1beta1.ConditionDegraded).Status)
			assert.Equal(t, hcostatus.ReasonReconcileFailed, condition(hc, v1beta1.ConditionDegraded).Reason)
			assert.Equal(t, hcostatus.ReasonDegraded, condition(hc, v1beta1.ConditionAvailable).Reason, "degraded, so not Available (upstream's chart), though the components still report")
			assert.Equal(t, v1beta1.SystemHealthError, hc.Status.SystemHealthStatus)
			assert.Equal(t, int64(321), *get(t, kvKey, &kvv1.KubeVirt{}).Spec.Configuration.MigrationConfiguration.ProgressTimeout, "the other operands converge")
			assert.Len(t, hc.Status.RelatedObjects, 4, "every operand's objects are still related")

			allow() // no event reaches the operator: its retry brings the change
			waitCondition(t, v1beta1.ConditionReconcileComplete, metav1.ConditionTrue, hcostatus.ReasonReconcileCompleted)
			hc = waitCondition(t, v1beta1.ConditionDegraded, metav1.ConditionFalse, "")
			assert.Equal(t, "fast", *get(t, cdiKey, &cdiv1beta1.CDI{}).Spec.Config.ScratchSpaceStorageClass)
			assert.Equal(t, v1beta1.SystemHealthHealthy, hc.Status.SystemHealthStatus)
		})
	}
}

// A jsonpatch overrides NetworkAddonsConfig fields the operator builds from
// the HyperConverged (the TLS profile, the IPAM controller): the patched
// values land, survive reconciles that rewrite the CR, and give way to the
// operator's own (Intermediate, an IPAM controller with CNAO's defaults) when
// the annotation goes.
func TestJSONPatchOverridesNetworkAddonsConfigFields(t *testing.T) {
	env.Require(t)
	const nacV1 = "networkaddonsoperator.network.kubevirt.io/v1"
	createHC(t, func(hc *v1beta1.HyperConverged) {
		hc.Annotations = map[string]string{v1beta1.CNAOJSONPatchAnnotation: `[
			{"op": "add", "path": "/spec/tlsSecurityProfile", "value": {"type": "Custom", "custom": {"ciphers": ["ECDHE-RSA-AES128-GCM-SHA256"], "minTLSVersion": "VersionTLS12"}}},
			{"op": "add", "path": "/spec/kubevirtIpamController", "value": {"defaultNetworkNADNamespace": "default"}}]`}
	})
	landed := func() error {
		nac := wire(t, nacV1, "NetworkAddonsConfig", cnaoKey)
		if nestedValue(nac, "spec", "tlsSecurityProfile", "custom", "minTLSVersion") != "VersionTLS12" ||
			nestedValue(nac, "spec", "kubevirtIpamController", "defaultNetworkNADNamespace") != "default" {
			return fmt.Errorf("spec %v", nac.Object["spec"])
		}
		return nil
	}
	testenv.Eventually(t, "the fields land", landed)
	hc := waitCondition(t, v1beta1.ConditionTaintedConfiguration, metav1.ConditionTrue, hcostatus.ReasonTainted)
	assert.Equal(t, metav1.ConditionTrue, condition(hc, v1beta1.ConditionReconcileComplete).Status)

	// A change that rewrites the NetworkAddonsConfig keeps them.
	updateHC(t, func(hc *v1beta1.HyperConverged) { hc.Annotations[v1beta1.DeployOVSAnnotation] = "true" })
	testenv.Eventually(t, "OvS deployed", func() error {
		if nestedValue(wire(t, nacV1, "NetworkAddonsConfig", cnaoKey), "spec", "ovs") == nil {
			return fmt.Errorf("no ovs")
		}
		return nil
	})
	require.NoError(t, landed(), "a rewrite keeps the patched fields")

	updateHC(t, func(hc *v1beta1.HyperConverged) { delete(hc.Annotations, v1beta1.CNAOJSONPatchAnnotation) })
	testenv.Eventually(t, "the operator's values come back with the annotation gone", func() error {
		nac := wire(t, nacV1, "NetworkAddonsConfig", cnaoKey)
		if nestedValue(nac, "spec", "tlsSecurityProfile", "type") != "Intermediate" ||
			nestedValue(nac, "spec", "tlsSecurityProfile", "custom") != nil ||
			nestedValue(nac, "spec", "kubevirtIpamController") == nil ||
			nestedValue(nac, "spec", "kubevirtIpamController", "defaultNetworkNADNamespace") != nil {
			return fmt.Errorf("spec %v", nac.Object["spec"])
		}
		return nil
	})
}

// The HostPathProvisioner CRD has no status subresource, so the operator's
// update carries the whole object: what the HPP operator wrote into its
// status, fields our mirror lacks included, survives it. A jsonpatch on it
// lands too (hcokit's own annotation; upstream creates no HPP).
func TestHostPathProvisionerUpdateKeepsWhatTheMirrorLacks(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	const hppV1beta1 = "hostpathprovisioner.kubevirt.io/v1beta1"
	createHC(t, func(hc *v1beta1.HyperConverged) {
		hc.Spec.HostpathProvisioner = &v1beta1.HostpathProvisionerConfig{StoragePools: []v1beta1.HostpathStoragePool{{Name: "local", Path: "/var/hpp"}}}
	})
	testenv.Eventually(t, "the HPP operator reports its pools", func() error {
		hpp := wire(t, hppV1beta1, "HostPathProvisioner", hppKey)
		pools := []any{map[string]any{"name": "local", "phase": "Ready", "desiredReady": int64(1), "currentReady": int64(1)}}
		if err := unstructured.SetNestedSlice(hpp.Object, pools, "status", "storagePoolStatuses"); err != nil {
			return err
		}
		return k.Update(ctx, hpp)
	})
	updateHC(t, func(hc *v1beta1.HyperConverged) {
		hc.Annotations = map[string]string{v1beta1.HPPJSONPatchAnnotation: `[{"op": "add", "path": "/spec/pathConfig", "value": {"path": "/var/other", "useNamingPrefix": true}}]`}
		hc.Spec.HostpathProvisioner.StoragePools[0].Path = "/var/hpp2"
	})
	testenv.Eventually(t, "updated", func() error {
		hpp := wire(t, hppV1beta1, "HostPathProvisioner", hppKey)
		pools, _, _ := unstructured.NestedSlice(hpp.Object, "spec", "storagePools")
		if len(pools) != 1 || pools[0].(map[string]any)["path"] != "/var/hpp2" || nestedValue(hpp, "spec", "pathConfig", "path") != "/var/other" {
			return fmt.Errorf("spec %v", hpp.Object["spec"])
		}
		return nil
	})
	statuses, _, _ := unstructured.NestedSlice(wire(t, hppV1beta1, "HostPathProvisioner", hppKey).Object, "status", "storagePoolStatuses")
	assert.Len(t, statuses, 1, "the status the HPP operator wrote survives the operator's update")
}

// A finalizer removal the API server refuses as invalid (its tests failed:
// the cache was behind, or, here, an admission policy said no) is tried
// again: finalizer changes bring no event, so the operator must come back
// by itself, and the HyperConverged goes once the removal can succeed.
func TestRefusedFinalizerRemovalIsRetried(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	createHC(t, nil)
	get(t, kvKey, &kvv1.KubeVirt{})

	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "test-keep-hco-finalizer"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Update},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{"hco.kubevirt.io"}, APIVersions: []string{"*"}, Resources: []string{"hyperconvergeds"}},
				},
			}}},
			Validations: []admissionregistrationv1.Validation{{
				Expression: `!has(oldObject.metadata.finalizers) || !('` + hco.FinalizerName + `' in oldObject.metadata.finalizers) || (has(object.metadata.finalizers) && '` + hco.FinalizerName + `' in object.metadata.finalizers)`,
				Message:    "the test keeps the finalizer", Reason: ptr.To(metav1.StatusReasonInvalid),
			}},
		},
	}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: policy.Name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        policy.Name,
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
		},
	}
	require.NoError(t, k.Create(ctx, policy))
	require.NoError(t, k.Create(ctx, binding))
	allow := func() {
		_ = k.Delete(ctx, binding)
		_ = k.Delete(ctx, policy)
	}
	t.Cleanup(allow)
	// In force once the test's own removal of the finalizer, as a dry run,
	// is refused.
	testenv.Eventually(t, "the policy is in force", func() error {
		hc := getHC(t)
		hc.Finalizers = nil
		err := k.Update(ctx, hc, client.DryRunAll)
		if err == nil || !strings.Contains(err.Error(), "keeps the finalizer") {
			return fmt.Errorf("update went through: %v", err)
		}
		return nil
	})

	require.NoError(t, k.Delete(ctx, getHC(t)))
	testenv.Eventually(t, "operands deleted, the finalizer removal refused", func() error {
		if err := k.Get(ctx, kvKey, &kvv1.KubeVirt{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("KubeVirt still there: %v", err)
		}
		return nil
	})
	time.Sleep(500 * time.Millisecond)
	require.NotEmpty(t, getHC(t).Finalizers, "the policy held the finalizer")

	allow() // no event reaches the operator
	testenv.Eventually(t, "HyperConverged gone", func() error {
		err := k.Get(ctx, client.ObjectKey{Namespace: ns, Name: hcov1.HyperConvergedName}, &hcov1.HyperConverged{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("still there: %v", err)
	})
}
