package quickstart_test

import (
	"os"
	"testing"
	"testing/fstest"

	consolev1 "github.com/openshift/api/console/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/internal/upstreamtest"
	"github.com/hcokit/hcokit/operands/quickstart"
)

// upstreamDir is upstream's output at 03da3cf and its input, in the
// layout of its CI image (README.md there).
const upstreamDir = "testdata/upstream-03da3cf"

// wire is obj as JSON carries it, without its status and creation time.
func wire(t *testing.T, obj any) map[string]any {
	t.Helper()
	return upstreamtest.WithoutCreationTime(upstreamtest.JSON(t, obj))
}

// On OpenShift the module makes, from upstream's test quick start read as
// upstream reads its quickStart/ directory, exactly the object upstream's
// handler builds from it at 03da3cf (its name, spec and labels).
func TestDesiredIsUpstreams(t *testing.T) {
	qs, err := quickstart.Load(os.DirFS(upstreamDir), quickstart.Dir)
	require.NoError(t, err)
	require.Len(t, qs, 1)
	objs, err := quickstart.New(qs...).Desired(upstreamtest.HyperConverged(), upstreamtest.OpenShift())
	require.NoError(t, err)
	require.Len(t, objs, 1)

	raw, err := os.ReadFile(upstreamDir + "/quickstarts.yaml")
	require.NoError(t, err)
	var want map[string]any
	require.NoError(t, yaml.Unmarshal(raw, &want))
	assert.Equal(t, want, wire(t, objs[0]))

	kind := quickstart.New().Kinds()[0].GetObjectKind().GroupVersionKind()
	assert.Equal(t, kind, objs[0].GetObjectKind().GroupVersionKind(), "the kind Kinds names")
}

// Off OpenShift, or without quick starts, the module wants nothing.
func TestDesiredNothing(t *testing.T) {
	assert.True(t, quickstart.New().OpenShiftOnly(), "left out off OpenShift, its kind not looked up")
	qs := consolev1.ConsoleQuickStart{ObjectMeta: metav1.ObjectMeta{Name: "a"}}
	objs, err := quickstart.New(qs).Desired(upstreamtest.HyperConverged(), hco.OfflineFacts(hco.Environment{Namespace: hcov1.DefaultNamespace}))
	assert.NoError(t, err)
	assert.Nil(t, objs, "plain Kubernetes")
	objs, err = quickstart.New().Desired(upstreamtest.HyperConverged(), upstreamtest.OpenShift())
	assert.NoError(t, err)
	assert.Nil(t, objs, "no quick starts")
}

// A quick start's own labels give way to upstream's (as upstream's handler
// replaces them); its annotations and spec are kept; what the operand was
// given is its own copy, and Desired's objects are new ones.
func TestBuild(t *testing.T) {
	given := consolev1.ConsoleQuickStart{
		ObjectMeta: metav1.ObjectMeta{Name: "tour", Labels: map[string]string{"mine": "x"}, Annotations: map[string]string{"note": "kept"},
			ResourceVersion: "42", UID: "u"},
		Spec: consolev1.ConsoleQuickStartSpec{DisplayName: "Tour", Tasks: []consolev1.ConsoleQuickStartTask{{Title: "one"}}},
	}
	op := quickstart.New(given)
	given.Spec.Tasks[0].Title = "changed after New"
	objs, err := op.Desired(upstreamtest.HyperConverged(), upstreamtest.OpenShift())
	require.NoError(t, err)
	got := objs[0].(*consolev1.ConsoleQuickStart)
	assert.Equal(t, map[string]string{
		hco.LabelApp: hcov1.HyperConvergedName, hco.LabelManagedBy: hco.ManagedByValue, hco.LabelPartOf: hco.PartOfValue,
		hco.LabelComponent: hco.ComponentCompute, hco.LabelVersion: "1.20.0",
	}, got.Labels)
	assert.Equal(t, map[string]string{"note": "kept"}, got.Annotations)
	assert.Empty(t, got.ResourceVersion+string(got.UID), "no server-side metadata of the file")
	assert.Equal(t, "one", got.Spec.Tasks[0].Title, "New copies what it is given")
	got.Spec.Tasks[0].Title = "changed in the output"
	again, err := op.Desired(upstreamtest.HyperConverged(), upstreamtest.OpenShift())
	require.NoError(t, err)
	assert.Equal(t, "one", again[0].(*consolev1.ConsoleQuickStart).Spec.Tasks[0].Title, "Desired returns new objects")
	assert.Equal(t, []string{"tour"}, op.Names())
}

