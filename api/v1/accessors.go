package v1

// InfraPlacement returns spec.deployment.nodePlacements.infra, nil when unset.
func (s *HyperConvergedSpec) InfraPlacement() *NodePlacement {
	if s.Deployment.NodePlacements == nil {
		return nil
	}
	return s.Deployment.NodePlacements.Infra
}

// WorkloadPlacement returns spec.deployment.nodePlacements.workload, nil when unset.
func (s *HyperConvergedSpec) WorkloadPlacement() *NodePlacement {
	if s.Deployment.NodePlacements == nil {
		return nil
	}
	return s.Deployment.NodePlacements.Workload
}

// StorageOrEmpty returns spec.storage, or an empty StorageConfig when unset,
// for reading.
func (s *HyperConvergedSpec) StorageOrEmpty() StorageConfig {
	if s.Storage == nil {
		return StorageConfig{}
	}
	return *s.Storage
}
