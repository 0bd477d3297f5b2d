package openshift

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/internal/testenv"
	"github.com/hcokit/hcokit/internal/upstreamtest"
	"github.com/hcokit/hcokit/operands/imagestream"
	imagev1 "github.com/hcokit/hcokit/operands/imagestream/api/v1"
)

// imageStreamData is the imagestream module's test data: upstream's test
// stream, and what upstream's handler builds and writes at 03da3cf.
const imageStreamData = "operands/imagestream/testdata/upstream-03da3cf"

// imageStreamOperand is the imagestream module with upstream's test file,
// read as the stock binary reads its directory. It makes the file's
// namespace.
func imageStreamOperand() (hco.Operand, error) {
	root, err := testenv.RepoRoot()
	if err != nil {
		return nil, err
	}
	streams, err := imagestream.Load(os.DirFS(filepath.Join(root, imageStreamData)), imagestream.Dir)
	if err != nil {
		return nil, err
	}
	for _, is := range streams {
		err := k.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: is.Namespace}})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return nil, err
		}
	}
	return imagestream.New(streams...), nil
}

// upstreamStreams are upstream's four documents (README.md there), as
// ImageStreams.
func upstreamStreams(t *testing.T) []imagev1.ImageStream {
	t.Helper()
	root, err := testenv.RepoRoot()
	require.NoError(t, err)
	docs := upstreamtest.Documents(t, filepath.Join(root, imageStreamData, "imagestreams.yaml"))
	require.Len(t, docs, 4)
	out := make([]imagev1.ImageStream, len(docs))
	for i, d := range docs {
		require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(d, &out[i]))
	}
	return out
}

// streamAt returns the ImageStream at namespace/name, or an error saying
// why not.
func streamAt(ctx context.Context, namespace, name string) (*imagev1.ImageStream, error) {
	is := &imagev1.ImageStream{}
	err := k.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, is)
	return is, err
}

// goneAt waits until no ImageStream is at namespace/name.
func goneAt(t *testing.T, namespace, name string) {
	t.Helper()
	testenv.Eventually(t, "no ImageStream "+namespace+"/"+name, func() error {
		_, err := streamAt(context.Background(), namespace, name)
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("still there: %v", err)
	})
}

// setWorkloadSources changes the HyperConverged's workload sources.
func setWorkloadSources(t *testing.T, hc *hcov1.HyperConverged, change func(*hcov1.HyperConverged)) {
	t.Helper()
	testenv.Eventually(t, "update the HyperConverged", func() error {
		current := &hcov1.HyperConverged{}
		if err := k.Get(context.Background(), client.ObjectKeyFromObject(hc), current); err != nil {
			return err
		}
		change(current)
		return k.Update(context.Background(), current)
	})
}

// On OpenShift the operator makes upstream's test image stream as upstream's
// handler builds it at 03da3cf, in the file's namespace (another than the
// HyperConverged's: recorded with the owner annotations) and among the
// related objects; moves it to commonBootImageNamespace and back (made in
// the new namespace, deleted from the old); keeps what upstream keeps of
// others' edits and puts back the rest, to the object upstream's handler
// leaves; deletes it while enableCommonBootImageImport is false, and with
// the HyperConverged.
func TestImageStreams(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	want := upstreamStreams(t)
	built, moved, edited := want[0], want[1], want[2]
	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: ns}}
	testenv.CreateForTest(t, k, hc)

	var got *imagev1.ImageStream
	testenv.Eventually(t, "the image stream made", func() (err error) {
		got, err = streamAt(ctx, built.Namespace, built.Name)
		return err
	})
	assert.Equal(t, built.Spec, got.Spec, "upstream's spec")
	assert.Equal(t, built.Labels, got.Labels, "upstream's labels")
	assert.Equal(t, ns+"/"+hc.Name, got.Annotations[hco.OwnerAnnotation])
	assert.Equal(t, string(hc.UID), got.Annotations[hco.OwnerUIDAnnotation])
	assert.Empty(t, got.OwnerReferences, "no owner reference across namespaces")
	testenv.Eventually(t, "the image stream among the related objects", func() error {
		current := &hcov1.HyperConverged{}
		if err := k.Get(ctx, client.ObjectKeyFromObject(hc), current); err != nil {
			return err
		}
		if !slices.ContainsFunc(current.Status.RelatedObjects, func(r corev1.ObjectReference) bool {
			return r.Kind == "ImageStream" && r.Namespace == built.Namespace && r.Name == built.Name
		}) {
			return fmt.Errorf("not in %v", current.Status.RelatedObjects)
		}
		return nil
	})

	// Moved to commonBootImageNamespace, and back.
	testenv.EnsureNamespace(t, k, moved.Namespace)
	setWorkloadSources(t, hc, func(h *hcov1.HyperConverged) {
		h.Spec.WorkloadSources.CommonBootImageNamespace = ptr.To(moved.Namespace)
	})
	testenv.Eventually(t, "the image stream made in commonBootImageNamespace", func() (err error) {
		got, err = streamAt(ctx, moved.Namespace, moved.Name)
		return err
	})
	assert.Equal(t, moved.Spec, got.Spec)
	assert.Equal(t, moved.Labels, got.Labels)
	goneAt(t, built.Namespace, built.Name)
	setWorkloadSources(t, hc, func(h *hcov1.HyperConverged) { h.Spec.WorkloadSources.CommonBootImageNamespace = nil })
	testenv.Eventually(t, "the image stream back in its namespace", func() error {
		_, err := streamAt(ctx, built.Namespace, built.Name)
		return err
	})
	goneAt(t, moved.Namespace, moved.Name)

	// Others' edits (upstream's third document's input): what upstream
	// keeps is kept, the rest put back, as upstream's handler leaves it.
	testenv.Eventually(t, "edit the image stream", func() error {
		is, err := streamAt(ctx, built.Namespace, built.Name)
		if err != nil {
			return err
		}
		is.Labels["admin"] = "label"
		is.Labels["app.kubernetes.io/component"] = "other"
		is.Spec.LookupPolicy.Local = true
		is.Spec.Tags = []imagev1.TagReference{
			{Name: "theirs", From: &corev1.ObjectReference{Kind: "DockerImage", Name: "example.io/theirs"}},
			{Name: "latest", Annotations: map[string]string{"added": "by-admin"},
				From:            &corev1.ObjectReference{Kind: "DockerImage", Name: "example.io/other"},
				ReferencePolicy: imagev1.TagReferencePolicy{Type: "Local"}},
		}
		return k.Update(ctx, is)
	})
	testenv.Eventually(t, "the image stream as upstream's handler leaves it", func() error {
		is, err := streamAt(ctx, built.Namespace, built.Name)
		if err != nil {
			return err
		}
		if !assert.ObjectsAreEqual(edited.Spec, is.Spec) {
			return fmt.Errorf("spec %+v, want %+v", is.Spec, edited.Spec)
		}
		if !assert.ObjectsAreEqual(edited.Labels, is.Labels) {
			return fmt.Errorf("labels %v, want %v", is.Labels, edited.Labels)
		}
		return nil
	})

	// Off while the common boot images are not imported.
	setWorkloadSources(t, hc, func(h *hcov1.HyperConverged) {
		h.Spec.WorkloadSources.EnableCommonBootImageImport = ptr.To(false)
	})
	goneAt(t, built.Namespace, built.Name)
	setWorkloadSources(t, hc, func(h *hcov1.HyperConverged) {
		h.Spec.WorkloadSources.EnableCommonBootImageImport = ptr.To(true)
	})
	testenv.Eventually(t, "the image stream made again", func() error {
		_, err := streamAt(ctx, built.Namespace, built.Name)
		return err
	})

	// Gone with the HyperConverged.
	testenv.DeleteAndWait(t, k, hc)
	_, err := streamAt(ctx, built.Namespace, built.Name)
	assert.True(t, apierrors.IsNotFound(err), "after the uninstall: %v", err)
}

