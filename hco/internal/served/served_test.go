package served

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestGroupsRetryUntilSettled(t *testing.T) {
	start := time.Unix(1000, 0)
	now := start
	ks := &Kinds{All: []*Kind{{GVK: schema.GroupVersionKind{Group: "ssp.kubevirt.io", Version: "v1beta3", Kind: "SSP"}},
		{GVK: schema.GroupVersionKind{Group: "kubevirt.io", Version: "v1", Kind: "KubeVirt"}}}, Now: func() time.Time { return now }}
	assert.True(t, ks.CRDChanged("ssps.ssp.kubevirt.io", false), "a waiting kind's group")
	assert.False(t, ks.CRDChanged("ssps.ssp.kubevirt.io", true), "a CRD gone where no kind is served")
	assert.False(t, ks.CRDChanged("widgets.example.com", false), "not an operand group")
	change := ks.pending["ssp.kubevirt.io"]
	var delays []time.Duration
	for {
		d, ok := ks.retry("ssp.kubevirt.io", change, now)
		if !ok {
			break
		}
		delays = append(delays, d)
		now = now.Add(d)
	}
	assert.Equal(t, []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second,
		8 * time.Second, 8 * time.Second, 8 * time.Second}, delays, "asked again with a growing delay, for SettleTime")
	assert.Empty(t, ks.pending, "unmarked once the change is older than SettleTime")

	ks.CRDChanged("kubevirts.kubevirt.io", false)
	first := ks.pending["kubevirt.io"]
	now = now.Add(time.Second)
	ks.CRDChanged("kubevirts.kubevirt.io", false)
	ks.settled("kubevirt.io", first)
	assert.Contains(t, ks.pending, "kubevirt.io", "a change seen meanwhile keeps the group marked")
}

func TestSettledBy(t *testing.T) {
	kind := func(group, name string, served bool) *Kind {
		k := &Kind{GVK: schema.GroupVersionKind{Group: group, Version: "v1alpha1", Kind: name}}
		k.Served.Store(served)
		return k
	}
	dashboard := kind("perses.dev", "PersesDashboard", true)
	datasource := kind("perses.dev", "PersesDatasource", false)
	ssp := kind("ssp.kubevirt.io", "SSP", false)
	kinds := []*Kind{dashboard, datasource, ssp}

	assert.False(t, settledBy(kinds, "perses.dev", true),
		"one kind of two watched: the other's CRD may not be in discovery yet, and no event will say when it is")
	assert.False(t, settledBy(kinds, "perses.dev", false), "nothing changed: discovery may lag the CRD")
	datasource.Served.Store(true)
	assert.True(t, settledBy(kinds, "perses.dev", true), "both watched")
	dashboard.Served.Store(false)
	datasource.Served.Store(false)
	assert.True(t, settledBy(kinds, "perses.dev", true), "both gone")
	assert.True(t, settledBy(kinds, "ssp.kubevirt.io", true), "a group of one kind settles on its change")
}

func TestTakeTouched(t *testing.T) {
	cm := &Kind{GVK: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, Operands: []string{"a", "b"}}
	svc := &Kind{GVK: schema.GroupVersionKind{Version: "v1", Kind: "Service"}, Operands: []string{"c"}}
	ks := &Kinds{All: []*Kind{cm, svc}}
	assert.Nil(t, ks.TakeTouched())
	cm.Touched.Store(true)
	assert.Equal(t, map[string]bool{"a": true, "b": true}, ks.TakeTouched())
	assert.Nil(t, ks.TakeTouched(), "taken")
}

func TestKeepCRDName(t *testing.T) {
	in := &metav1.PartialObjectMetadata{}
	in.SetGroupVersionKind(schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"})
	in.Name, in.ResourceVersion = "ssps.ssp.kubevirt.io", "7"
	in.Annotations = map[string]string{"kubectl.kubernetes.io/last-applied-configuration": "{...}"}
	in.Labels = map[string]string{"a": "b"}
	in.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}
	out, err := KeepCRDName(in)
	assert.NoError(t, err)
	got := out.(*metav1.PartialObjectMetadata)
	assert.Equal(t, "ssps.ssp.kubevirt.io", got.Name)
	assert.Equal(t, in.GroupVersionKind(), got.GroupVersionKind())
	assert.Nil(t, got.Annotations)
	assert.Nil(t, got.Labels)
	assert.Nil(t, got.ManagedFields)
}
