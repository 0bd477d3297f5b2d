package migration_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"
	kvv1 "kubevirt.io/api/core/v1"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/migration"
)

func ptr[T any](v T) *T { return &v }

func TestForKubeVirt(t *testing.T) {
	bw := resource.MustParse("64Mi")
	tests := []struct {
		name string
		in   hcov1.LiveMigrationConfigurations
		want *kvv1.MigrationConfiguration
	}{
		{
			// The seeds' example, which is also the default.
			name: "seed example",
			in: hcov1.LiveMigrationConfigurations{
				BandwidthPerMigration: ptr("64Mi"), CompletionTimeoutPerGiB: ptr(int64(800)),
				ParallelMigrationsPerCluster: ptr(uint32(5)), ParallelOutboundMigrationsPerNode: ptr(uint32(2)),
				ProgressTimeout: ptr(int64(150)),
			},
			want: &kvv1.MigrationConfiguration{
				BandwidthPerMigration: &bw, CompletionTimeoutPerGiB: ptr(int64(800)),
				ParallelMigrationsPerCluster: ptr(uint32(5)), ParallelOutboundMigrationsPerNode: ptr(uint32(2)),
				ProgressTimeout: ptr(int64(150)),
			},
		},
		{name: "unset stays unset", in: hcov1.LiveMigrationConfigurations{}, want: &kvv1.MigrationConfiguration{}},
		{
			name: "network and switches",
			in:   hcov1.LiveMigrationConfigurations{Network: ptr("migration-net"), AllowAutoConverge: ptr(true), AllowPostCopy: ptr(false), AllowWorkloadDisruption: ptr(true)},
			want: &kvv1.MigrationConfiguration{Network: ptr("migration-net"), AllowAutoConverge: ptr(true), AllowPostCopy: ptr(false), AllowWorkloadDisruption: ptr(true)},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := migration.ForKubeVirt(tc.in)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestBadBandwidthNamesTheField(t *testing.T) {
	for _, bad := range []string{"64 MiB", "fast", "-1Mi"} {
		_, err := migration.ForKubeVirt(hcov1.LiveMigrationConfigurations{BandwidthPerMigration: ptr(bad)})
		require.Error(t, err, bad)
		assert.Contains(t, err.Error(), "spec.virtualization.liveMigrationConfig.bandwidthPerMigration")
		assert.Contains(t, err.Error(), "64Mi")
	}
}

func TestOutputDoesNotAliasInput(t *testing.T) {
	in := hcov1.LiveMigrationConfigurations{ProgressTimeout: ptr(int64(150))}
	got, err := migration.ForKubeVirt(in)
	require.NoError(t, err)
	*got.ProgressTimeout = 1
	assert.Equal(t, int64(150), *in.ProgressTimeout)
}

func FuzzForKubeVirt(f *testing.F) {
	f.Add([]byte(`{"bandwidthPerMigration":"64Mi","completionTimeoutPerGiB":800,"progressTimeout":150}`))
	f.Add([]byte(`{"bandwidthPerMigration":"1e3","network":"n"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var in hcov1.LiveMigrationConfigurations
		if json.Unmarshal(data, &in) != nil {
			return
		}
		a, errA := migration.ForKubeVirt(in)
		b, errB := migration.ForKubeVirt(in)
		if (errA == nil) != (errB == nil) || !reflect.DeepEqual(a, b) {
			t.Fatal("ForKubeVirt is not deterministic")
		}
	})
}

func BenchmarkForKubeVirt(b *testing.B) {
	in := hcov1.LiveMigrationConfigurations{BandwidthPerMigration: ptr("64Mi"), CompletionTimeoutPerGiB: ptr(int64(800)), ProgressTimeout: ptr(int64(150))}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := migration.ForKubeVirt(in); err != nil {
			b.Fatal(err)
		}
	}
}
