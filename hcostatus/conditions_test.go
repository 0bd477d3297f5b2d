package hcostatus_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hcostatus"
)

func healthy(kind string) hcostatus.Component {
	return hcostatus.Component{
		Kind:        kind,
		Available:   hcostatus.ComponentCondition{Status: metav1.ConditionTrue},
		Progressing: hcostatus.ComponentCondition{Status: metav1.ConditionFalse},
		Degraded:    hcostatus.ComponentCondition{Status: metav1.ConditionFalse},
		Upgradeable: hcostatus.ComponentCondition{Status: metav1.ConditionTrue},
	}
}

func with(c hcostatus.Component, f func(*hcostatus.Component)) hcostatus.Component { f(&c); return c }

type want struct {
	status metav1.ConditionStatus
	reason string
}

func TestConditions(t *testing.T) {
	tests := []struct {
		name   string
		in     hcostatus.Assessment
		want   map[string]want
		health string
	}{
		{
			name: "all healthy",
			in:   hcostatus.Assessment{Components: []hcostatus.Component{healthy("KubeVirt"), healthy("CDI")}},
			want: map[string]want{
				"ReconcileComplete": {"True", "ReconcileCompleted"}, "Available": {"True", "ReconcileCompleted"},
				"Progressing": {"False", "ReconcileCompleted"}, "Degraded": {"False", "ReconcileCompleted"}, "Upgradeable": {"True", "ReconcileCompleted"},
			},
			health: "healthy",
		},
		{
			name: "an operand waiting for its API degrades, before a component's own degradation",
			in: hcostatus.Assessment{
				Components: []hcostatus.Component{healthy("KubeVirt"), with(healthy("CDI"), func(c *hcostatus.Component) {
					c.Degraded = hcostatus.ComponentCondition{Status: metav1.ConditionTrue, Reason: "Broken"}
				})},
				Waiting: []string{"operand ssp waits for its API"},
			},
			want: map[string]want{
				"ReconcileComplete": {"True", "ReconcileCompleted"}, "Available": {"False", "HCODegraded"},
				"Degraded": {"True", hcostatus.ReasonOperandAPINotServed},
			},
			health: "error",
		},
		{
			name:   "a failure comes before an operand waiting for its API",
			in:     hcostatus.Assessment{Components: []hcostatus.Component{healthy("KubeVirt")}, Waiting: []string{"operand ssp waits"}, Failures: []string{"boom"}},
			want:   map[string]want{"ReconcileComplete": {"False", "ReconcileFailed"}, "Degraded": {"True", "ReconcileFailed"}},
			health: "error",
		},
		{
			name: "an object of another install degrades, after a failure, before an operand waiting for its API",
			in: hcostatus.Assessment{Components: []hcostatus.Component{healthy("KubeVirt")}, Waiting: []string{"operand ssp waits"},
				OwnedElsewhere: []string{"CDI cdi-kubevirt-hyperconverged belongs to HyperConverged a/b"}},
			want:   map[string]want{"ReconcileComplete": {"False", hcostatus.ReasonOwnedElsewhere}, "Degraded": {"True", hcostatus.ReasonOwnedElsewhere}},
			health: "error",
		},
		{
			name: "a failure comes before an object of another install",
			in: hcostatus.Assessment{Components: []hcostatus.Component{healthy("KubeVirt")}, Failures: []string{"boom"},
				OwnedElsewhere: []string{"CDI cdi-kubevirt-hyperconverged belongs to HyperConverged a/b"}},
			want:   map[string]want{"ReconcileComplete": {"False", "ReconcileFailed"}, "Degraded": {"True", "ReconcileFailed"}},
			health: "error",
		},
		{
			// Upstream's getConditionsForNewCr: a CR with no condition at all.
			name: "nothing reported yet",
			in:   hcostatus.Assessment{Components: []hcostatus.Component{hcostatus.FromConditions("KubeVirt", nil, "")}},
			want: map[string]want{
				"Available": {"False", "KubeVirtConditions"}, "Progressing": {"True", "KubeVirtConditions"},
				"Degraded": {"False", "ReconcileCompleted"}, "Upgradeable": {"False", "KubeVirtConditions"},
			},
			health: "error", // upstream: not Available is an error (getSystemHealthStatus at 03da3cf)
		},
		{
			// Upstream's: not upgradeable while a component is degraded, even
			// when none says it is not upgradeable.
			name: "degraded, so not upgradeable",
			in: hcostatus.Assessment{Components: []hcostatus.Component{
				with(healthy("CDI"), func(c *hcostatus.Component) { c.Degraded.Status = metav1.ConditionTrue }),
			}},
			want:   map[string]want{"Degraded": {"True", "CDIDegraded"}, "Upgradeable": {"False", "HCODegraded"}, "Available": {"False", "HCODegraded"}},
			health: "error",
		},
		{
			// Upstream's req.Conditions: each component sets what it
			// reports against, the last one's stands.
			name: "the last failing component names the reason",
			in: hcostatus.Assessment{Components: []hcostatus.Component{
				healthy("KubeVirt"),
				with(healthy("CDI"), func(c *hcostatus.Component) { c.Degraded.Status = metav1.ConditionTrue }),
				with(healthy("SSP"), func(c *hcostatus.Component) {
					c.Degraded.Status = metav1.ConditionTrue
					c.Upgradeable = hcostatus.ComponentCondition{Status: metav1.ConditionFalse, Message: "busy"}
				}),
			}},
			want:   map[string]want{"Degraded": {"True", "SSPDegraded"}, "Upgradeable": {"False", "SSPNotUpgradeable"}, "Available": {"False", "HCODegraded"}},
			health: "error",
		},
		{
			name:   "invalid configuration",
			in:     hcostatus.Assessment{Components: []hcostatus.Component{healthy("KubeVirt")}, ProblemReason: hcostatus.ReasonInvalidConfiguration, ProblemMessage: "spec.x: bad"},
			want:   map[string]want{"ReconcileComplete": {"False", "InvalidConfiguration"}},
			health: "error",
		},
		{
			name:   "upgrading",
			in:     hcostatus.Assessment{Components: []hcostatus.Component{healthy("KubeVirt")}, Upgrading: true},
			want:   map[string]want{"Progressing": {"True", "HCOUpgrading"}, "Upgradeable": {"True", "ReconcileCompleted"}},
			health: "healthy", // upstream: while upgrading, only an incomplete reconcile is a warning
		},
		{
			name:   "tainted",
			in:     hcostatus.Assessment{Components: []hcostatus.Component{healthy("KubeVirt")}, Tainted: true},
			want:   map[string]want{"TaintedConfiguration": {"True", "UnsupportedFeatureAnnotation"}},
			health: "healthy",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.in.Generation = 7
			got := hcostatus.Conditions(tc.in)
			for typ, w := range tc.want {
				c := meta.FindStatusCondition(got, typ)
				if assert.NotNil(t, c, typ) {
					assert.Equal(t, w.status, c.Status, typ)
					assert.Equal(t, w.reason, c.Reason, typ)
					assert.Equal(t, int64(7), c.ObservedGeneration)
					assert.NotEmpty(t, c.Message, typ)
				}
			}
			if !tc.in.Tainted {
				assert.Nil(t, meta.FindStatusCondition(got, hcov1.ConditionTaintedConfiguration), "TaintedConfiguration only while tainted")
			}
			assert.Equal(t, tc.health, hcostatus.SystemHealth(got, tc.in.Upgrading))
		})
	}
}

