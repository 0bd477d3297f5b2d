package hcostatus_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/utils/ptr"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hcostatus"
	"github.com/hcokit/hcokit/nodefacts"
)

func TestSetNodeFacts(t *testing.T) {
	var st hcov1.HyperConvergedStatus
	hcostatus.SetNodeFacts(&st, nil)
	assert.Nil(t, st.InfrastructureHighlyAvailable, "unknown: left be")

	hcostatus.SetNodeFacts(&st, &nodefacts.Facts{Workers: 2, ControlPlane: 2, Arbiters: 0,
		WorkloadArchitectures: []string{"amd64", "arm64"}, ControlPlaneArchitectures: []string{"amd64"}, DefaultArchitecture: "amd64"})
	assert.Equal(t, ptr.To(true), st.InfrastructureHighlyAvailable)
	assert.Equal(t, ptr.To(false), st.ControlPlaneHighlyAvailable, "two control-plane nodes and no arbiter")
	assert.Equal(t, hcov1.NodeInfoStatus{WorkloadsArchitectures: []string{"amd64", "arm64"}, ControlPlaneArchitectures: []string{"amd64"},
		DefaultWorkloadArchitecture: "amd64"}, st.NodeInfo)
}
