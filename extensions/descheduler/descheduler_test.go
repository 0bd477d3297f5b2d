package descheduler_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/hcokit/hcokit/extensions/descheduler"
)

// Upstream's rule: misconfigured unless a profile that evicts by live
// migration is on.
func TestDeschedulerMisconfigured(t *testing.T) {
	kd := func(profiles ...any) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{}}}
		if profiles != nil {
			u.Object["spec"].(map[string]any)["profiles"] = profiles
		}
		return u
	}
	assert.True(t, descheduler.DeschedulerMisconfigured(kd()), "no profiles")
	assert.True(t, descheduler.DeschedulerMisconfigured(kd("AffinityAndTaints", "SoftTopologyAndDuplicates")), "none for KubeVirt")
	for _, p := range []string{"KubeVirtRelieveAndMigrate", "DevKubeVirtRelieveAndMigrate", "LongLifecycle"} {
		assert.False(t, descheduler.DeschedulerMisconfigured(kd("AffinityAndTaints", p)), p)
	}
}
