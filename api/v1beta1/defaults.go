package v1beta1

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
	DefaultBatchEvictionSize                 = 10
	DefaultBatchEvictionInterval             = time.Minute
	DefaultCADuration                        = 48 * time.Hour
	DefaultCARenewBefore                     = 24 * time.Hour
	DefaultServerDuration                    = 24 * time.Hour
	DefaultServerRenewBefore                 = 12 * time.Hour
)

// Default fills every unset field that has a CRD default with that default,
// exactly as the API server would on create. It never overwrites a set field.
// Use it where no API server is involved (rendering, unit tests).
func Default(hc *HyperConverged) {
	s := &hc.Spec

	fg := &s.FeatureGates
	for _, g := range []**bool{
		&fg.WithHostPassthroughCPU, &fg.DownwardMetrics, &fg.DeployKubeSecondaryDNS,
		&fg.DisableMDevConfiguration, &fg.PersistentReservation, &fg.AlignCPUs,
		&fg.DecentralizedLiveMigration, &fg.DeclarativeHotplugVolumes,
	} {
		setDefault(g, false)
	}

	lm := &s.LiveMigrationConfig
	setDefault(&lm.ParallelMigrationsPerCluster, DefaultParallelMigrationsPerCluster)
	setDefault(&lm.ParallelOutboundMigrationsPerNode, DefaultParallelOutboundMigrationsPerNode)
	setDefault(&lm.BandwidthPerMigration, DefaultBandwidthPerMigration)
	setDefault(&lm.CompletionTimeoutPerGiB, DefaultCompletionTimeoutPerGiB)
	setDefault(&lm.ProgressTimeout, DefaultProgressTimeout)
	setDefault(&lm.AllowAutoConverge, false)
	setDefault(&lm.AllowPostCopy, false)

	setDefault(&s.CertConfig.CA.Duration, metav1.Duration{Duration: DefaultCADuration})
	setDefault(&s.CertConfig.CA.RenewBefore, metav1.Duration{Duration: DefaultCARenewBefore})
	setDefault(&s.CertConfig.Server.Duration, metav1.Duration{Duration: DefaultServerDuration})
	setDefault(&s.CertConfig.Server.RenewBefore, metav1.Duration{Duration: DefaultServerRenewBefore})

	if s.ResourceRequirements == nil {
		s.ResourceRequirements = &OperandResourceRequirements{}
	}
	setDefault(&s.ResourceRequirements.VmiCPUAllocationRatio, DefaultVmiCPUAllocationRatio)

	wus := &s.WorkloadUpdateStrategy
	if wus.WorkloadUpdateMethods == nil {
		wus.WorkloadUpdateMethods = []string{"LiveMigrate"}
	}
	setDefault(&wus.BatchEvictionSize, DefaultBatchEvictionSize)
	setDefault(&wus.BatchEvictionInterval, metav1.Duration{Duration: DefaultBatchEvictionInterval})

	if s.UninstallStrategy == "" {
		s.UninstallStrategy = UninstallStrategyBlockUninstallIfWorkloadsExist
	}
	if s.HostpathProvisioner != nil && s.HostpathProvisioner.ImagePullPolicy == "" {
		s.HostpathProvisioner.ImagePullPolicy = "IfNotPresent"
	}
}

func setDefault[T any](p **T, v T) {
	if *p == nil {
		*p = &v
	}
}
