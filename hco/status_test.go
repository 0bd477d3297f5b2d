package hco_test

import (
	"testing"

	conditionsv1 "github.com/openshift/custom-resource-status/conditions/v1"
	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
)

func TestStatusFromConditions(t *testing.T) {
	s := hco.StatusFromConditionsV1("CDI", []conditionsv1.Condition{
		{Type: "Available", Status: corev1.ConditionTrue, Reason: "Deployed"},
		{Type: "Degraded", Status: corev1.ConditionFalse},
		{Type: "Progressing", Status: "garbage"},
		{Type: "SomethingElse", Status: corev1.ConditionTrue},
	}, "v1.66.0")
	assert.Equal(t, "CDI", s.Kind)
	assert.Equal(t, hco.ComponentCondition{Status: metav1.ConditionTrue, Reason: "Deployed"}, s.Available)
	assert.Equal(t, metav1.ConditionFalse, s.Degraded.Status)
	assert.Equal(t, metav1.ConditionUnknown, s.Progressing.Status, "an unknown status value is Unknown")
	assert.Equal(t, metav1.ConditionTrue, s.Upgradeable.Status, "unreported Upgradeable does not block upgrades")
	assert.Equal(t, "v1.66.0", s.ObservedVersion)
}

func TestStatusOfNothingReported(t *testing.T) {
	s := hco.StatusFromConditions("KubeVirt", nil, "")
	assert.Equal(t, metav1.ConditionUnknown, s.Available.Status)
	assert.Equal(t, hco.ReasonNoStatus, s.Available.Reason)

	nf := hco.StatusNotFound("SSP")
	assert.Equal(t, hco.ReasonNotFound, nf.Available.Reason)
	assert.Equal(t, metav1.ConditionUnknown, nf.Upgradeable.Status)
}

func TestLabels(t *testing.T) {
	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName}}
	assert.Equal(t, map[string]string{
		"app":                          "kubevirt-hyperconverged",
		"app.kubernetes.io/managed-by": "hco-operator",
		"app.kubernetes.io/part-of":    "hyperconverged-cluster",
		"app.kubernetes.io/component":  "compute",
		"app.kubernetes.io/version":    "1.2.3",
	}, hco.Labels(hc, hco.Environment{Version: "1.2.3"}, hco.ComponentCompute))
	assert.NotContains(t, hco.Labels(hc, hco.Environment{}, hco.ComponentCompute), "app.kubernetes.io/version")
}
