package dashboard_test

import (
	"os"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/internal/upstreamtest"
	"github.com/hcokit/hcokit/operands/dashboard"
)

// upstreamDir is upstream's output at 03da3cf and its input, in the
// layout of its CI image (README.md there).
const upstreamDir = "testdata/upstream-03da3cf"

var configMap = corev1.SchemeGroupVersion.WithKind("ConfigMap")

// wire is obj as JSON carries it, without its creation time.
func wire(t *testing.T, obj any) map[string]any {
	t.Helper()
	return upstreamtest.WithoutCreationTime(upstreamtest.JSON(t, obj))
}

// On OpenShift the module makes, from upstream's test dashboard read as
// upstream reads its dashboard/ directory, exactly the ConfigMap upstream's
// handler builds from it at 03da3cf (its name, namespace, data, and its
// labels with upstream's), and names its namespace for the cache.
func TestDesiredIsUpstreams(t *testing.T) {
	cms, err := dashboard.Load(os.DirFS(upstreamDir), dashboard.Dir)
	require.NoError(t, err)
	require.Len(t, cms, 1)
	op := dashboard.New(cms...)
	objs, err := op.Desired(upstreamtest.HyperConverged(), upstreamtest.OpenShift())
	require.NoError(t, err)
	require.Len(t, objs, 1)

	raw, err := os.ReadFile(upstreamDir + "/dashboards.yaml")
	require.NoError(t, err)
	var want map[string]any
	require.NoError(t, yaml.Unmarshal(raw, &want))
	assert.Equal(t, want, wire(t, objs[0]))
	assert.Equal(t, configMap, objs[0].GetObjectKind().GroupVersionKind(), "the kind Kinds names")
	assert.Equal(t, configMap, op.Kinds()[0].GetObjectKind().GroupVersionKind())

	assert.Equal(t, map[schema.GroupVersionKind][]string{configMap: {dashboard.Namespace}}, op.OtherNamespaces(true))
	assert.Nil(t, op.OtherNamespaces(false), "plain Kubernetes: no namespace to cache")
	assert.Nil(t, dashboard.New().OtherNamespaces(true), "no dashboards: no namespace to cache")
}

// Off OpenShift, or without dashboards, the module wants nothing.
func TestDesiredNothing(t *testing.T) {
	assert.True(t, dashboard.New().OpenShiftOnly(), "left out off OpenShift")
	cm := corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: dashboard.Namespace}}
	objs, err := dashboard.New(cm).Desired(upstreamtest.HyperConverged(), hco.OfflineFacts(hco.Environment{Namespace: hcov1.DefaultNamespace}))
	assert.NoError(t, err)
	assert.Nil(t, objs, "plain Kubernetes")
	objs, err = dashboard.New().Desired(upstreamtest.HyperConverged(), upstreamtest.OpenShift())
	assert.NoError(t, err)
	assert.Nil(t, objs, "no dashboards")
}

// Upstream's labels are set over the dashboard's own (also when it has
// none, which upstream's handler cannot take); its annotations and content
// are kept; what the operand was given is its own copy, and Desired's
// objects are new ones.
func TestBuild(t *testing.T) {
	given := corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: dashboard.Namespace, Annotations: map[string]string{"note": "kept"},
			Labels: map[string]string{"console.openshift.io/dashboard": "true", hco.LabelComponent: "mine"}, ResourceVersion: "7"},
		Data:       map[string]string{"d.json": "{}"},
		BinaryData: map[string][]byte{"logo": {1, 2}},
	}
	op := dashboard.New(given, corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "bare", Namespace: dashboard.Namespace}})
	given.Data["d.json"] = "changed after New"
	objs, err := op.Desired(upstreamtest.HyperConverged(), upstreamtest.OpenShift())
	require.NoError(t, err)
	got := objs[0].(*corev1.ConfigMap)
	assert.Equal(t, map[string]string{
		"console.openshift.io/dashboard": "true",
		hco.LabelApp:                     hcov1.HyperConvergedName, hco.LabelManagedBy: hco.ManagedByValue, hco.LabelPartOf: hco.PartOfValue,
		hco.LabelComponent: hco.ComponentCompute, hco.LabelVersion: "1.20.0",
	}, got.Labels)
	assert.Equal(t, map[string]string{"note": "kept"}, got.Annotations)
	assert.Equal(t, map[string]string{"d.json": "{}"}, got.Data, "New copies what it is given")
	assert.Equal(t, []byte{1, 2}, got.BinaryData["logo"])
	assert.Empty(t, got.ResourceVersion)
	assert.Equal(t, hco.ManagedByValue, objs[1].GetLabels()[hco.LabelManagedBy], "a dashboard without labels gets upstream's")
	got.Data["d.json"] = "changed in the output"
	again, err := op.Desired(upstreamtest.HyperConverged(), upstreamtest.OpenShift())
	require.NoError(t, err)
	assert.Equal(t, "{}", again[0].(*corev1.ConfigMap).Data["d.json"], "Desired returns new objects")
	assert.Equal(t, []string{"openshift-config-managed/d", "openshift-config-managed/bare"}, op.Names())
}