// An admin's own ImageStream of the name (neither the operator's label nor
// an owner record) is left alone, as upstream's handler leaves it: not
// written, not deleted when the streams move to commonBootImageNamespace
// and back, nor with the HyperConverged; an Event says so. The operator's
// own is made where the name is free. A stream with the operator's labels
// but no owner record (upstream's, of a name no longer built) is neither
// pruned nor deleted with the HyperConverged.
func TestImageStreamsLeaveAnAdminsStreamAlone(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	built, moved := upstreamStreams(t)[0], upstreamStreams(t)[1]
	admins := &imagev1.ImageStream{ObjectMeta: metav1.ObjectMeta{Name: built.Name, Namespace: built.Namespace, Labels: map[string]string{"admin": "own"}},
		Spec: imagev1.ImageStreamSpec{LookupPolicy: imagev1.ImageLookupPolicy{Local: true},
			Tags: []imagev1.TagReference{{Name: "mine", From: &corev1.ObjectReference{Kind: "DockerImage", Name: "example.io/mine"}}}}}
	testenv.CreateForTest(t, k, admins)
	testenv.EnsureNamespace(t, k, moved.Namespace)
	upstreams := &imagev1.ImageStream{ObjectMeta: metav1.ObjectMeta{Name: "upstreams-retired", Namespace: moved.Namespace,
		Labels: map[string]string{hco.LabelManagedBy: hco.ManagedByValue, hco.LabelApp: hcov1.HyperConvergedName}}}
	testenv.CreateForTest(t, k, upstreams)
	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: ns}}
	testenv.CreateForTest(t, k, hc)

	testenv.Eventually(t, "an Event says the stream is left alone", func() error {
		events := &corev1.EventList{}
		if err := k.List(ctx, events, client.InNamespace(ns)); err != nil {
			return err
		}
		for _, e := range events.Items {
			if e.Reason == hco.EventLeftAlone && e.Related != nil && e.Related.Name == built.Name {
				return nil
			}
		}
		return fmt.Errorf("no %s event among %d", hco.EventLeftAlone, len(events.Items))
	})
	unchanged := func(what string) {
		t.Helper()
		got, err := streamAt(ctx, admins.Namespace, admins.Name)
		require.NoError(t, err, what)
		assert.Equal(t, admins.ResourceVersion, got.ResourceVersion, "%s: the admin's stream is not written", what)
	}
	unchanged("made")

	setWorkloadSources(t, hc, func(h *hcov1.HyperConverged) {
		h.Spec.WorkloadSources.CommonBootImageNamespace = ptr.To(moved.Namespace)
	})
	testenv.Eventually(t, "the operator's stream made where the name is free", func() error {
		_, err := streamAt(ctx, moved.Namespace, moved.Name)
		return err
	})
	unchanged("moved away")
	setWorkloadSources(t, hc, func(h *hcov1.HyperConverged) { h.Spec.WorkloadSources.CommonBootImageNamespace = nil })
	goneAt(t, moved.Namespace, moved.Name)
	unchanged("moved back")

	testenv.DeleteAndWait(t, k, hc)
	unchanged("after the uninstall")
	_, err := streamAt(ctx, upstreams.Namespace, upstreams.Name)
	assert.NoError(t, err, "a labelled stream without the owner record is left")
}
