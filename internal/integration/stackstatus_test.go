package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"

	conditionsv1 "github.com/openshift/custom-resource-status/conditions/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	kvv1 "kubevirt.io/api/core/v1"
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/internal/testenv"
	"github.com/hcokit/hcokit/operands/cdi"
	"github.com/hcokit/hcokit/operands/cnao"
	"github.com/hcokit/hcokit/operands/hpp"
	"github.com/hcokit/hcokit/operands/kubevirt"
	"github.com/hcokit/hcokit/operands/ssp"
	"github.com/hcokit/hcokit/stackstatus"
)

// `kubectl hco status` follows the stack through its states, as the
// operator judges it: converging (the KubeVirt has reported nothing yet),
// healthy, a component Degraded with its reason, its operator's Deployment
// not ready, a jsonpatch annotation tainting the configuration, and an
// uninstall blocked by a component's finalizer; each time the first failing
// leaf and its reason.
func TestStatusViewFollowsTheStack(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	reg, err := hco.NewRegistry(kubevirt.New(), cdi.New(), cnao.New(), ssp.New(), hpp.New())
	require.NoError(t, err)
	read := func() *stackstatus.Stack {
		t.Helper()
		s, err := stackstatus.Read(ctx, k, reg, ns)
		require.NoError(t, err)
		return s
	}
	leaf := func(want string) *stackstatus.Stack {
		t.Helper()
		var s *stackstatus.Stack
		testenv.Eventually(t, "first failure "+want, func() error {
			s = read()
			got := "none"
			if s.FirstFailure != nil {
				got = s.FirstFailure.String()
			}
			if got != want {
				return fmt.Errorf("first failure %q", got)
			}
			return nil
		})
		return s
	}

	_, err = stackstatus.Read(ctx, k, reg, ns)
	require.ErrorContains(t, err, "no HyperConverged kubevirt-hyperconverged/kubevirt-hyperconverged")

	createHC(t, nil)
	s := leaf("kubevirt › KubeVirt kubevirt-kubevirt-hyperconverged: NoStatusReported (Available=Unknown): the component has not reported this condition yet")
	assert.False(t, s.Healthy)
	assert.Equal(t, []string{"kubevirt", "cdi", "cnao", "ssp"}, operandsOf(s), "hpp is not deployed: left out")

	reportHealthy(t)
	s = leaf("none")
	assert.True(t, s.Healthy)
	assert.Equal(t, "v1.9.0", s.Components[0].ObservedVersion)

	setConditionsV1(t, cdiKey, &cdiv1beta1.CDI{}, []conditionsv1.Condition{
		{Type: "Available", Status: corev1.ConditionTrue}, {Type: "Progressing", Status: corev1.ConditionFalse},
		{Type: "Degraded", Status: corev1.ConditionTrue, Reason: "PodsCrashing", Message: "cdi-deployment is crash looping"},
	})
	leaf("cdi › CDI cdi-kubevirt-hyperconverged: PodsCrashing (Degraded=True): cdi-deployment is crash looping")

	// The whole-stack install's cdi-operator, its pod not ready.
	operator := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "cdi-operator"},
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](1), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"name": "cdi-operator"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"name": "cdi-operator"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "cdi-operator", Image: "quay.io/kubevirt/cdi-operator:v1.66.0"}}}}}}
	testenv.CreateForTest(t, k, operator)
	leaf("cdi › operator Deployment cdi-operator: NotReady: 0 of 1 replicas ready")

	setConditionsV1(t, cdiKey, &cdiv1beta1.CDI{}, healthyV1)
	testenv.Eventually(t, "the operator's pod ready", func() error {
		if err := k.Get(ctx, client.ObjectKeyFromObject(operator), operator); err != nil {
			return err
		}
		operator.Status.Replicas, operator.Status.ReadyReplicas = 1, 1
		return k.Status().Update(ctx, operator)
	})
	leaf("none")

	updateHC(t, func(hc *v1beta1.HyperConverged) {
		hc.Annotations = map[string]string{hcov1.KubeVirtJSONPatchAnnotation: `[{"op":"add","path":"/spec/configuration/developerConfiguration/featureGates/-","value":"Sidecar"}]`}
	})
	leaf("HyperConverged kubevirt-hyperconverged: UnsupportedFeatureAnnotation (TaintedConfiguration=True): Unsupported feature was activated via an HCO annotation")

	// An uninstall blocked: KubeVirt holds a finalizer, as virt-operator
	// does while it tears down, past the operator's deletion timeout.
	kv := get(t, kvKey, &kvv1.KubeVirt{})
	kv.Finalizers = []string{"test/hold"}
	require.NoError(t, k.Update(ctx, kv))
	release := func() {
		kv := &kvv1.KubeVirt{}
		if err := k.Get(ctx, kvKey, kv); err == nil && len(kv.Finalizers) > 0 {
			kv.Finalizers = nil
			_ = k.Update(ctx, kv)
		}
	}
	t.Cleanup(release)
	require.NoError(t, k.Delete(ctx, getHC(t)))
	testenv.Eventually(t, "the blocked uninstall is the leaf", func() error {
		s := read()
		if !s.HyperConverged.Deleting || s.FirstFailure == nil ||
			!strings.HasPrefix(s.FirstFailure.String(), "HyperConverged kubevirt-hyperconverged: DeletionBlocked (ReconcileComplete=False)") ||
			!strings.Contains(s.FirstFailure.Message, "KubeVirt kubevirt-kubevirt-hyperconverged (finalizers: test/hold)") {
			return fmt.Errorf("deleting %v, first failure %v", s.HyperConverged.Deleting, s.FirstFailure)
		}
		return nil
	})
	release()
}

func operandsOf(s *stackstatus.Stack) []string {
	var out []string
	for _, c := range s.Components {
		out = append(out, c.Operand)
	}
	return out
}
