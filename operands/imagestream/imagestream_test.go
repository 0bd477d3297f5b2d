package imagestream_test

import (
	"encoding/json"
	"os"
	"testing"
	"testing/fstest"

	ocpimagev1 "github.com/openshift/api/image/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/internal/upstreamtest"
	"github.com/hcokit/hcokit/operands/imagestream"
	imagev1 "github.com/hcokit/hcokit/operands/imagestream/api/v1"
)

// upstreamDir is upstream's output at 03da3cf and its input (README.md there).
const upstreamDir = "testdata/upstream-03da3cf"

// wire is obj read as upstream's ImageStream type, as JSON carries it,
// without its creation time: the form of upstream's captures (the mirror
// leaves out what upstream's type sends as null).
func wire(t *testing.T, obj client.Object) map[string]any {
	t.Helper()
	var is ocpimagev1.ImageStream
	require.NoError(t, json.Unmarshal(mustJSON(t, obj), &is))
	return upstreamtest.WithoutCreationTime(upstreamtest.JSON(t, &is))
}

func mustJSON(t *testing.T, obj any) []byte {
	t.Helper()
	b, err := json.Marshal(obj)
	require.NoError(t, err)
	return b
}

func load(t *testing.T) []imagev1.ImageStream {
	t.Helper()
	streams, err := imagestream.Load(os.DirFS(upstreamDir), imagestream.Dir)
	require.NoError(t, err)
	require.Len(t, streams, 1)
	return streams
}

// On OpenShift the module makes, from upstream's test stream read as
// upstream reads its imageStreams/ directory, exactly the object upstream's
// handler builds from it at 03da3cf: in the file's namespace, or in
// commonBootImageNamespace.
func TestDesiredIsUpstreams(t *testing.T) {
	want := upstreamtest.Documents(t, upstreamDir+"/imagestreams.yaml")
	require.Len(t, want, 4)
	op := imagestream.New(load(t)...)
	hc := upstreamtest.HyperConverged()
	objs, err := op.Desired(hc, upstreamtest.OpenShift())
	require.NoError(t, err)
	require.Len(t, objs, 1)
	assert.Equal(t, want[0], wire(t, objs[0]))
	assert.NotContains(t, string(mustJSON(t, objs[0])), `"annotations":null`, "a null upstream's type sends is left out: others' annotations are kept")
	assert.Equal(t, op.Kinds()[0].GetObjectKind().GroupVersionKind(), objs[0].GetObjectKind().GroupVersionKind(), "the kind Kinds names")

	hc.Spec.WorkloadSources.CommonBootImageNamespace = ptr.To("custom-ns")
	objs, err = op.Desired(hc, upstreamtest.OpenShift())
	require.NoError(t, err)
	require.Len(t, objs, 1)
	assert.Equal(t, want[1], wire(t, objs[0]))
}

// Off OpenShift, without streams, or with the common boot images' import
// off, the module wants nothing.
func TestDesiredNothing(t *testing.T) {
	op := imagestream.New(load(t)...)
	assert.True(t, op.OpenShiftOnly(), "left out off OpenShift, its kind not looked up")
	objs, err := op.Desired(upstreamtest.HyperConverged(), hco.OfflineFacts(hco.Environment{Namespace: hcov1.DefaultNamespace}))
	assert.NoError(t, err)
	assert.Nil(t, objs, "plain Kubernetes")
	objs, err = imagestream.New().Desired(upstreamtest.HyperConverged(), upstreamtest.OpenShift())
	assert.NoError(t, err)
	assert.Nil(t, objs, "no streams")
	hc := upstreamtest.HyperConverged()
	hc.Spec.WorkloadSources.EnableCommonBootImageImport = ptr.To(false)
	objs, err = op.Desired(hc, upstreamtest.OpenShift())
	assert.NoError(t, err)
	assert.Nil(t, objs, "enableCommonBootImageImport false")
	hc.Spec.WorkloadSources.EnableCommonBootImageImport = ptr.To(true)
	objs, err = op.Desired(hc, upstreamtest.OpenShift())
	assert.NoError(t, err)
	assert.Len(t, objs, 1)
}

// Their namespace is the HyperConverged's to name: on OpenShift with
// streams, the operator manages the kind in every namespace.
func TestOtherNamespaces(t *testing.T) {
	op := imagestream.New(load(t)...)
	gvk := imagev1.GroupVersion.WithKind("ImageStream")
	assert.Equal(t, map[schema.GroupVersionKind][]string{gvk: {hco.AnyNamespace}}, op.OtherNamespaces(true))
	assert.Nil(t, op.OtherNamespaces(false))
	assert.Nil(t, imagestream.New().OtherNamespaces(true))
	assert.True(t, op.YieldsToUnlabelled(), "an admin's stream of the name is left alone, as upstream leaves it")
}

