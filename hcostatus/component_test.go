package hcostatus_test

import (
	"testing"

	conditionsv1 "github.com/openshift/custom-resource-status/conditions/v1"
	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hcokit/hcokit/hcostatus"
)

func TestStatusFromConditions(t *testing.T) {
	s := hcostatus.FromConditionsV1("CDI", []conditionsv1.Condition{
		{Type: "Available", Status: corev1.ConditionTrue, Reason: "Deployed"},
		{Type: "Degraded", Status: corev1.ConditionFalse},
		{Type: "Progressing", Status: "garbage"},
		{Type: "SomethingElse", Status: corev1.ConditionTrue},
	}, "v1.66.0")
	assert.Equal(t, "CDI", s.Kind)
	assert.Equal(t, hcostatus.ComponentCondition{Status: metav1.ConditionTrue, Reason: "Deployed"}, s.Available)
	assert.Equal(t, metav1.ConditionFalse, s.Degraded.Status)
	assert.Equal(t, metav1.ConditionUnknown, s.Progressing.Status, "an unknown status value is Unknown")
	assert.Equal(t, metav1.ConditionTrue, s.Upgradeable.Status, "unreported Upgradeable does not block upgrades")
	assert.Equal(t, "v1.66.0", s.ObservedVersion)
}

func TestStatusOfNothingReported(t *testing.T) {
	s := hcostatus.FromConditions("KubeVirt", nil, "")
	assert.Equal(t, metav1.ConditionUnknown, s.Available.Status)
	assert.Equal(t, hcostatus.ReasonNoStatus, s.Available.Reason)

	nf := hcostatus.NotFound("SSP")
	assert.Equal(t, hcostatus.ReasonNotFound, nf.Available.Reason)
	assert.Equal(t, metav1.ConditionUnknown, nf.Upgradeable.Status)
}
