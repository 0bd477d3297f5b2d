package v1

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The seeds' and upstream's defaults, applied by the CRD and by [Default].
const (
	DefaultBandwidthPerMigration             = "64Mi"
	DefaultCompletionTimeoutPerGiB           = int64(800)
	DefaultParallelMigrationsPerCluster      = uint32(5)
	DefaultParallelOutboundMigrationsPerNode = uint32(2)
	DefaultProgressTimeout                   = int64(150)
	DefaultVmiCPUAllocationRatio             = 10
	DefaultMemoryOvercommitPercentage        = 100
	DefaultBatchEvictionSize                 = 10
	DefaultBatchEvictionInterval             = time.Minute
	DefaultCADuration                        = 48 * time.Hour
	DefaultCARenewBefore                     = 24 * time.Hour
	DefaultServerDuration                    = 24 * time.Hour
	DefaultServerRenewBefore                 = 12 * time.Hour
	DefaultVmiCalcConfigName                 = "DedicatedVirtualResources"
	DefaultImagePullPolicy                   = "IfNotPresent"
)

// Default fills every unset field that has a CRD default with that default,
// exactly as the API server would on create. It never overwrites a set field.
// Use it where no API server is involved (rendering, unit tests).
func Default(hc *HyperConverged) {
	s := &hc.Spec

	v := &s.Virtualization
	DefaultLiveMigration(&v.LiveMigrationConfig)
	DefaultWorkloadUpdateStrategy(&v.WorkloadUpdateStrategy)
	if v.VirtualMachineOptions == nil {
		v.VirtualMachineOptions = &VirtualMachineOptions{}
	}
	setDefault(&v.VirtualMachineOptions.DisableFreePageReporting, false)
	setDefault(&v.VirtualMachineOptions.DisableSerialConsoleLog, false)
	if v.HigherWorkloadDensity == nil {
		v.HigherWorkloadDensity = &HigherWorkloadDensityConfiguration{}
	}
	if v.HigherWorkloadDensity.MemoryOvercommitPercentage == 0 {
		v.HigherWorkloadDensity.MemoryOvercommitPercentage = DefaultMemoryOvercommitPercentage
	}
	setDefault(&v.VmiCPUAllocationRatio, DefaultVmiCPUAllocationRatio)

	if s.Storage != nil && s.Storage.HostpathProvisioner != nil && s.Storage.HostpathProvisioner.ImagePullPolicy == "" {
		s.Storage.HostpathProvisioner.ImagePullPolicy = DefaultImagePullPolicy
	}

	setDefault(&s.WorkloadSources.EnableCommonBootImageImport, true)

	DefaultCertConfig(&s.Security.CertConfig)

	d := &s.Deployment
	if d.UninstallStrategy == "" {
		d.UninstallStrategy = UninstallStrategyBlockUninstallIfWorkloadsExist
	}
	setDefault(&d.DeployVMConsoleProxy, false)
	setDefault(&d.DeployNetworkResourcesInjector, true)
	if d.ApplicationAwareConfig == nil {
		d.ApplicationAwareConfig = &ApplicationAwareConfigurations{}
	}
	setDefault(&d.ApplicationAwareConfig.Enable, false)
	setDefault(&d.ApplicationAwareConfig.VmiCalcConfigName, DefaultVmiCalcConfigName)
	setDefault(&d.ApplicationAwareConfig.AllowApplicationAwareClusterResourceQuota, false)
}

// DefaultLiveMigration fills the unset live migration limits with their
// defaults (the seeds' values).
func DefaultLiveMigration(lm *LiveMigrationConfigurations) {
	setDefault(&lm.ParallelMigrationsPerCluster, DefaultParallelMigrationsPerCluster)
	setDefault(&lm.ParallelOutboundMigrationsPerNode, DefaultParallelOutboundMigrationsPerNode)
	setDefault(&lm.BandwidthPerMigration, DefaultBandwidthPerMigration)
	setDefault(&lm.CompletionTimeoutPerGiB, DefaultCompletionTimeoutPerGiB)
	setDefault(&lm.ProgressTimeout, DefaultProgressTimeout)
	setDefault(&lm.AllowAutoConverge, false)
	setDefault(&lm.AllowPostCopy, false)
	setDefault(&lm.AllowWorkloadDisruption, false)
}

// DefaultWorkloadUpdateStrategy fills the unset workload update settings.
func DefaultWorkloadUpdateStrategy(wus *HyperConvergedWorkloadUpdateStrategy) {
	if wus.WorkloadUpdateMethods == nil {
		wus.WorkloadUpdateMethods = []string{"LiveMigrate"}
	}
	setDefault(&wus.BatchEvictionSize, DefaultBatchEvictionSize)
	setDefault(&wus.BatchEvictionInterval, metav1.Duration{Duration: DefaultBatchEvictionInterval})
}

// DefaultCertConfig fills the unset certificate lifetimes.
func DefaultCertConfig(c *HyperConvergedCertConfig) {
	setDefault(&c.CA.Duration, metav1.Duration{Duration: DefaultCADuration})
	setDefault(&c.CA.RenewBefore, metav1.Duration{Duration: DefaultCARenewBefore})
	setDefault(&c.Server.Duration, metav1.Duration{Duration: DefaultServerDuration})
	setDefault(&c.Server.RenewBefore, metav1.Duration{Duration: DefaultServerRenewBefore})
}

func setDefault[T any](p **T, v T) {
	if *p == nil {
		*p = &v
	}
}
