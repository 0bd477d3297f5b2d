package migcontroller_test

import (
	"encoding/json"
	"testing"

	ocpconfigv1 "github.com/openshift/api/config/v1"
	conditionsv1 "github.com/openshift/custom-resource-status/conditions/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hcostatus"
	"github.com/hcokit/hcokit/operands/migcontroller"
	migv1alpha1 "github.com/hcokit/hcokit/operands/migcontroller/api/v1alpha1"
)

var env = hco.Environment{Namespace: "my-ns", Version: "1.0.0"}

func defaultHC() *hcov1.HyperConverged {
	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: "my-ns"}}
	hcov1.Default(hc)
	return hc
}

func desired(t *testing.T, hc *hcov1.HyperConverged) *migv1alpha1.MigController {
	t.Helper()
	objs, err := migcontroller.New().Desired(hc, hco.OfflineFacts(env))
	require.NoError(t, err)
	require.Len(t, objs, 1)
	m, ok := objs[0].(*migv1alpha1.MigController)
	require.True(t, ok, "%T", objs[0])
	return m
}

// TestDesired holds what upstream HCO builds at commit 03da3cf
// (controllers/handlers/migration.go NewMigController and
// NewMigControllerWithNameOnly, and migration_test.go): the name
// "migcontroller-" + the HyperConverged's name, in the operator namespace,
// component "migration", pull policy IfNotPresent, the infra placement only
// and the resolved TLS profile.
func TestDesired(t *testing.T) {
	infra := &hcov1.NodePlacement{
		NodeSelector: map[string]string{"infra": "true"},
		Tolerations:  []corev1.Toleration{{Key: "infra", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
	}
	workload := &hcov1.NodePlacement{NodeSelector: map[string]string{"workload": "true"}}
	for _, tc := range []struct {
		name string
		set  func(*hcov1.HyperConverged)
		spec string
	}{
		{
			name: "default HyperConverged",
			spec: `{"imagePullPolicy":"IfNotPresent","infra":{},"tlsSecurityProfile":{"type":"Intermediate","intermediate":{}}}`,
		},
		{
			name: "infra placement copied, workload placement not",
			set: func(hc *hcov1.HyperConverged) {
				hc.Spec.Deployment.NodePlacements = &hcov1.NodePlacements{Infra: infra.DeepCopy(), Workload: workload.DeepCopy()}
			},
			spec: `{"imagePullPolicy":"IfNotPresent","infra":{"nodeSelector":{"infra":"true"},"tolerations":[{"key":"infra","operator":"Exists","effect":"NoSchedule"}]},"tlsSecurityProfile":{"type":"Intermediate","intermediate":{}}}`,
		},
		{
			name: "an empty placement is none",
			set: func(hc *hcov1.HyperConverged) {
				hc.Spec.Deployment.NodePlacements = &hcov1.NodePlacements{Infra: &hcov1.NodePlacement{}}
			},
			spec: `{"imagePullPolicy":"IfNotPresent","infra":{},"tlsSecurityProfile":{"type":"Intermediate","intermediate":{}}}`,
		},
		{
			name: "Old profile",
			set: func(hc *hcov1.HyperConverged) {
				hc.Spec.Security.TLSSecurityProfile = &ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileOldType, Old: &ocpconfigv1.OldTLSProfile{}}
			},
			spec: `{"imagePullPolicy":"IfNotPresent","infra":{},"tlsSecurityProfile":{"type":"Old","old":{}}}`,
		},
		{
			name: "Custom profile",
			set: func(hc *hcov1.HyperConverged) {
				hc.Spec.Security.TLSSecurityProfile = &ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileCustomType,
					Custom: &ocpconfigv1.CustomTLSProfile{TLSProfileSpec: ocpconfigv1.TLSProfileSpec{Ciphers: []string{"ECDHE-RSA-AES128-GCM-SHA256"}, MinTLSVersion: ocpconfigv1.VersionTLS12}}}
			},
			spec: `{"imagePullPolicy":"IfNotPresent","infra":{},"tlsSecurityProfile":{"type":"Custom","custom":{"ciphers":["ECDHE-RSA-AES128-GCM-SHA256"],"minTLSVersion":"VersionTLS12"}}}`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hc := defaultHC()
			if tc.set != nil {
				tc.set(hc)
			}
			m := desired(t, hc)
			assert.Equal(t, "migcontroller-kubevirt-hyperconverged", m.Name)
			assert.Equal(t, "my-ns", m.Namespace)
			assert.Equal(t, "migration", m.Labels[hco.LabelComponent])
			assert.Equal(t, hco.ManagedByValue, m.Labels[hco.LabelManagedBy])
			got, err := json.Marshal(m.Spec)
			require.NoError(t, err)
			assert.JSONEq(t, tc.spec, string(got))
		})
	}
}

