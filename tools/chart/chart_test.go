package chart_test

import (
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/common/util"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"helm.sh/helm/v4/pkg/engine"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/hcokit/hcokit/tools/install"
)

const root = "../.."

var configRoot = filepath.Join(root, "config")

// helmTemplate renders the chart as helm template --include-crds does, for
// a release in namespace ns with values.
func helmTemplate(t *testing.T, ns string, values map[string]any) ([]*unstructured.Unstructured, error) {
	t.Helper()
	ch, err := loader.Load(filepath.Join(root, install.ChartDir))
	require.NoError(t, err)
	vals, err := util.ToRenderValues(ch, values, common.ReleaseOptions{Name: "hcokit", Namespace: ns, IsInstall: true, Revision: 1}, common.DefaultCapabilities)
	require.NoError(t, err)
	out, err := engine.Render(ch, vals)
	if err != nil {
		return nil, err
	}
	var files []string
	for name := range out {
		files = append(files, name)
	}
	sort.Strings(files)
	var objs []*unstructured.Unstructured
	for _, name := range files {
		objs = append(objs, decode(t, name, out[name])...)
	}
	// The CRDs of templates/ carry Helm's keep policy (helm uninstall
	// leaves them, as it leaves crds/); kustomize's do not: compared
	// without it.
	for _, u := range objs {
		if u.GetKind() != "CustomResourceDefinition" {
			continue
		}
		a := u.GetAnnotations()
		assert.Equal(t, "keep", a[install.KeepAnnotation], "CRD %s in templates/ without helm.sh/resource-policy: keep", u.GetName())
		delete(a, install.KeepAnnotation)
		if len(a) == 0 {
			a = nil
		}
		u.SetAnnotations(a)
	}
	for _, crd := range ch.CRDObjects() {
		objs = append(objs, decode(t, crd.Filename, string(crd.File.Data))...)
	}
	return objs, nil
}

// decode reads a YAML stream as kustomize's output reads (through JSON:
// numbers are int64).
func decode(t *testing.T, name, text string) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	for _, doc := range strings.Split("\n"+text, "\n---\n") {
		raw, err := yaml.YAMLToJSON([]byte(doc))
		require.NoError(t, err, name)
		if s := strings.TrimSpace(string(raw)); s == "null" || s == "{}" {
			continue
		}
		u := &unstructured.Unstructured{}
		require.NoError(t, u.UnmarshalJSON(raw), name)
		out = append(out, u)
	}
	return out
}

func byKey(objs []*unstructured.Unstructured) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, u := range objs {
		out[u.GetKind()+"/"+u.GetNamespace()+"/"+u.GetName()] = u.Object
	}
	return out
}

// kustomize renders config/dir in namespace ns (the default's when empty),
// without the Namespace (Helm's --create-namespace makes it).
func kustomize(t *testing.T, dir, ns string) []*unstructured.Unstructured {
	t.Helper()
	objs, err := install.Render(configRoot, dir, install.Edit{Namespace: ns})
	require.NoError(t, err)
	var out []*unstructured.Unstructured
	for _, u := range objs {
		if u.GetKind() != "Namespace" {
			out = append(out, u)
		}
	}
	return out
}

func assertSame(t *testing.T, want, got []*unstructured.Unstructured, what string) {
	t.Helper()
	w, g := byKey(want), byKey(got)
	assert.Len(t, got, len(want), "%s: as many objects", what)
	for key, obj := range w {
		if assert.Contains(t, g, key, "%s: helm template lacks it", what) {
			assert.Equal(t, obj, g[key], "%s: %s differs", what, key)
		}
	}
	for key := range g {
		assert.Contains(t, w, key, "%s: kustomize builds no such object", what)
	}
}