const valid = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: openshift-config-managed\ndata:\n  a.json: '{}'\n"

// Load reads upstream's layout: every .yaml file, subdirectories too, in
// lexical order; a missing directory holds none.
func TestLoad(t *testing.T) {
	fsys := fstest.MapFS{
		"dashboard/b.yaml":     {Data: []byte("kind: ConfigMap\nmetadata:\n  name: b\n  namespace: openshift-config-managed\n")},
		"dashboard/sub/a.yaml": {Data: []byte(valid)},
		"dashboard/a.json":     {Data: []byte("{}")},
	}
	cms, err := dashboard.Load(fsys, "dashboard")
	require.NoError(t, err)
	assert.Equal(t, []string{"openshift-config-managed/b", "openshift-config-managed/a"}, dashboard.New(cms...).Names())
	assert.Equal(t, "{}", cms[1].Data["a.json"])

	cms, err = dashboard.Load(fsys, "dashboards")
	assert.NoError(t, err)
	assert.Empty(t, cms, "upstream's stock image's dashboards/ is not dashboard/")
}

// A file Load cannot take is an error that names it.
func TestLoadRefusesNamingTheFile(t *testing.T) {
	for name, tc := range map[string]struct{ content, want string }{
		"not YAML":          {"data: [unclosed\n", "dashboard/bad.yaml: "},
		"another kind":      {"apiVersion: console.openshift.io/v1\nkind: ConsoleQuickStart\nmetadata:\n  name: a\n", `dashboard/bad.yaml: apiVersion "console.openshift.io/v1", kind "ConsoleQuickStart": want a ConfigMap of v1`},
		"no name":           {"kind: ConfigMap\nmetadata:\n  namespace: openshift-config-managed\n", "dashboard/bad.yaml: metadata.name is empty"},
		"no namespace":      {"kind: ConfigMap\nmetadata:\n  name: b\n", `dashboard/bad.yaml: metadata.namespace "": a dashboard goes in openshift-config-managed`},
		"another namespace": {"kind: ConfigMap\nmetadata:\n  name: b\n  namespace: default\n", `dashboard/bad.yaml: metadata.namespace "default": a dashboard goes in openshift-config-managed`},
		"two objects":       {valid + "---\n" + valid, "dashboard/bad.yaml: 2 YAML documents; want one object per file"},
		"same name":         {"kind: ConfigMap\nmetadata:\n  name: a\n  namespace: openshift-config-managed\ndata:\n  other: x\n", `dashboard/bad.yaml: ConfigMap "a" is also in dashboard/a.yaml, with another content`},
		"a wrong type":      {"kind: ConfigMap\nmetadata:\n  name: b\n  namespace: openshift-config-managed\ndata:\n  a: [1]\n", "dashboard/bad.yaml: not a ConfigMap"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := dashboard.Load(fstest.MapFS{"dashboard/a.yaml": {Data: []byte(valid)}, "dashboard/bad.yaml": {Data: []byte(tc.content)}}, "dashboard")
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestStatus(t *testing.T) {
	op := dashboard.New()
	s := op.Status([]client.Object{&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}}})
	assert.Equal(t, metav1.ConditionTrue, s.Available.Status)
	assert.Equal(t, dashboard.StatusKind, s.Kind)
	assert.Equal(t, metav1.ConditionUnknown, op.Status(nil).Available.Status)
}
