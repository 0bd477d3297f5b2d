package aaq_test

import (
	"encoding/json"
	"testing"
	"time"

	conditionsv1 "github.com/openshift/custom-resource-status/conditions/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/operands/aaq"
	aaqv1alpha1 "github.com/hcokit/hcokit/operands/aaq/api/v1alpha1"
)

var env = hco.Environment{Namespace: "my-ns", Version: "1.0.0"}

func ptr[T any](v T) *T { return &v }

func defaultHC() *hcov1.HyperConverged {
	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: "my-ns"}}
	hcov1.Default(hc)
	return hc
}

func enabled(hc *hcov1.HyperConverged) *hcov1.HyperConverged {
	if hc.Spec.Deployment.ApplicationAwareConfig == nil {
		hc.Spec.Deployment.ApplicationAwareConfig = &hcov1.ApplicationAwareConfigurations{}
	}
	hc.Spec.Deployment.ApplicationAwareConfig.Enable = ptr(true)
	return hc
}

func TestOnlyWhenEnabled(t *testing.T) {
	for _, tc := range []struct {
		name string
		hc   func() *hcov1.HyperConverged
		want bool
	}{
		{name: "default HyperConverged", hc: defaultHC, want: false},
		{name: "enable: false", hc: func() *hcov1.HyperConverged {
			hc := defaultHC()
			hc.Spec.Deployment.ApplicationAwareConfig = &hcov1.ApplicationAwareConfigurations{Enable: ptr(false)}
			return hc
		}, want: false},
		{name: "enable: true", hc: func() *hcov1.HyperConverged { return enabled(defaultHC()) }, want: true},
		{name: "v1beta1 enableApplicationAwareQuota: true", hc: func() *hcov1.HyperConverged {
			old := &v1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: v1beta1.HyperConvergedName, Namespace: "my-ns"}}
			v1beta1.Default(old)
			old.Spec.EnableApplicationAwareQuota = ptr(true)
			hub := &hcov1.HyperConverged{}
			require.NoError(t, old.ConvertTo(hub))
			return hub
		}, want: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := aaq.New().Desired(tc.hc(), hco.OfflineFacts(env))
			require.NoError(t, err)
			assert.Equal(t, tc.want, len(objs) == 1, "%v", objs)
		})
	}
}

// TestDesired holds what upstream HCO builds at commit 03da3cf
// (controllers/handlers/aaq.go NewAAQ and NewAAQWithNameOnly): the
// cluster-scoped "aaq-" + the HyperConverged's name, component
// "quota-management", the PriorityClass kubevirt-cluster-critical, pull
// policy IfNotPresent, the certificate rotation and TLS profile, both
// placements, and the calculator DedicatedVirtualResources unless the
// HyperConverged names one.
func TestDesired(t *testing.T) {
	const defaults = `"priorityClass":"kubevirt-cluster-critical","imagePullPolicy":"IfNotPresent",` +
		`"certConfig":{"ca":{"duration":"48h0m0s","renewBefore":"24h0m0s"},"server":{"duration":"24h0m0s","renewBefore":"12h0m0s"}},` +
		`"tlsSecurityProfile":{"type":"Intermediate","intermediate":{}}`
	for _, tc := range []struct {
		name string
		set  func(*hcov1.HyperConverged)
		spec string
	}{
		{
			name: "enabled, defaults",
			spec: `{` + defaults + `,"infra":{},"workload":{},"configuration":{"vmiCalculatorConfiguration":{"configName":"DedicatedVirtualResources"}}}`,
		},
		{
			name: "the admin's settings",
			set: func(hc *hcov1.HyperConverged) {
				hc.Spec.Deployment.ApplicationAwareConfig.VmiCalcConfigName = ptr("VmiPodUsage")
				hc.Spec.Deployment.ApplicationAwareConfig.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"quota": "on"}}
				hc.Spec.Deployment.ApplicationAwareConfig.AllowApplicationAwareClusterResourceQuota = ptr(true)
				hc.Spec.Deployment.NodePlacements = &hcov1.NodePlacements{
					Infra:    &hcov1.NodePlacement{NodeSelector: map[string]string{"infra": "true"}},
					Workload: &hcov1.NodePlacement{Tolerations: []corev1.Toleration{{Key: "w", Operator: corev1.TolerationOpExists}}},
				}
				hc.Spec.Security.CertConfig.CA.Duration = &metav1.Duration{Duration: 72 * time.Hour}
			},
			spec: `{"priorityClass":"kubevirt-cluster-critical","imagePullPolicy":"IfNotPresent",` +
				`"certConfig":{"ca":{"duration":"72h0m0s","renewBefore":"24h0m0s"},"server":{"duration":"24h0m0s","renewBefore":"12h0m0s"}},` +
				`"tlsSecurityProfile":{"type":"Intermediate","intermediate":{}},` +
				`"infra":{"nodeSelector":{"infra":"true"}},"workload":{"tolerations":[{"key":"w","operator":"Exists"}]},` +
				`"namespaceSelector":{"matchLabels":{"quota":"on"}},` +
				`"configuration":{"vmiCalculatorConfiguration":{"configName":"VmiPodUsage"},"allowApplicationAwareClusterResourceQuota":true}}`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hc := enabled(defaultHC())
			if tc.set != nil {
				tc.set(hc)
			}
			objs, err := aaq.New().Desired(hc, hco.OfflineFacts(env))
			require.NoError(t, err)
			require.Len(t, objs, 1)
			a, ok := objs[0].(*aaqv1alpha1.AAQ)
			require.True(t, ok, "%T", objs[0])
			assert.Equal(t, "aaq-kubevirt-hyperconverged", a.Name)
			assert.Empty(t, a.Namespace)
			assert.Equal(t, "quota-management", a.Labels[hco.LabelComponent])
			got, err := json.Marshal(a.Spec)
			require.NoError(t, err)
			assert.JSONEq(t, tc.spec, string(got))

			// Nothing aliases the HyperConverged.
			if a.Spec.NamespaceSelector != nil {
				a.Spec.NamespaceSelector.MatchLabels["quota"] = "changed"
				assert.Equal(t, "on", hc.Spec.Deployment.ApplicationAwareConfig.NamespaceSelector.MatchLabels["quota"])
			}
		})
	}
}