// Two files' streams of one name moved into one commonBootImageNamespace
// are an error that names the field.
func TestDesiredRefusesTwoStreamsInOnePlace(t *testing.T) {
	a := imagev1.ImageStream{ObjectMeta: metav1.ObjectMeta{Name: "fedora", Namespace: "one"}}
	b := imagev1.ImageStream{ObjectMeta: metav1.ObjectMeta{Name: "fedora", Namespace: "two"}}
	op := imagestream.New(a, b)
	objs, err := op.Desired(upstreamtest.HyperConverged(), upstreamtest.OpenShift())
	require.NoError(t, err)
	assert.Len(t, objs, 2, "apart in their own namespaces")
	hc := upstreamtest.HyperConverged()
	hc.Spec.WorkloadSources.CommonBootImageNamespace = ptr.To("golden")
	_, err = op.Desired(hc, upstreamtest.OpenShift())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "spec.workloadSources.commonBootImageNamespace")
	assert.Contains(t, err.Error(), "one/fedora")
	assert.Contains(t, err.Error(), "two/fedora")
}

// Load takes upstream's layout and refuses, naming the file, what upstream
// could not make.
func TestLoad(t *testing.T) {
	fsys := fstest.MapFS{
		"imageStreams/a.yaml":     {Data: []byte("apiVersion: image.openshift.io/v1\nkind: ImageStream\nmetadata:\n  name: a\n  namespace: ns\n")},
		"imageStreams/sub/b.yaml": {Data: []byte("kind: ImageStream\nmetadata:\n  name: b\n  namespace: ns\nspec:\n  tags:\n  - name: latest\n")},
		"imageStreams/notes.txt":  {Data: []byte("not read")},
		"elsewhere/ignored.yaml":  {Data: []byte("kind: ConfigMap\n")},
		"nonamespace/c.yaml":      {Data: []byte("kind: ImageStream\nmetadata:\n  name: c\n")},
		"otherkind/d.yaml":        {Data: []byte("kind: ConfigMap\nmetadata:\n  name: d\n  namespace: ns\n")},
		"twice/e1.yaml":           {Data: []byte("kind: ImageStream\nmetadata:\n  name: e\n  namespace: ns\n")},
		"twice/e2.yaml":           {Data: []byte("kind: ImageStream\nmetadata:\n  name: e\n  namespace: ns\nspec:\n  tags:\n  - name: x\n")},
		"samenameapart/one.yaml":  {Data: []byte("kind: ImageStream\nmetadata:\n  name: f\n  namespace: one\n")},
		"samenameapart/two.yaml":  {Data: []byte("kind: ImageStream\nmetadata:\n  name: f\n  namespace: two\n")},
	}
	streams, err := imagestream.Load(fsys, imagestream.Dir)
	require.NoError(t, err)
	assert.Equal(t, []string{"ns/a", "ns/b"}, imagestream.New(streams...).Names())
	assert.Equal(t, "ImageStream", streams[0].Kind)

	streams, err = imagestream.Load(fsys, "missing")
	assert.NoError(t, err)
	assert.Empty(t, streams)

	streams, err = imagestream.Load(fsys, "samenameapart")
	assert.NoError(t, err)
	assert.Len(t, streams, 2, "one name in two namespaces")

	for dir, msg := range map[string]string{
		"nonamespace": "nonamespace/c.yaml: metadata.namespace is empty",
		"otherkind":   "otherkind/d.yaml: apiVersion \"\", kind \"ConfigMap\"",
		"twice":       "twice/e2.yaml: ImageStream \"ns/e\" is also in twice/e1.yaml",
	} {
		_, err := imagestream.Load(fsys, dir)
		require.Error(t, err, dir)
		assert.Contains(t, err.Error(), msg)
	}
}

// The scheme learns the ImageStream, and no other kind of its group.
func TestAddToScheme(t *testing.T) {
	s := runtime.NewScheme()
	require.NoError(t, imagestream.New().AddToScheme(s))
	assert.True(t, s.Recognizes(imagev1.GroupVersion.WithKind("ImageStream")))
	assert.False(t, s.Recognizes(imagev1.GroupVersion.WithKind("ImageStreamTag")))
	assert.False(t, s.Recognizes(ocpimagev1.SchemeGroupVersion.WithKind("Image")))
}

// An ImageStream found is the component available; none, not found.
func TestStatus(t *testing.T) {
	op := imagestream.New()
	assert.Equal(t, metav1.ConditionTrue, op.Status([]client.Object{&imagev1.ImageStream{}}).Available.Status)
	assert.Equal(t, metav1.ConditionUnknown, op.Status([]client.Object{(*imagev1.ImageStream)(nil)}).Available.Status)
}
