package filerestore_test

import (
	"encoding/json"
	"testing"

	ocpconfigv1 "github.com/openshift/api/config/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hcostatus"
	"github.com/hcokit/hcokit/operands/filerestore"
	frv1alpha1 "github.com/hcokit/hcokit/operands/filerestore/api/v1alpha1"
)

var env = hco.Environment{Namespace: "my-ns", Version: "1.0.0"}

func defaultHC() *hcov1.HyperConverged {
	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: "my-ns"}}
	hcov1.Default(hc)
	return hc
}

// TestDesired holds what upstream HCO builds at commit 03da3cf
// (controllers/handlers/vm-file-restore.go NewFileRestoreOperator and
// NewFileRestoreOperatorWithNameOnly): the name "vm-file-restore-" + the
// HyperConverged's name, in the operator namespace, component
// "vm-file-restore", pull policy IfNotPresent and the resolved TLS profile;
// no placement (upstream copies none).
func TestDesired(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(*hcov1.HyperConverged)
		spec string
	}{
		{
			name: "default HyperConverged",
			spec: `{"imagePullPolicy":"IfNotPresent","tlsSecurityProfile":{"type":"Intermediate","intermediate":{}}}`,
		},
		{
			name: "placement is not copied",
			set: func(hc *hcov1.HyperConverged) {
				hc.Spec.Deployment.NodePlacements = &hcov1.NodePlacements{Infra: &hcov1.NodePlacement{NodeSelector: map[string]string{"infra": "true"}}}
			},
			spec: `{"imagePullPolicy":"IfNotPresent","tlsSecurityProfile":{"type":"Intermediate","intermediate":{}}}`,
		},
		{
			name: "Modern profile",
			set: func(hc *hcov1.HyperConverged) {
				hc.Spec.Security.TLSSecurityProfile = &ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileModernType, Modern: &ocpconfigv1.ModernTLSProfile{}}
			},
			spec: `{"imagePullPolicy":"IfNotPresent","tlsSecurityProfile":{"type":"Modern","modern":{}}}`,
		},
		{
			name: "Custom profile",
			set: func(hc *hcov1.HyperConverged) {
				hc.Spec.Security.TLSSecurityProfile = &ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileCustomType,
					Custom: &ocpconfigv1.CustomTLSProfile{TLSProfileSpec: ocpconfigv1.TLSProfileSpec{Ciphers: []string{"ECDHE-RSA-AES128-GCM-SHA256"}, MinTLSVersion: ocpconfigv1.VersionTLS12}}}
			},
			spec: `{"imagePullPolicy":"IfNotPresent","tlsSecurityProfile":{"type":"Custom","custom":{"ciphers":["ECDHE-RSA-AES128-GCM-SHA256"],"minTLSVersion":"VersionTLS12"}}}`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hc := defaultHC()
			if tc.set != nil {
				tc.set(hc)
			}
			objs, err := filerestore.New().Desired(hc, hco.OfflineFacts(env))
			require.NoError(t, err)
			require.Len(t, objs, 1)
			f, ok := objs[0].(*frv1alpha1.FileRestoreOperator)
			require.True(t, ok, "%T", objs[0])
			assert.Equal(t, "vm-file-restore-kubevirt-hyperconverged", f.Name)
			assert.Equal(t, "my-ns", f.Namespace)
			assert.Equal(t, "vm-file-restore", f.Labels[hco.LabelComponent])
			assert.Equal(t, hco.ManagedByValue, f.Labels[hco.LabelManagedBy])
			got, err := json.Marshal(f.Spec)
			require.NoError(t, err)
			assert.JSONEq(t, tc.spec, string(got))
		})
	}
}

func TestStatus(t *testing.T) {
	withConditions := func(version string, conds ...metav1.Condition) client.Object {
		f := filerestore.Build(defaultHC(), hco.OfflineFacts(env))
		f.Status.Conditions = conds
		f.Status.ObservedVersion = version
		return f
	}
	cond := func(t string, s metav1.ConditionStatus, reason string) metav1.Condition {
		return metav1.Condition{Type: t, Status: s, Reason: reason, Message: reason + " message"}
	}
	for _, tc := range []struct {
		name                             string
		observed                         []client.Object
		available, progressing, degraded metav1.ConditionStatus
		reason, version                  string
	}{
		{name: "not found", available: metav1.ConditionUnknown, progressing: metav1.ConditionUnknown, degraded: metav1.ConditionUnknown, reason: hcostatus.ReasonNotFound},
		{name: "a nil object", observed: []client.Object{(*frv1alpha1.FileRestoreOperator)(nil)}, available: metav1.ConditionUnknown, progressing: metav1.ConditionUnknown, degraded: metav1.ConditionUnknown, reason: hcostatus.ReasonNotFound},
		{name: "no status yet", observed: []client.Object{withConditions("")}, available: metav1.ConditionUnknown, progressing: metav1.ConditionUnknown, degraded: metav1.ConditionUnknown, reason: hcostatus.ReasonNoStatus},
		{
			name: "degraded",
			observed: []client.Object{withConditions("",
				cond("Available", metav1.ConditionFalse, "Failed"),
				cond("Progressing", metav1.ConditionFalse, "Failed"),
				cond("Degraded", metav1.ConditionTrue, "Failed"))},
			available: metav1.ConditionFalse, progressing: metav1.ConditionFalse, degraded: metav1.ConditionTrue, reason: "Failed",
		},
		{
			name: "deployed",
			observed: []client.Object{withConditions("v0.0.6",
				cond("Available", metav1.ConditionTrue, "Deployed"),
				cond("Progressing", metav1.ConditionFalse, "Deployed"),
				cond("Degraded", metav1.ConditionFalse, "Deployed"))},
			available: metav1.ConditionTrue, progressing: metav1.ConditionFalse, degraded: metav1.ConditionFalse, reason: "Deployed", version: "v0.0.6",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := filerestore.New().Status(tc.observed)
			assert.Equal(t, "FileRestoreOperator", s.Kind)
			assert.Equal(t, tc.available, s.Available.Status)
			assert.Equal(t, tc.progressing, s.Progressing.Status)
			assert.Equal(t, tc.degraded, s.Degraded.Status)
			assert.Equal(t, tc.reason, s.Available.Reason)
			assert.Equal(t, tc.version, s.ObservedVersion)
		})
	}
}
