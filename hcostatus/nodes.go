package hcostatus

import (
	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/nodefacts"
)

// SetNodeFacts writes the node facts into s: infrastructureHighlyAvailable,
// controlPlaneHighlyAvailable and nodeInfo. Unknown (nil) leaves s be.
func SetNodeFacts(s *hcov1.HyperConvergedStatus, nodes *nodefacts.Facts) {
	if nodes == nil {
		return
	}
	f := *nodes
	ha, cpHA := f.InfrastructureHighlyAvailable(), f.ControlPlaneHighlyAvailable()
	s.InfrastructureHighlyAvailable, s.ControlPlaneHighlyAvailable = &ha, &cpHA
	s.NodeInfo = hcov1.NodeInfoStatus{WorkloadsArchitectures: f.WorkloadArchitectures, ControlPlaneArchitectures: f.ControlPlaneArchitectures,
		DefaultWorkloadArchitecture: f.DefaultArchitecture}
}