// Upstream's messages: a component not Available, one that reports no
// Available condition, and the two in registry order, the last standing.
func TestConditionsTakeUpstreamsMessages(t *testing.T) {
	notAvailable := with(healthy("KubeVirt"), func(c *hcostatus.Component) {
		c.Available = hcostatus.ComponentCondition{Status: metav1.ConditionFalse, Reason: "Deploying", Message: "Deploying version v1.9.0"}
	})
	missing := hcostatus.FromConditions("CDI", []hcostatus.OperandCondition{{Type: "Progressing", Status: "False"}}, "")
	got := hcostatus.Conditions(hcostatus.Assessment{Components: []hcostatus.Component{notAvailable}})
	c := meta.FindStatusCondition(got, hcov1.ConditionAvailable)
	assert.Equal(t, "KubeVirtNotAvailable", c.Reason)
	assert.Equal(t, "KubeVirt is not available: Deploying version v1.9.0", c.Message)

	got = hcostatus.Conditions(hcostatus.Assessment{Components: []hcostatus.Component{notAvailable, missing}})
	c = meta.FindStatusCondition(got, hcov1.ConditionAvailable)
	assert.Equal(t, "CDINotAvailable", c.Reason)
	assert.Equal(t, `missing "Available" condition`, c.Message)
	assert.Equal(t, "Reconcile completed successfully", meta.FindStatusCondition(got, hcov1.ConditionProgressing).Message)
}

func TestMergeConditions(t *testing.T) {
	t0 := metav1.NewTime(time.Unix(1000, 0))
	t1 := metav1.NewTime(time.Unix(2000, 0))
	var conds []metav1.Condition
	first := []metav1.Condition{
		{Type: "Available", Status: "False", Reason: "A", Message: "m"},
		{Type: "TaintedConfiguration", Status: "True", Reason: "T", Message: "m"},
	}
	assert.True(t, hcostatus.MergeConditions(&conds, first, t0))
	assert.False(t, hcostatus.MergeConditions(&conds, first, t1), "the same conditions again change nothing")
	assert.Equal(t, t0, meta.FindStatusCondition(conds, "Available").LastTransitionTime)

	second := []metav1.Condition{{Type: "Available", Status: "True", Reason: "B", Message: "m"}}
	assert.True(t, hcostatus.MergeConditions(&conds, second, t1))
	assert.Equal(t, t1, meta.FindStatusCondition(conds, "Available").LastTransitionTime, "a status change moves the transition time")
	assert.Nil(t, meta.FindStatusCondition(conds, "TaintedConfiguration"), "a condition no longer wanted is removed")
}
