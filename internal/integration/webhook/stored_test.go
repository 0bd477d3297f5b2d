package webhook

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/hcokit/hcokit/internal/testenv"
)

// gateIndex is a list index in a path.
var gateIndex = regexp.MustCompile(`\[\d+\]`)

// leaves flattens v into its leaf values by path (maps by key, lists by
// index; an empty map or list is a leaf).
func leaves(prefix string, v any, out map[string]any) {
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 {
			out[prefix] = x
		}
		for k, e := range x {
			leaves(prefix+"."+k, e, out)
		}
	case []any:
		if len(x) == 0 {
			out[prefix] = x
		}
		for i, e := range x {
			leaves(fmt.Sprintf("%s[%d]", prefix, i), e, out)
		}
	default:
		out[prefix] = v
	}
}

// specDifferences lists the paths where two specs differ.
func specDifferences(got, want map[string]any) []string {
	g, w := map[string]any{}, map[string]any{}
	leaves("spec", got, g)
	leaves("spec", want, w)
	var out []string
	for p, v := range g {
		if wv, ok := w[p]; !ok || !reflect.DeepEqual(fmt.Sprint(v), fmt.Sprint(wv)) {
			out = append(out, p)
		}
	}
	for p := range w {
		if _, ok := g[p]; !ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// storedDifference is a stored field where hcokit differs from upstream's
// stored.yaml: what hcokit stores ("" when it stores nothing there), and why.
type storedDifference struct{ hcokit, why string }

// storedDifferences are the stored fields that differ from upstream's, by
// path (a featureGates path stands for every index).
var storedDifferences = map[string]storedDifference{
	"spec.virtualization.liveMigrationConfig.completionTimeoutPerGiB":           {"800", "seed 003 (upstream's CRD: 20)"},
	"spec.virtualization.liveMigrationConfig.parallelOutboundMigrationsPerNode": {"2", "seed 003 (upstream's CRD: 1)"},
	"spec.virtualization.liveMigrationConfig.bandwidthPerMigration":             {"64Mi", "seed 003 (upstream's CRD: unset)"},
	"spec.virtualization.evictionStrategy": {"", "environment-dependent: upstream's capture had a highly available infrastructure and its operator's first update; " +
		"this cluster has no nodes, and the operator's writes bypass the webhook"},
	"spec.deployment.applicationAwareConfig.allowApplicationAwareClusterResourceQuota": {"false", "both CRDs default it to false; hcokit's API server stores that default, " +
		"upstream's capture shows it unset: the same value"},
}

// notStorable are the cases the API server refuses for both: upstream's
// capture applied its CRD's defaults, not its validation.
var notStorable = map[string]string{
	"workloadsources": "a golden image without spec.schedule: both CRDs require it (upstream's v1 CRD at 03da3cf: managedDataSource, schedule, template)",
}

// For every HyperConverged of render/testdata/upstream-03da3cf, what the
// API server stores through hcokit's webhooks and CRD is what upstream's
// stored (stored.yaml, captured from upstream's code at 03da3cf), but for
// storedDifferences.
func TestStoredAsUpstreamForEveryUpstreamCase(t *testing.T) {
	env.Require(t)
	root, err := testenv.RepoRoot()
	require.NoError(t, err)
	dir := filepath.Join(root, "render", "testdata", "upstream-03da3cf")
	cases, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, c := range cases {
		if !c.IsDir() {
			continue
		}
		t.Run(c.Name(), func(t *testing.T) {
			ctx := context.Background()
			read := func(name string) *unstructured.Unstructured {
				raw, err := os.ReadFile(filepath.Join(dir, c.Name(), name))
				require.NoError(t, err)
				u := &unstructured.Unstructured{}
				require.NoError(t, yaml.Unmarshal(raw, &u.Object))
				return u
			}
			in, want := read("input.yaml"), read("stored.yaml")
			in.SetNamespace(ns)
			if why, ok := notStorable[c.Name()]; ok {
				err := k.Create(ctx, in)
				require.Error(t, err, why)
				assert.Contains(t, err.Error(), "schedule: Required value", why)
				return
			}
			require.NoError(t, k.Create(ctx, in))
			t.Cleanup(func() { deleteHC(t, newHC(nil)) })
			got := &unstructured.Unstructured{}
			got.SetGroupVersionKind(want.GroupVersionKind())
			require.NoError(t, k.Get(ctx, client.ObjectKeyFromObject(in), got))
			gotSpec, _, _ := unstructured.NestedMap(got.Object, "spec")
			wantSpec, _, _ := unstructured.NestedMap(want.Object, "spec")
			g, w := map[string]any{}, map[string]any{}
			leaves("spec", gotSpec, g)
			leaves("spec", wantSpec, w)
			for _, p := range specDifferences(gotSpec, wantSpec) {
				d, listed := storedDifferences[gateIndex.ReplaceAllString(p, "")]
				stored, set := g[p]
				switch {
				case !listed:
					t.Errorf("%s: hcokit stores %v, upstream %v; fix it, or list it in storedDifferences with its reason", p, g[p], w[p])
				case !set && d.hcokit != "", set && fmt.Sprint(stored) != d.hcokit:
					t.Errorf("%s: hcokit stores %v, storedDifferences says %q (%s)", p, stored, d.hcokit, d.why)
				}
			}
		})
	}
}