// TestDesiredDoesNotAlias checks that the placement is a copy.
func TestDesiredDoesNotAlias(t *testing.T) {
	hc := defaultHC()
	hc.Spec.Deployment.NodePlacements = &hcov1.NodePlacements{Infra: &hcov1.NodePlacement{NodeSelector: map[string]string{"a": "b"}}}
	m := desired(t, hc)
	m.Spec.Infra.NodeSelector["a"] = "changed"
	assert.Equal(t, "b", hc.Spec.Deployment.NodePlacements.Infra.NodeSelector["a"])
}

func TestStatus(t *testing.T) {
	withConditions := func(version string, conds ...conditionsv1.Condition) client.Object {
		m := migcontroller.Build(defaultHC(), hco.OfflineFacts(env))
		m.Status.Conditions = conds
		m.Status.ObservedVersion = version
		return m
	}
	cond := func(t conditionsv1.ConditionType, s corev1.ConditionStatus, reason string) conditionsv1.Condition {
		return conditionsv1.Condition{Type: t, Status: s, Reason: reason, Message: reason + " message"}
	}
	for _, tc := range []struct {
		name                             string
		observed                         []client.Object
		available, progressing, degraded metav1.ConditionStatus
		reason, version                  string
	}{
		{name: "not found", available: metav1.ConditionUnknown, progressing: metav1.ConditionUnknown, degraded: metav1.ConditionUnknown, reason: hcostatus.ReasonNotFound},
		{name: "a nil object", observed: []client.Object{(*migv1alpha1.MigController)(nil)}, available: metav1.ConditionUnknown, progressing: metav1.ConditionUnknown, degraded: metav1.ConditionUnknown, reason: hcostatus.ReasonNotFound},
		{name: "no status yet", observed: []client.Object{withConditions("")}, available: metav1.ConditionUnknown, progressing: metav1.ConditionUnknown, degraded: metav1.ConditionUnknown, reason: hcostatus.ReasonNoStatus},
		{
			name: "deploying",
			observed: []client.Object{withConditions("",
				cond(conditionsv1.ConditionAvailable, corev1.ConditionFalse, "DeployStarted"),
				cond(conditionsv1.ConditionProgressing, corev1.ConditionTrue, "DeployStarted"),
				cond(conditionsv1.ConditionDegraded, corev1.ConditionFalse, "DeployStarted"))},
			available: metav1.ConditionFalse, progressing: metav1.ConditionTrue, degraded: metav1.ConditionFalse, reason: "DeployStarted",
		},
		{
			name: "deployed",
			observed: []client.Object{withConditions("v0.2.0",
				cond(conditionsv1.ConditionAvailable, corev1.ConditionTrue, "DeployCompleted"),
				cond(conditionsv1.ConditionProgressing, corev1.ConditionFalse, "DeployCompleted"),
				cond(conditionsv1.ConditionDegraded, corev1.ConditionFalse, "DeployCompleted"))},
			available: metav1.ConditionTrue, progressing: metav1.ConditionFalse, degraded: metav1.ConditionFalse, reason: "DeployCompleted", version: "v0.2.0",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := migcontroller.New().Status(tc.observed)
			assert.Equal(t, "MigController", s.Kind)
			assert.Equal(t, tc.available, s.Available.Status)
			assert.Equal(t, tc.progressing, s.Progressing.Status)
			assert.Equal(t, tc.degraded, s.Degraded.Status)
			assert.Equal(t, tc.reason, s.Available.Reason)
			assert.Equal(t, tc.version, s.ObservedVersion)
		})
	}
}