// For every choice of platform and certificates, helm template gives the
// objects of its kustomization, in another namespace too (but OpenShift's,
// whose overlay keeps the default namespace: docs/install.md).
func TestChartRendersTheKustomizations(t *testing.T) {
	for _, v := range install.ChartVariants {
		namespaces := []string{"", "virt-elsewhere"}
		if v.FixedNamespace {
			namespaces = namespaces[:1]
		}
		for _, ns := range namespaces {
			releaseNS := ns
			if releaseNS == "" {
				releaseNS = "kubevirt-hyperconverged"
			}
			got, err := helmTemplate(t, releaseNS, map[string]any{"platform": v.Platform, "certificates": v.Certificates})
			require.NoError(t, err)
			assertSame(t, kustomize(t, v.Dir, ns), got, v.Platform+"/"+v.Certificates+" in "+releaseNS)
		}
	}
}

// An operator switched off takes its description's objects out, and
// nothing else; its CRDs stay (crds/: Helm installs them and never deletes
// them).
func TestChartOperatorSwitches(t *testing.T) {
	operators, err := install.ChartOperators(configRoot)
	require.NoError(t, err)
	require.NotEmpty(t, operators)
	all := kustomize(t, "default", "")
	for _, op := range operators {
		if op.Name == "ssp" {
			continue // OpenShift's only
		}
		mine := map[string]bool{}
		for _, u := range kustomize(t, op.Dir, "") {
			if u.GetKind() != "CustomResourceDefinition" {
				mine[u.GetKind()+"/"+u.GetNamespace()+"/"+u.GetName()] = true
			}
		}
		require.NotEmpty(t, mine, op.Name)
		var want []*unstructured.Unstructured
		for _, u := range all {
			if !mine[u.GetKind()+"/"+u.GetNamespace()+"/"+u.GetName()] {
				want = append(want, u)
			}
		}
		got, err := helmTemplate(t, "kubevirt-hyperconverged", map[string]any{"operators": map[string]any{op.Name: false}})
		require.NoError(t, err)
		assertSame(t, want, got, "without "+op.Name)
	}
}

// A choice the chart does not offer fails, naming the value and what to
// set instead.
func TestChartRefusesWrongChoices(t *testing.T) {
	for _, c := range []struct {
		values map[string]any
		want   string
	}{
		{map[string]any{"platform": "aws"}, `platform "aws": want kubernetes or openshift`},
		{map[string]any{"certificates": "vault"}, `certificates "vault": want self-managed or cert-manager`},
		{map[string]any{"platform": "openshift", "certificates": "cert-manager"}, "only with platform kubernetes"},
	} {
		_, err := helmTemplate(t, "kubevirt-hyperconverged", c.values)
		if assert.Error(t, err, "%v", c.values) {
			assert.Contains(t, err.Error(), c.want)
		}
	}
}

// The committed chart is what tools/install/cmd/chart makes of config/.
func TestCommittedChartUpToDate(t *testing.T) {
	files, err := install.Chart(configRoot, chartVersion(t))
	require.NoError(t, err)
	stale, err := install.StaleFiles(root, install.ChartDir, files)
	require.NoError(t, err)
	assert.Empty(t, stale, "run make chart and commit the result")
}

func chartVersion(t *testing.T) string {
	t.Helper()
	ch, err := loader.Load(filepath.Join(root, install.ChartDir))
	require.NoError(t, err)
	return ch.Metadata.Version
}

// With registry set, every image of the stack (the containers', and those
// the operators are told of in their environment) comes from it, its path
// and digest kept; nothing else changes.
func TestChartRegistry(t *testing.T) {
	const mirror = "mirror.example.com:5000"
	images := 0
	var mirrored func(v any) any
	mirrored = func(v any) any {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				v[k] = mirrored(e)
			}
		case []any:
			for i, e := range v {
				v[i] = mirrored(e)
			}
		case string:
			if install.ImageRef.MatchString(v) {
				images++
				_, path, _ := strings.Cut(v, "/")
				return mirror + "/" + path
			}
		}
		return v
	}
	want := kustomize(t, "default", "")
	for _, u := range want {
		u.Object = mirrored(u.Object).(map[string]any)
	}
	assert.Greater(t, images, 50, "the stack's images")
	got, err := helmTemplate(t, "kubevirt-hyperconverged", map[string]any{"registry": mirror + "/"})
	require.NoError(t, err)
	assertSame(t, want, got, "registry "+mirror)
}
