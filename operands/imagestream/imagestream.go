package imagestream

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hcostatus"
	imagev1 "github.com/hcokit/hcokit/operands/imagestream/api/v1"
	"github.com/hcokit/hcokit/wireform"
)

// Name is the operand's registry name.
const Name = "imagestream"

// Dir is upstream's directory of image streams under the operator's
// working directory (ImageStreamDefaultManifestLocation).
const Dir = "imageStreams"

// StatusKind names the component in the HyperConverged's condition reasons.
const StatusKind = "ImageStream"

// Operand makes the ImageStreams it was given.
type Operand struct {
	streams []imagev1.ImageStream
}

var (
	_ hco.Operand         = Operand{}
	_ hco.OpenShiftOnly   = Operand{}
	_ hco.OtherNamespacer = Operand{}
	_ hco.ContentKeeper   = Operand{}
	_ hco.SchemeAdder     = Operand{}
	_ hco.Yielder         = Operand{}
)

// New returns the image stream operand for streams (copied), in their
// order. Each needs a name and a namespace (where it goes when the
// HyperConverged names no commonBootImageNamespace); Load checks those of
// the files it reads.
func New(streams ...imagev1.ImageStream) Operand {
	o := Operand{streams: make([]imagev1.ImageStream, len(streams))}
	for i := range streams {
		streams[i].DeepCopyInto(&o.streams[i])
	}
	return o
}

// Names returns the namespace/name of the streams as given, in order.
func (o Operand) Names() []string {
	out := make([]string, len(o.streams))
	for i, is := range o.streams {
		out[i] = is.Namespace + "/" + is.Name
	}
	return out
}

// Name implements hco.Operand.
func (Operand) Name() string { return Name }

// OpenShiftOnly implements hco.OpenShiftOnly: upstream deploys image
// streams on OpenShift only, which serves them.
func (Operand) OpenShiftOnly() bool { return true }

func imageStreamType() metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: imagev1.GroupVersion.String(), Kind: "ImageStream"}
}

// Kinds implements hco.Operand.
func (Operand) Kinds() []client.Object {
	return []client.Object{&imagev1.ImageStream{TypeMeta: imageStreamType()}}
}

// OtherNamespaces implements hco.OtherNamespacer: on OpenShift, with
// image streams, every namespace (hco.AnyNamespace): theirs is the
// HyperConverged's to name; none elsewhere, or without streams.
func (o Operand) OtherNamespaces(openShift bool) map[schema.GroupVersionKind][]string {
	if !openShift || len(o.streams) == 0 {
		return nil
	}
	return map[schema.GroupVersionKind][]string{imagev1.GroupVersion.WithKind("ImageStream"): {hco.AnyNamespace}}
}

// YieldsToUnlabelled implements hco.Yielder: an ImageStream of one of its
// names that is somebody else's (neither the operator's label nor its
// HyperConverged's owner record) is left alone, as upstream's handler
// leaves a stream without its label.
func (Operand) YieldsToUnlabelled() bool { return true }

// KeptFields implements hco.ContentKeeper: what upstream's handler keeps of
// a stream others changed (it puts back only the tags' sources, by kind and
// name, and import policies, and the tags themselves).
func (Operand) KeptFields(gvk schema.GroupVersionKind, _ string) [][]string {
	if gvk != imagev1.GroupVersion.WithKind("ImageStream") {
		return nil
	}
	return [][]string{
		{"spec", "lookupPolicy"},
		{"spec", "dockerImageRepository"},
		{"spec", "tags", wireform.ByKey("name"), "annotations"},
		{"spec", "tags", wireform.ByKey("name"), "reference"},
		{"spec", "tags", wireform.ByKey("name"), "generation"},
		{"spec", "tags", wireform.ByKey("name"), "referencePolicy"},
		{"spec", "tags", wireform.ByKey("name"), "from", "namespace"},
	}
}

// Desired implements hco.Operand: on OpenShift, while
// spec.workloadSources.enableCommonBootImageImport is true (the default),
// the image streams (Build); otherwise nothing. Two streams of one name
// moved to one commonBootImageNamespace are an error naming the field.
func (o Operand) Desired(hc *hcov1.HyperConverged, facts hco.Facts) ([]client.Object, error) {
	if !facts.Platform.OpenShift || len(o.streams) == 0 || !ptr.Deref(hc.Spec.WorkloadSources.EnableCommonBootImageImport, true) {
		return nil, nil
	}
	objs := make([]client.Object, len(o.streams))
	from := map[string]string{}
	for i := range o.streams {
		is := Build(hc, facts.Environment, &o.streams[i])
		key := is.Namespace + "/" + is.Name
		if other, twice := from[key]; twice {
			return nil, fmt.Errorf("spec.workloadSources.commonBootImageNamespace %q: the image streams %s and %s would both be %s there; name another namespace, or unset it",
				is.Namespace, other, o.streams[i].Namespace+"/"+o.streams[i].Name, key)
		}
		from[key] = o.streams[i].Namespace + "/" + o.streams[i].Name
		objs[i] = is
	}
	return objs, nil
}

// Build returns the image stream is as the operator makes it for hc, as
// upstream's handler builds it: its name, annotations and spec as given,
// in hc's spec.workloadSources.commonBootImageNamespace when that is set,
// else in its own; upstream's labels (component compute) in place of its
// own.
func Build(hc *hcov1.HyperConverged, env hco.Environment, is *imagev1.ImageStream) *imagev1.ImageStream {
	out := is.DeepCopy()
	out.TypeMeta = imageStreamType()
	namespace := is.Namespace
	if ns := ptr.Deref(hc.Spec.WorkloadSources.CommonBootImageNamespace, ""); ns != "" {
		namespace = ns
	}
	out.ObjectMeta = metav1.ObjectMeta{Name: is.Name, Namespace: namespace,
		Labels: hco.Labels(hc, env, hco.ComponentCompute), Annotations: out.Annotations}
	return out
}

// Status implements hco.Operand. An ImageStream's status is its imports';
// the component is available once one exists, as upstream counts it.
func (Operand) Status(observed []client.Object) hcostatus.Component {
	for _, o := range observed {
		if is, ok := o.(*imagev1.ImageStream); ok && is != nil {
			return hcostatus.Found(StatusKind)
		}
	}
	return hcostatus.NotFound(StatusKind)
}

// AddToScheme implements hco.SchemeAdder: the ImageStream kind, and only it
// of its group.
func (Operand) AddToScheme(s *runtime.Scheme) error {
	return imagev1.AddToScheme(s)
}
