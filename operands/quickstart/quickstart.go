package quickstart

import (
	consolev1 "github.com/openshift/api/console/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hcostatus"
)

// Name is the operand's registry name.
const Name = "quickstart"

// Dir is upstream's directory of quick starts under the operator's working
// directory (QuickStartDefaultManifestLocation).
const Dir = "quickStart"

// StatusKind names the component in the HyperConverged's condition reasons.
const StatusKind = "ConsoleQuickStart"

// Operand makes the console's quick starts it was given.
type Operand struct {
	quickStarts []consolev1.ConsoleQuickStart
}

var (
	_ hco.Operand       = Operand{}
	_ hco.OpenShiftOnly = Operand{}
	_ hco.SchemeAdder   = Operand{}
)

// New returns the quick-start operand for qs (copied), in their order.
// Each needs a name; Load checks that of the files it reads.
func New(qs ...consolev1.ConsoleQuickStart) Operand {
	o := Operand{quickStarts: make([]consolev1.ConsoleQuickStart, len(qs))}
	for i := range qs {
		qs[i].DeepCopyInto(&o.quickStarts[i])
	}
	return o
}

// Names returns the names of the quick starts, in order.
func (o Operand) Names() []string {
	out := make([]string, len(o.quickStarts))
	for i, qs := range o.quickStarts {
		out[i] = qs.Name
	}
	return out
}

// Name implements hco.Operand.
func (Operand) Name() string { return Name }

// OpenShiftOnly implements hco.OpenShiftOnly: upstream deploys quick
// starts on OpenShift only, and elsewhere the kind is not served (nothing
// is asked of the cluster for it).
func (Operand) OpenShiftOnly() bool { return true }

func quickStartType() metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: consolev1.GroupVersion.String(), Kind: "ConsoleQuickStart"}
}

// Kinds implements hco.Operand.
func (Operand) Kinds() []client.Object {
	return []client.Object{&consolev1.ConsoleQuickStart{TypeMeta: quickStartType()}}
}

// Desired implements hco.Operand: on OpenShift, the quick starts (Build);
// elsewhere nothing.
func (o Operand) Desired(hc *hcov1.HyperConverged, facts hco.Facts) ([]client.Object, error) {
	if !facts.Platform.OpenShift || len(o.quickStarts) == 0 {
		return nil, nil
	}
	objs := make([]client.Object, len(o.quickStarts))
	for i := range o.quickStarts {
		objs[i] = Build(hc, facts.Environment, &o.quickStarts[i])
	}
	return objs, nil
}

// Build returns the quick start qs as the operator makes it for hc: its
// name, annotations and spec, with upstream's labels (component compute)
// in place of its own, as upstream's handler has it.
func Build(hc *hcov1.HyperConverged, env hco.Environment, qs *consolev1.ConsoleQuickStart) *consolev1.ConsoleQuickStart {
	out := qs.DeepCopy()
	out.TypeMeta = quickStartType()
	out.ObjectMeta = metav1.ObjectMeta{Name: qs.Name, Labels: hco.Labels(hc, env, hco.ComponentCompute), Annotations: out.Annotations}
	return out
}

// Status implements hco.Operand. A quick start has no status: the
// component is available once one exists, as upstream counts it.
func (Operand) Status(observed []client.Object) hcostatus.Component {
	for _, o := range observed {
		if qs, ok := o.(*consolev1.ConsoleQuickStart); ok && qs != nil {
			return hcostatus.Found(StatusKind)
		}
	}
	return hcostatus.NotFound(StatusKind)
}

// AddToScheme implements hco.SchemeAdder: the ConsoleQuickStart kind, and
// only it of its group.
func (Operand) AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(consolev1.GroupVersion, &consolev1.ConsoleQuickStart{}, &consolev1.ConsoleQuickStartList{})
	metav1.AddToGroupVersion(s, consolev1.GroupVersion)
	return nil
}
