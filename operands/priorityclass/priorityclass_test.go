package priorityclass_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hcostatus"
	"github.com/hcokit/hcokit/operands/priorityclass"
)

var env = hco.Environment{Namespace: hcov1.DefaultNamespace, Version: "1.0.0"}

func defaultHC() *hcov1.HyperConverged {
	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: hcov1.DefaultNamespace}}
	hcov1.Default(hc)
	return hc
}

// TestDesiredIsUpstreams holds upstream's values, from
// controllers/handlers/kubevirt.go NewKubeVirtPriorityClass at upstream HCO
// commit 03da3cf.
func TestDesiredIsUpstreams(t *testing.T) {
	objs, err := priorityclass.New().Desired(defaultHC(), hco.OfflineFacts(env))
	require.NoError(t, err)
	require.Len(t, objs, 1)
	pc, ok := objs[0].(*schedulingv1.PriorityClass)
	require.True(t, ok, "%T", objs[0])
	assert.Equal(t, "kubevirt-cluster-critical", pc.Name)
	assert.Empty(t, pc.Namespace)
	assert.Equal(t, int32(1000000000), pc.Value)
	assert.False(t, pc.GlobalDefault)
	assert.Equal(t, "This priority class should be used for KubeVirt core components only.", pc.Description)
	assert.Nil(t, pc.PreemptionPolicy, "upstream leaves the API server's default")
	assert.Equal(t, "compute", pc.Labels[hco.LabelComponent])
	assert.Equal(t, hco.ManagedByValue, pc.Labels[hco.LabelManagedBy])
	assert.Equal(t, hcov1.HyperConvergedName, pc.Labels[hco.LabelApp])
}

func TestStatus(t *testing.T) {
	pc := priorityclass.Build(defaultHC(), hco.OfflineFacts(env))
	for _, tc := range []struct {
		name      string
		observed  []client.Object
		available metav1.ConditionStatus
		reason    string
	}{
		{name: "nothing observed", observed: nil, available: metav1.ConditionUnknown, reason: hcostatus.ReasonNotFound},
		{name: "a nil object", observed: []client.Object{(*schedulingv1.PriorityClass)(nil)}, available: metav1.ConditionUnknown, reason: hcostatus.ReasonNotFound},
		{name: "another PriorityClass", observed: []client.Object{&schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "other"}}}, available: metav1.ConditionUnknown, reason: hcostatus.ReasonNotFound},
		{name: "exists", observed: []client.Object{pc}, available: metav1.ConditionTrue},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := priorityclass.New().Status(tc.observed)
			assert.Equal(t, "PriorityClass", s.Kind)
			assert.Equal(t, tc.available, s.Available.Status)
			assert.Equal(t, tc.reason, s.Available.Reason)
			if tc.available == metav1.ConditionTrue {
				assert.Equal(t, metav1.ConditionFalse, s.Progressing.Status)
				assert.Equal(t, metav1.ConditionFalse, s.Degraded.Status)
				assert.Equal(t, metav1.ConditionTrue, s.Upgradeable.Status)
			}
		})
	}
}
