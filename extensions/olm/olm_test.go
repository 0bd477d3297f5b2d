package olm_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hcokit/hcokit/extensions/olm"
)

// The Upgradeable operator condition as upstream sets it: True (reason
// Upgradeable) while the HyperConverged is Upgradeable, False with the
// HyperConverged's reason and message while it is not, False while the
// operator upgrades (naming the version), whatever the HyperConverged says.
func TestUpgradeableCondition(t *testing.T) {
	upgradeable := func(s metav1.ConditionStatus) []metav1.Condition {
		return []metav1.Condition{{Type: "Upgradeable", Status: s, Reason: "ComponentsProgressing", Message: "KubeVirt is progressing"}}
	}
	for name, tc := range map[string]struct {
		conds     []metav1.Condition
		upgrading bool
		want      metav1.Condition
	}{
		"upgradeable":      {upgradeable(metav1.ConditionTrue), false, metav1.Condition{Type: "Upgradeable", Status: "True", Reason: "Upgradeable"}},
		"not upgradeable":  {upgradeable(metav1.ConditionFalse), false, metav1.Condition{Type: "Upgradeable", Status: "False", Reason: "ComponentsProgressing", Message: "KubeVirt is progressing"}},
		"no condition yet": {nil, false, metav1.Condition{Type: "Upgradeable", Status: "False", Reason: "Upgradeable"}},
		"upgrading": {upgradeable(metav1.ConditionTrue), true, metav1.Condition{Type: "Upgradeable", Status: "False", Reason: "AlreadyPerformingUpgrade",
			Message: "upgrading the hyperConverged cluster operator to version 1.20.0"}},
	} {
		assert.Equal(t, tc.want, olm.UpgradeableCondition(tc.conds, tc.upgrading, "1.20.0"), name)
	}
}