func TestStatus(t *testing.T) {
	withConditions := func(version string, conds ...conditionsv1.Condition) client.Object {
		a := aaq.Build(enabled(defaultHC()), hco.OfflineFacts(env))
		a.Status.Conditions = conds
		a.Status.ObservedVersion = version
		return a
	}
	cond := func(t conditionsv1.ConditionType, s corev1.ConditionStatus) conditionsv1.Condition {
		return conditionsv1.Condition{Type: t, Status: s, Reason: "Reason", Message: "message"}
	}
	for _, tc := range []struct {
		name                             string
		observed                         []client.Object
		available, progressing, degraded metav1.ConditionStatus
		version                          string
	}{
		{name: "not found", available: metav1.ConditionUnknown, progressing: metav1.ConditionUnknown, degraded: metav1.ConditionUnknown},
		{name: "a nil object", observed: []client.Object{(*aaqv1alpha1.AAQ)(nil)}, available: metav1.ConditionUnknown, progressing: metav1.ConditionUnknown, degraded: metav1.ConditionUnknown},
		{
			name: "degraded",
			observed: []client.Object{withConditions("",
				cond(conditionsv1.ConditionAvailable, corev1.ConditionFalse),
				cond(conditionsv1.ConditionProgressing, corev1.ConditionFalse),
				cond(conditionsv1.ConditionDegraded, corev1.ConditionTrue))},
			available: metav1.ConditionFalse, progressing: metav1.ConditionFalse, degraded: metav1.ConditionTrue,
		},
		{
			name: "deployed",
			observed: []client.Object{withConditions("v1.8.0",
				cond(conditionsv1.ConditionAvailable, corev1.ConditionTrue),
				cond(conditionsv1.ConditionProgressing, corev1.ConditionFalse),
				cond(conditionsv1.ConditionDegraded, corev1.ConditionFalse))},
			available: metav1.ConditionTrue, progressing: metav1.ConditionFalse, degraded: metav1.ConditionFalse, version: "v1.8.0",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := aaq.New().Status(tc.observed)
			assert.Equal(t, "AAQ", s.Kind)
			assert.Equal(t, tc.available, s.Available.Status)
			assert.Equal(t, tc.progressing, s.Progressing.Status)
			assert.Equal(t, tc.degraded, s.Degraded.Status)
			assert.Equal(t, tc.version, s.ObservedVersion)
		})
	}
}
