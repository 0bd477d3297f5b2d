package waspagent_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/internal/upstreamtest"
	"github.com/hcokit/hcokit/nodefacts"
	"github.com/hcokit/hcokit/operands/waspagent"
)

const image = "quay.io/openshift-virtualization/wasp-agent@sha256:daaf1bd032a32a99ef8e5c9d7d40d6732713b0cbfe49952d6d2ce5fa38e78294"

func readHC(t *testing.T, file string) *hcov1.HyperConverged {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "upstream-03da3cf", file))
	require.NoError(t, err)
	hc := &hcov1.HyperConverged{}
	require.NoError(t, yaml.UnmarshalStrict(raw, hc))
	return hc
}

func facts(workers int) hco.Facts {
	return hco.Facts{Environment: hco.Environment{Namespace: hcov1.DefaultNamespace, Version: "1.20.0", Images: map[string]string{waspagent.ImageKey: image}},
		Nodes: &nodefacts.Facts{Workers: workers}, Platform: hco.Platform{OpenShift: true}}
}

// upstream reads a file of testdata/upstream-03da3cf: upstream deploys
// (its first line says), and its objects in order, without what the
// server sets.
func upstream(t *testing.T, file string) []map[string]any {
	t.Helper()
	path := filepath.Join("testdata", "upstream-03da3cf", file)
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(raw), "# deployed: true\n"))
	var out []map[string]any
	for _, m := range upstreamtest.Documents(t, path) {
		out = append(out, upstreamtest.WithoutServerFields(m))
	}
	return out
}

// The objects are upstream's, object for object, for a highly available
// cluster and for an infra placement; its ClusterRole is the one the
// install ships (ClusterRole).
func TestDesiredIsUpstreams(t *testing.T) {
	for _, tc := range []struct {
		hc, want string
		workers  int
	}{{"hc-overcommit.yaml", "ha.yaml", 2}, {"hc-overcommit-placed.yaml", "placed.yaml", 1}} {
		t.Run(tc.want, func(t *testing.T) {
			objs, err := hco.DesiredObjects(waspagent.New(), readHC(t, tc.hc), facts(tc.workers))
			require.NoError(t, err)
			want := upstream(t, tc.want)
			require.Len(t, objs, len(want)-1, "all but the ClusterRole")
			for i, o := range objs {
				assert.Equal(t, want[i], upstreamtest.WithoutServerFields(upstreamtest.JSON(t, o.Object)), "%s %s", o.GetKind(), o.GetName())
			}
			shipped := upstreamtest.JSON(t, waspagent.ClusterRole())
			assert.Equal(t, want[len(want)-1]["rules"], shipped["rules"], "the shipped ClusterRole's rules")
		})
	}
}

// Upstream's rule, both ways: memory overcommitted and no opt-out, on
// OpenShift with the image; anything else wants nothing.
func TestDesiredFollowsOvercommitAndOptOut(t *testing.T) {
	hc := readHC(t, "hc-overcommit.yaml")
	objs, err := waspagent.New().Desired(hc, facts(2))
	require.NoError(t, err)
	assert.Len(t, objs, 4)

	for name, change := range map[string]func(*hcov1.HyperConverged, *hco.Facts){
		"100%": func(hc *hcov1.HyperConverged, _ *hco.Facts) {
			hc.Spec.Virtualization.HigherWorkloadDensity.MemoryOvercommitPercentage = 100
		},
		"opted out (true)": func(hc *hcov1.HyperConverged, _ *hco.Facts) {
			hc.Annotations = map[string]string{waspagent.OptOutAnnotation: "true"}
		},
		"opted out (swap, list)": func(hc *hcov1.HyperConverged, _ *hco.Facts) {
			hc.Annotations = readHC(t, "hc-opted-out.yaml").Annotations
		},
		"not OpenShift": func(_ *hcov1.HyperConverged, f *hco.Facts) { f.Platform = hco.Platform{} },
		"no image":      func(_ *hcov1.HyperConverged, f *hco.Facts) { f.Environment.Images = nil },
	} {
		hc, f := readHC(t, "hc-overcommit.yaml"), facts(2)
		change(hc, &f)
		objs, err := waspagent.New().Desired(hc, f)
		require.NoError(t, err, name)
		assert.Empty(t, objs, name)
	}
}
