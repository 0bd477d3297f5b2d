package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcov1 "github.com/hcokit/hcokit/api/v1"
)

// The defaults are the hub's ([hcov1]); they are repeated here so that code
// written against v1beta1 keeps compiling.
const (
	DefaultBandwidthPerMigration             = hcov1.DefaultBandwidthPerMigration
	DefaultCompletionTimeoutPerGiB           = hcov1.DefaultCompletionTimeoutPerGiB
	DefaultParallelMigrationsPerCluster      = hcov1.DefaultParallelMigrationsPerCluster
	DefaultParallelOutboundMigrationsPerNode = hcov1.DefaultParallelOutboundMigrationsPerNode
	DefaultProgressTimeout                   = hcov1.DefaultProgressTimeout
	DefaultVmiCPUAllocationRatio             = hcov1.DefaultVmiCPUAllocationRatio
	DefaultBatchEvictionSize                 = hcov1.DefaultBatchEvictionSize
	DefaultBatchEvictionInterval             = hcov1.DefaultBatchEvictionInterval
	DefaultCADuration                        = hcov1.DefaultCADuration
	DefaultCARenewBefore                     = hcov1.DefaultCARenewBefore
	DefaultServerDuration                    = hcov1.DefaultServerDuration
	DefaultServerRenewBefore                 = hcov1.DefaultServerRenewBefore
)

// Default fills every unset field that has a v1beta1 CRD default with that
// default, exactly as the API server would on a v1beta1 create. It never
// overwrites a set field. Use it where no API server is involved (unit tests).
func Default(hc *HyperConverged) {
	s := &hc.Spec

	// Upstream's gate defaults: its beta gates on, its alpha gates off; the
	// deprecated ones have none.
	fg := &s.FeatureGates
	for _, g := range []**bool{
		&fg.DownwardMetrics, &fg.DeployKubeSecondaryDNS, &fg.AlignCPUs,
		&fg.ObjectGraph, &fg.IncrementalBackup, &fg.ContainerPathVolumes,
	} {
		setDefault(g, false)
	}
	setDefault(&fg.DecentralizedLiveMigration, true)
	setDefault(&fg.DeclarativeHotplugVolumes, true)

	// The shared structs have the hub's fields, so the hub's defaulting applies.
	hcov1.DefaultLiveMigration((*hcov1.LiveMigrationConfigurations)(&s.LiveMigrationConfig))
	setDefault(&s.CertConfig.CA.Duration, metav1.Duration{Duration: DefaultCADuration})
	setDefault(&s.CertConfig.CA.RenewBefore, metav1.Duration{Duration: DefaultCARenewBefore})
	setDefault(&s.CertConfig.Server.Duration, metav1.Duration{Duration: DefaultServerDuration})
	setDefault(&s.CertConfig.Server.RenewBefore, metav1.Duration{Duration: DefaultServerRenewBefore})
	hcov1.DefaultWorkloadUpdateStrategy((*hcov1.HyperConvergedWorkloadUpdateStrategy)(&s.WorkloadUpdateStrategy))

	if s.ResourceRequirements == nil {
		s.ResourceRequirements = &OperandResourceRequirements{}
	}
	setDefault(&s.ResourceRequirements.VmiCPUAllocationRatio, DefaultVmiCPUAllocationRatio)

	if s.UninstallStrategy == "" {
		s.UninstallStrategy = UninstallStrategyBlockUninstallIfWorkloadsExist
	}
	if s.HostpathProvisioner != nil && s.HostpathProvisioner.ImagePullPolicy == "" {
		s.HostpathProvisioner.ImagePullPolicy = hcov1.DefaultImagePullPolicy
	}

	if s.VirtualMachineOptions == nil {
		s.VirtualMachineOptions = &VirtualMachineOptions{}
	}
	setDefault(&s.VirtualMachineOptions.DisableFreePageReporting, false)
	setDefault(&s.VirtualMachineOptions.DisableSerialConsoleLog, false)
	if s.HigherWorkloadDensity == nil {
		s.HigherWorkloadDensity = &HigherWorkloadDensityConfiguration{}
	}
	if s.HigherWorkloadDensity.MemoryOvercommitPercentage == 0 {
		s.HigherWorkloadDensity.MemoryOvercommitPercentage = hcov1.DefaultMemoryOvercommitPercentage
	}
	setDefault(&s.EnableCommonBootImageImport, true)
	setDefault(&s.DeployVMConsoleProxy, false)
	setDefault(&s.EnableApplicationAwareQuota, false)
	if s.ApplicationAwareConfig != nil {
		setDefault(&s.ApplicationAwareConfig.VmiCalcConfigName, hcov1.DefaultVmiCalcConfigName)
		setDefault(&s.ApplicationAwareConfig.AllowApplicationAwareClusterResourceQuota, false)
	}
}

func setDefault[T any](p **T, v T) {
	if *p == nil {
		*p = &v
	}
}
