package observability_test

import (
	"testing"

	ocpconfigv1 "github.com/openshift/api/config/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/featuregates"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hcostatus"
	"github.com/hcokit/hcokit/operands/observability"
)

const image = "quay.io/kubevirt/virt-observability-controller:v1"

func hyperConverged(gate bool) *hcov1.HyperConverged {
	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: "kubevirt-hyperconverged"}}
	hcov1.Default(hc)
	if gate {
		hc.Spec.FeatureGates.Set(featuregates.GateDeployObservabilityController, true)
	}
	return hc
}

func facts(img string) hco.Facts {
	f := hco.OfflineFacts(hco.Environment{Namespace: "kubevirt-hyperconverged", Version: "1.0.0"})
	if img != "" {
		f.Images = map[string]string{observability.ImageKey: img}
	}
	return f
}

func TestDesiredOnlyWithTheGateAndTheImage(t *testing.T) {
	for name, tc := range map[string]struct {
		gate  bool
		image string
		want  int
	}{
		"gate off":          {false, image, 0},
		"no image":          {true, "", 0},
		"gate on and image": {true, image, 3},
	} {
		objs, err := hco.DesiredObjects(observability.New(), hyperConverged(tc.gate), facts(tc.image))
		require.NoError(t, err, name)
		assert.Len(t, objs, tc.want, name)
	}
}

// The objects as upstream builds them at 03da3cf
// (controllers/handlers/observabilitycontroller).
func TestDesiredIsUpstreams(t *testing.T) {
	objs, err := observability.New().Desired(hyperConverged(true), facts(image))
	require.NoError(t, err)
	sa, crb, dep := objs[0].(*corev1.ServiceAccount), objs[1].(*rbacv1.ClusterRoleBinding), objs[2].(*appsv1.Deployment)
	cr := observability.ClusterRole() // shipped by config/components/observability, not by the operand
	for _, o := range objs {
		assert.Equal(t, "virt-observability-controller", o.GetLabels()[hco.LabelComponent], "%T", o)
	}
	assert.Equal(t, client.ObjectKey{Namespace: "kubevirt-hyperconverged", Name: "virt-observability-controller"}, client.ObjectKeyFromObject(sa))
	assert.Equal(t, "virt-observability-controller", cr.Name)
	assert.Len(t, cr.Rules, 9)
	assert.Equal(t, "virt-observability-controller-rolebinding", crb.Name)
	assert.Equal(t, rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "virt-observability-controller"}, crb.RoleRef)
	assert.Equal(t, []rbacv1.Subject{{Kind: "ServiceAccount", Name: "virt-observability-controller", Namespace: "kubevirt-hyperconverged"}}, crb.Subjects)

	assert.Equal(t, map[string]string{"app": "kubevirt-hyperconverged", "app.kubernetes.io/component": "virt-observability-controller"}, dep.Spec.Selector.MatchLabels)
	pod := dep.Spec.Template.Spec
	assert.Equal(t, "virt-observability-controller", pod.ServiceAccountName)
	assert.Equal(t, "system-cluster-critical", pod.PriorityClassName)
	c := pod.Containers[0]
	assert.Equal(t, image, c.Image)
	assert.Equal(t, []string{"--metrics-bind-address=:8443", "--metrics-secure=true", "--health-probe-bind-address=:8081",
		"--leader-elect=false", "--tls-security-profile=Intermediate"}, c.Args)
	assert.Equal(t, "128Mi", c.Resources.Limits.Memory().String())
	assert.Equal(t, "/readyz", c.ReadinessProbe.HTTPGet.Path)
}

func TestArgs(t *testing.T) {
	hc := hyperConverged(true)
	hc.Spec.Observability = &hcov1.ObservabilityConfig{
		AllowedAlerts:         []string{"a1", "a2"},
		AllowedRecordingRules: []string{"r1"},
		Workloads:             &hcov1.ObservabilityWorkloadsConfig{AllowedMetrics: []string{"m1", "m2"}},
	}
	hc.Spec.Security.TLSSecurityProfile = &ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileCustomType, Custom: &ocpconfigv1.CustomTLSProfile{
		TLSProfileSpec: ocpconfigv1.TLSProfileSpec{Ciphers: []string{"ECDHE-RSA-AES128-GCM-SHA256"}, MinTLSVersion: ocpconfigv1.VersionTLS12}}}
	assert.Equal(t, []string{"--metrics-bind-address=:8443", "--metrics-secure=true", "--health-probe-bind-address=:8081",
		"--leader-elect=false", "--tls-security-profile=Custom", "--tls-min-version=VersionTLS12",
		"--tls-cipher-suites=ECDHE-RSA-AES128-GCM-SHA256",
		"--metrics-allowlist=m1,m2", "--alerts-allowlist=a1,a2", "--recording-rules-allowlist=r1"}, observability.Args(hc, nil))

	// Without a profile of its own, the cluster's.
	hc.Spec.Security.TLSSecurityProfile = nil
	modern := &ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileModernType}
	assert.Contains(t, observability.Args(hc, modern), "--tls-security-profile=Modern")
}

func TestStatus(t *testing.T) {
	op := observability.New()
	assert.Equal(t, hcostatus.ReasonNotFound, op.Status(nil).Available.Reason)
	st := op.Status([]client.Object{&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: observability.ObjectName}}})
	assert.Equal(t, metav1.ConditionTrue, st.Available.Status)
	assert.Equal(t, observability.StatusKind, st.Kind)
}