const valid = "apiVersion: console.openshift.io/v1\nkind: ConsoleQuickStart\nmetadata:\n  name: a\nspec:\n  displayName: A\n"

// Load reads upstream's layout: every .yaml file, subdirectories too, in
// lexical order; a missing directory holds none.
func TestLoad(t *testing.T) {
	fsys := fstest.MapFS{
		"quickStart/b.yaml":     {Data: []byte("kind: ConsoleQuickStart\nmetadata:\n  name: b\n")},
		"quickStart/sub/a.yaml": {Data: []byte(valid)},
		"quickStart/README.md":  {Data: []byte("not a quick start")},
	}
	qs, err := quickstart.Load(fsys, "quickStart")
	require.NoError(t, err)
	assert.Equal(t, []string{"b", "a"}, quickstart.New(qs...).Names())
	assert.Equal(t, "A", qs[1].Spec.DisplayName)

	qs, err = quickstart.Load(fsys, "missing")
	assert.NoError(t, err)
	assert.Empty(t, qs)
}

// A file Load cannot take is an error that names it.
func TestLoadRefusesNamingTheFile(t *testing.T) {
	for name, tc := range map[string]struct{ content, want string }{
		"not YAML":       {"metadata: [unclosed\n", "quickStart/bad.yaml: "},
		"another kind":   {"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n", `quickStart/bad.yaml: apiVersion "v1", kind "ConfigMap": want a ConsoleQuickStart of console.openshift.io/v1`},
		"no name":        {"kind: ConsoleQuickStart\nspec:\n  displayName: A\n", "quickStart/bad.yaml: metadata.name is empty"},
		"a namespace":    {"kind: ConsoleQuickStart\nmetadata:\n  name: b\n  namespace: x\n", `quickStart/bad.yaml: metadata.namespace "x": a ConsoleQuickStart is cluster-scoped`},
		"two objects":    {valid + "---\n" + valid, "quickStart/bad.yaml: 2 YAML documents; want one object per file"},
		"same name":      {"kind: ConsoleQuickStart\nmetadata:\n  name: a\nspec:\n  displayName: other\n", `quickStart/bad.yaml: ConsoleQuickStart "a" is also in quickStart/a.yaml, with another content`},
		"a wrong type":   {"kind: ConsoleQuickStart\nmetadata:\n  name: b\nspec:\n  durationMinutes: soon\n", "quickStart/bad.yaml: not a ConsoleQuickStart"},
		"an empty file":  {"\n", "quickStart/bad.yaml: 0 YAML documents"},
		"a list of them": {"- " + valid, "quickStart/bad.yaml: not a ConsoleQuickStart"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := quickstart.Load(fstest.MapFS{"quickStart/a.yaml": {Data: []byte(valid)}, "quickStart/bad.yaml": {Data: []byte(tc.content)}}, "quickStart")
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	// The same quick start twice (a volume's link and its target) is one.
	qs, err := quickstart.Load(fstest.MapFS{"quickStart/a.yaml": {Data: []byte(valid)}, "quickStart/..data/a.yaml": {Data: []byte(valid)}}, "quickStart")
	require.NoError(t, err)
	assert.Len(t, qs, 1)
}

func TestStatus(t *testing.T) {
	op := quickstart.New()
	s := op.Status([]client.Object{&consolev1.ConsoleQuickStart{ObjectMeta: metav1.ObjectMeta{Name: "a"}}})
	assert.Equal(t, metav1.ConditionTrue, s.Available.Status)
	assert.Equal(t, quickstart.StatusKind, s.Kind)
	assert.Equal(t, metav1.ConditionUnknown, op.Status(nil).Available.Status)
	assert.Equal(t, metav1.ConditionUnknown, op.Status([]client.Object{(*consolev1.ConsoleQuickStart)(nil)}).Available.Status)
}

// The scheme learns the ConsoleQuickStart, and no other kind of its group.
func TestAddToScheme(t *testing.T) {
	s := runtime.NewScheme()
	require.NoError(t, quickstart.New().AddToScheme(s))
	assert.True(t, s.Recognizes(consolev1.GroupVersion.WithKind("ConsoleQuickStart")))
	assert.False(t, s.Recognizes(consolev1.GroupVersion.WithKind("ConsoleLink")))
}
