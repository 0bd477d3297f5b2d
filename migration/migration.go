package migration

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/resource"
	kvv1 "kubevirt.io/api/core/v1"

	hcov1 "github.com/hcokit/hcokit/api/v1"
)

// ForKubeVirt returns KubeVirt's migration configuration. Unset fields stay
// unset, so KubeVirt's own defaults apply (the CRD fills the seeds' defaults
// on the HyperConverged first). An unparsable bandwidth is an error naming
// spec.virtualization.liveMigrationConfig.bandwidthPerMigration.
func ForKubeVirt(c hcov1.LiveMigrationConfigurations) (*kvv1.MigrationConfiguration, error) {
	out := &kvv1.MigrationConfiguration{
		ParallelMigrationsPerCluster:      copyPtr(c.ParallelMigrationsPerCluster),
		ParallelOutboundMigrationsPerNode: copyPtr(c.ParallelOutboundMigrationsPerNode),
		CompletionTimeoutPerGiB:           copyPtr(c.CompletionTimeoutPerGiB),
		ProgressTimeout:                   copyPtr(c.ProgressTimeout),
		Network:                           copyPtr(c.Network),
		AllowAutoConverge:                 copyPtr(c.AllowAutoConverge),
		AllowPostCopy:                     copyPtr(c.AllowPostCopy),
		AllowWorkloadDisruption:           copyPtr(c.AllowWorkloadDisruption),
	}
	if c.BandwidthPerMigration != nil {
		q, err := ParseBandwidth(*c.BandwidthPerMigration)
		if err != nil {
			return nil, err
		}
		out.BandwidthPerMigration = &q
	}
	return out, nil
}

// ParseBandwidth parses spec.virtualization.liveMigrationConfig.bandwidthPerMigration. The
// error names the field and shows the expected form.
func ParseBandwidth(s string) (resource.Quantity, error) {
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return resource.Quantity{}, fmt.Errorf("spec.virtualization.liveMigrationConfig.bandwidthPerMigration: %q is not a quantity; use bytes per second such as \"64Mi\"", s)
	}
	if q.Sign() < 0 {
		return resource.Quantity{}, fmt.Errorf("spec.virtualization.liveMigrationConfig.bandwidthPerMigration: %q is negative; use a positive quantity such as \"64Mi\", or \"0\" for no limit", s)
	}
	return q, nil
}

func copyPtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
