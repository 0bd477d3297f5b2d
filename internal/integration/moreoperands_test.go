package integration

import (
	"context"
	"testing"

	ocpconfigv1 "github.com/openshift/api/config/v1"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/featuregates"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/internal/testenv"
	"github.com/hcokit/hcokit/operands/aaq"
	"github.com/hcokit/hcokit/operands/aie"
	"github.com/hcokit/hcokit/operands/filerestore"
	"github.com/hcokit/hcokit/operands/migcontroller"
	"github.com/hcokit/hcokit/operands/namespacepolicy"
	"github.com/hcokit/hcokit/operands/observability"
	"github.com/hcokit/hcokit/operands/priorityclass"
)

// TestMoreOperandsAcceptedByTheirRealCRDs builds the objects of the
// PriorityClass, namespace policy, MigController, FileRestoreOperator, AAQ and
// observability controller and AIE webhook
// modules for a default HyperConverged (AAQ enabled) and for one that sets
// everything they copy, and creates each (dry run: nothing is left behind)
// with strict field validation: the API server refuses an unknown field, and
// nothing sent is pruned or changed.
func TestMoreOperandsAcceptedByTheirRealCRDs(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	ops := []hco.Operand{priorityclass.New(), namespacepolicy.New(), migcontroller.New(), filerestore.New(), aaq.New(), observability.New(), aie.New()}
	facts := hco.OfflineFacts(operatorEnv)
	facts.Images = map[string]string{observability.ImageKey: "quay.io/kubevirt/virt-observability-controller:test", aie.ImageKey: "quay.io/kubevirt/kubevirt-aie-webhook:test"}
	on := true
	for name, set := range map[string]func(*hcov1.HyperConverged){
		"default": nil,
		"everything set": func(hc *hcov1.HyperConverged) {
			hc.Spec.Deployment.NodePlacements = &hcov1.NodePlacements{
				Infra:    &hcov1.NodePlacement{NodeSelector: map[string]string{"infra": "true"}, Tolerations: []corev1.Toleration{{Key: "infra", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}},
				Workload: &hcov1.NodePlacement{NodeSelector: map[string]string{"workload": "true"}},
			}
			hc.Spec.Security.TLSSecurityProfile = &ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileCustomType,
				Custom: &ocpconfigv1.CustomTLSProfile{TLSProfileSpec: ocpconfigv1.TLSProfileSpec{Ciphers: []string{"ECDHE-RSA-AES128-GCM-SHA256"}, MinTLSVersion: ocpconfigv1.VersionTLS12}}}
			calc := "VmiPodUsage"
			hc.Spec.Deployment.ApplicationAwareConfig.VmiCalcConfigName = &calc
			hc.Spec.Deployment.ApplicationAwareConfig.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"quota": "on"}}
			hc.Spec.Deployment.ApplicationAwareConfig.AllowApplicationAwareClusterResourceQuota = &on
			hc.Spec.Observability = &hcov1.ObservabilityConfig{AllowedAlerts: []string{"KubeVirtCRModified"},
				AllowedRecordingRules: []string{"kubevirt_vmi_phase_count"}, Workloads: &hcov1.ObservabilityWorkloadsConfig{AllowedMetrics: []string{"kubevirt_vmi_info"}}}
		},
	} {
		t.Run(name, func(t *testing.T) {
			hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: ns}}
			hcov1.Default(hc)
			if hc.Spec.Deployment.ApplicationAwareConfig == nil {
				hc.Spec.Deployment.ApplicationAwareConfig = &hcov1.ApplicationAwareConfigurations{}
			}
			hc.Spec.Deployment.ApplicationAwareConfig.Enable = &on
			hc.Spec.FeatureGates.Set(featuregates.GateDeployObservabilityController, true)
			hc.Annotations = map[string]string{featuregates.DeployAIEAnnotation: "true"}
			if set != nil {
				set(hc)
			}
			for _, op := range ops {
				objs, err := hco.DesiredObjects(op, hc, facts)
				require.NoError(t, err, op.Name())
				require.NotEmpty(t, objs, op.Name())
				for _, obj := range objs {
					content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
					require.NoError(t, err)
					sent := &unstructured.Unstructured{Object: content}
					unstructured.RemoveNestedField(sent.Object, "metadata", "creationTimestamp")
					unstructured.RemoveNestedField(sent.Object, "status")
					u := sent.DeepCopy()
					require.NoError(t, k.Create(ctx, u, client.DryRunAll, client.FieldValidation(metav1.FieldValidationStrict)),
						"%s: %s %s", op.Name(), sent.GetKind(), sent.GetName())
					for field, want := range sent.Object {
						if field == "metadata" || field == "apiVersion" || field == "kind" {
							continue
						}
						if missing := testenv.NotIn(want, u.Object[field], field); missing != "" {
							t.Errorf("%s %s: the API server pruned or changed %s", sent.GetKind(), sent.GetName(), missing)
						}
					}
				}
			}
		})
	}
}
