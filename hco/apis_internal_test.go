package hco

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestAPIGroupsRetryUntilSettled(t *testing.T) {
	var g apiGroups
	start := time.Unix(1000, 0)
	g.mark("ssp.kubevirt.io", start)
	change := g.due()["ssp.kubevirt.io"]
	var delays []time.Duration
	for now := start; ; {
		d, ok := g.retry("ssp.kubevirt.io", change, now)
		if !ok {
			break
		}
		delays = append(delays, d)
		now = now.Add(d)
	}
	assert.Equal(t, []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second,
		8 * time.Second, 8 * time.Second, 8 * time.Second}, delays, "asked again with a growing delay, for apiSettleTime")
	assert.Empty(t, g.due(), "unmarked once the change is older than apiSettleTime")

	g.mark("kubevirt.io", start)
	first := g.due()["kubevirt.io"]
	g.mark("kubevirt.io", start.Add(time.Second))
	g.settled("kubevirt.io", first)
	assert.Contains(t, g.due(), "kubevirt.io", "a change seen meanwhile keeps the group marked")
}

func TestSettledBy(t *testing.T) {
	kind := func(group, name string, served bool) *operandKind {
		k := &operandKind{gvk: schema.GroupVersionKind{Group: group, Version: "v1alpha1", Kind: name}}
		k.served.Store(served)
		return k
	}
	dashboard := kind("perses.dev", "PersesDashboard", true)
	datasource := kind("perses.dev", "PersesDatasource", false)
	ssp := kind("ssp.kubevirt.io", "SSP", false)
	kinds := []*operandKind{dashboard, datasource, ssp}

	assert.False(t, settledBy(kinds, "perses.dev", true),
		"one kind of two watched: the other's CRD may not be in discovery yet, and no event will say when it is")
	assert.False(t, settledBy(kinds, "perses.dev", false), "nothing changed: discovery may lag the CRD")
	datasource.served.Store(true)
	assert.True(t, settledBy(kinds, "perses.dev", true), "both watched")
	dashboard.served.Store(false)
	datasource.served.Store(false)
	assert.True(t, settledBy(kinds, "perses.dev", true), "both gone")
	assert.True(t, settledBy(kinds, "ssp.kubevirt.io", true), "a group of one kind settles on its change")
}

func TestKeepCRDName(t *testing.T) {
	in := CRDMetadata()
	in.Name, in.ResourceVersion = "ssps.ssp.kubevirt.io", "7"
	in.Annotations = map[string]string{"kubectl.kubernetes.io/last-applied-configuration": "{...}"}
	in.Labels = map[string]string{"a": "b"}
	in.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}
	out, err := keepCRDName(in)
	assert.NoError(t, err)
	got := out.(*metav1.PartialObjectMetadata)
	assert.Equal(t, "ssps.ssp.kubevirt.io", got.Name)
	assert.Equal(t, crdKind, got.GroupVersionKind())
	assert.Nil(t, got.Annotations)
	assert.Nil(t, got.Labels)
	assert.Nil(t, got.ManagedFields)
}
