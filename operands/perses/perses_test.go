package perses_test

import (
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/internal/upstreamtest"
	"github.com/hcokit/hcokit/operands/perses"
)

func hc() *hcov1.HyperConverged {
	return &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: hcov1.DefaultNamespace}}
}

func facts(openShift bool) hco.Facts {
	return hco.Facts{Environment: hco.Environment{Namespace: hcov1.DefaultNamespace, Version: "1.20.0"}, Platform: hco.Platform{OpenShift: openShift}}
}

// upstream reads testdata/upstream-03da3cf/objects.yaml: the objects
// upstream's code builds, in its order (dashboards by name, then the
// datasource).
func upstream(t *testing.T) []map[string]any {
	t.Helper()
	return upstreamtest.Documents(t, filepath.Join("testdata", "upstream-03da3cf", "objects.yaml"))
}

// wire is an object's JSON decoded as upstream's output is read.
func wire(t *testing.T, o *unstructured.Unstructured) map[string]any {
	t.Helper()
	return upstreamtest.JSON(t, o.Object)
}

// The objects are upstream's, object for object and field for field: the
// six dashboards and the datasource upstream's initDashboards and
// initDatasource build at 03da3cf (their typed round trip drops nothing of
// upstream's files). The one difference: upstream's typed objects carry an
// empty status, which the API server ignores on create (the status
// subresource); the library never sends a status.
func TestDesiredIsUpstreams(t *testing.T) {
	want := upstream(t)
	require.Len(t, want, 7)
	objs, err := hco.DesiredObjects(perses.New(), hc(), facts(true))
	require.NoError(t, err)
	require.Len(t, objs, len(want))
	for i, o := range objs {
		assert.Equal(t, map[string]any{}, want[i]["status"], "upstream's status is empty")
		delete(want[i], "status")
		assert.Equal(t, want[i], wire(t, o), "%s %s", o.GetKind(), o.GetName())
	}
	assert.Equal(t, perses.DatasourceKind, objs[6].GroupVersionKind())
	assert.Equal(t, perses.DatasourceName, objs[6].GetName())
}

// A zero Operand is the stock one.
func TestZeroOperandIsNew(t *testing.T) {
	a, err := perses.Operand{}.Desired(hc(), facts(true))
	require.NoError(t, err)
	b, err := perses.New().Desired(hc(), facts(true))
	require.NoError(t, err)
	assert.Equal(t, b, a)
}

// Off OpenShift nothing, as upstream.
func TestDesiredOffOpenShift(t *testing.T) {
	objs, err := perses.New().Desired(hc(), facts(false))
	require.NoError(t, err)
	assert.Nil(t, objs)
}

// Each call builds new objects: a caller changing one changes nothing of
// the operand's.
func TestDesiredReturnsCopies(t *testing.T) {
	op := perses.New()
	objs, err := op.Desired(hc(), facts(true))
	require.NoError(t, err)
	objs[0].(*unstructured.Unstructured).Object["spec"] = "changed"
	again, err := op.Desired(hc(), facts(true))
	require.NoError(t, err)
	assert.NotEqual(t, "changed", again[0].(*unstructured.Unstructured).Object["spec"])
}

const myDashboard = `# a distribution's dashboard
apiVersion: perses.dev/v1alpha1
kind: PersesDashboard
metadata:
  name: my-dashboard
  namespace: somewhere-else
  labels:
    mine: "true"
  annotations:
    note: kept
spec:
  display:
    name: Mine
  duration: 30m
  aFieldPersesGoTypesLack: kept
`

// A distribution's dashboards replace upstream's: built as upstream's (the
// HyperConverged's namespace, the operator's labels), the rest of the file
// kept as it is; upstream's datasource stays unless replaced, and no file
// at all means no object.
func TestWithDashboards(t *testing.T) {
	mine := fstest.MapFS{
		"ui/my-dashboard.yaml": {Data: []byte(myDashboard)},
		"README.md":            {Data: []byte("not a dashboard")},
		"ui/old.yml":           {Data: []byte("not read: .yaml only, as upstream")},
	}
	objs, err := hco.DesiredObjects(perses.New(perses.WithDashboards(mine)), hc(), facts(true))
	require.NoError(t, err)
	require.Len(t, objs, 2)
	d := objs[0]
	assert.Equal(t, perses.DashboardKind, d.GroupVersionKind())
	assert.Equal(t, "my-dashboard", d.GetName())
	assert.Equal(t, hcov1.DefaultNamespace, d.GetNamespace())
	assert.Equal(t, hco.Labels(hc(), facts(true).Environment, perses.Component), d.GetLabels())
	assert.Equal(t, map[string]string{"note": "kept"}, d.GetAnnotations())
	assert.Equal(t, map[string]any{"display": map[string]any{"name": "Mine"}, "duration": "30m", "aFieldPersesGoTypesLack": "kept"}, d.Object["spec"])
	assert.Equal(t, perses.DatasourceName, objs[1].GetName())

	none, err := perses.New(perses.WithDashboards(nil), perses.WithDatasources(fstest.MapFS{})).Desired(hc(), facts(true))
	require.NoError(t, err)
	assert.Nil(t, none, "no files, no objects")

	only, err := perses.New(perses.WithDashboards(nil)).Desired(hc(), facts(true))
	require.NoError(t, err)
	require.Len(t, only, 1)
	assert.Equal(t, perses.DatasourceName, only[0].GetName())
}

