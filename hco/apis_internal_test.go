package hco

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

func TestKeepCRDName(t *testing.T) {
	in := crdMetadata()
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