// A file that is not one object of the option's kind with a valid name,
// or a name given twice, fails Desired, naming the option and the file.
func TestBadFiles(t *testing.T) {
	other := strings.Replace(myDashboard, "name: my-dashboard", "name: other", 1)
	for name, tc := range map[string]struct {
		fsys fs.FS
		want string
	}{
		"two objects":   {fstest.MapFS{"a.yaml": {Data: []byte(myDashboard + "---\n" + other)}}, "a.yaml: holds 2 objects"},
		"none":          {fstest.MapFS{"a.yaml": {Data: []byte("# nothing\n")}}, "a.yaml: holds 0 objects"},
		"wrong kind":    {fstest.MapFS{"a.yaml": {Data: []byte(strings.Replace(myDashboard, "PersesDashboard", "PersesDatasource", 1))}}, `a.yaml: apiVersion "perses.dev/v1alpha1", kind "PersesDatasource"`},
		"wrong version": {fstest.MapFS{"a.yaml": {Data: []byte(strings.Replace(myDashboard, "v1alpha1", "v1alpha2", 1))}}, "a.yaml: apiVersion"},
		"bad name":      {fstest.MapFS{"a.yaml": {Data: []byte(strings.Replace(myDashboard, "my-dashboard", "My_Dashboard", 1))}}, `a.yaml: metadata.name "My_Dashboard"`},
		"no name":       {fstest.MapFS{"a.yaml": {Data: []byte(strings.Replace(myDashboard, "name: my-dashboard", "generateName: x-", 1))}}, `a.yaml: metadata.name ""`},
		"not an object": {fstest.MapFS{"a.yaml": {Data: []byte("- a\n- b\n")}}, "a.yaml: not an object"},
		"not YAML":      {fstest.MapFS{"a.yaml": {Data: []byte("a: [b\n")}}, "a.yaml: "},
		"twice":         {fstest.MapFS{"a.yaml": {Data: []byte(myDashboard)}, "b/c.yaml": {Data: []byte(myDashboard)}}, `b/c.yaml: metadata.name "my-dashboard" is a.yaml's too`},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := perses.New(perses.WithDashboards(tc.fsys)).Desired(hc(), facts(true))
			require.Error(t, err)
			assert.Contains(t, err.Error(), "the distribution's dashboards (perses.WithDashboards): ")
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	_, err := perses.New(perses.WithDatasources(fstest.MapFS{"ds.yaml": {Data: []byte(myDashboard)}})).Desired(hc(), facts(true))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `the distribution's datasources (perses.WithDatasources): ds.yaml: apiVersion "perses.dev/v1alpha1", kind "PersesDashboard": want "perses.dev/v1alpha1", "PersesDatasource"`)
}

// Upstream's files are valid for Read as they are.
func TestDefaultFilesRead(t *testing.T) {
	dashboards, err := perses.Read(perses.DefaultDashboards(), perses.DashboardKind)
	require.NoError(t, err)
	assert.Len(t, dashboards, 6)
	datasources, err := perses.Read(perses.DefaultDatasources(), perses.DatasourceKind)
	require.NoError(t, err)
	require.Len(t, datasources, 1)
	assert.Equal(t, "openshift-cnv", dashboards[0].GetNamespace(), "as the file says it; Desired sets the namespace")
}

// Available once an object exists; not found before.
func TestStatus(t *testing.T) {
	assert.Equal(t, perses.StatusKind, perses.New().Status(nil).Kind)
	assert.Equal(t, metav1.ConditionUnknown, perses.New().Status(nil).Available.Status)
	var none *unstructured.Unstructured
	assert.Equal(t, metav1.ConditionUnknown, perses.New().Status([]client.Object{none}).Available.Status)
	objs, err := perses.New().Desired(hc(), facts(true))
	require.NoError(t, err)
	st := perses.New().Status(objs)
	assert.Equal(t, metav1.ConditionTrue, st.Available.Status)
	assert.Equal(t, metav1.ConditionFalse, st.Degraded.Status)
}

// The operand is left out off OpenShift (manager.New) and watches the
// two Perses kinds.
func TestOpenShiftOnlyAndKinds(t *testing.T) {
	var op hco.Operand = perses.New()
	o, ok := op.(hco.OpenShiftOnly)
	require.True(t, ok)
	assert.True(t, o.OpenShiftOnly())
	kinds := op.Kinds()
	require.Len(t, kinds, 2)
	assert.Equal(t, perses.DashboardKind, kinds[0].GetObjectKind().GroupVersionKind())
	assert.Equal(t, perses.DatasourceKind, kinds[1].GetObjectKind().GroupVersionKind())
}
