package priorityclass

import (
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hcostatus"
)

// Name is the operand's registry name.
const Name = "priorityclass"

// ObjectName is the name of the PriorityClass, upstream's kvPriorityClass.
const ObjectName = "kubevirt-cluster-critical"

// Value is the PriorityClass's value: 1000000000, the highest a PriorityClass
// that is not a system one may have.
const Value int32 = 1000000000

// Description is upstream's description of the PriorityClass.
const Description = "This priority class should be used for KubeVirt core components only."

// StatusKind names the component in the HyperConverged's conditions.
const StatusKind = "PriorityClass"

// Operand builds the PriorityClass.
type Operand struct{}

var _ hco.Operand = Operand{}

// New returns the PriorityClass operand.
func New() Operand { return Operand{} }

// Name implements hco.Operand.
func (Operand) Name() string { return Name }

// Kinds implements hco.Operand.
func (Operand) Kinds() []client.Object {
	return []client.Object{&schedulingv1.PriorityClass{TypeMeta: metav1.TypeMeta{APIVersion: schedulingv1.SchemeGroupVersion.String(), Kind: "PriorityClass"}}}
}

// Desired implements hco.Operand.
func (Operand) Desired(hc *hcov1.HyperConverged, facts hco.Facts) ([]client.Object, error) {
	return []client.Object{Build(hc, facts)}, nil
}

// Build returns the PriorityClass for hc, labelled as upstream's with the
// compute component.
func Build(hc *hcov1.HyperConverged, facts hco.Facts) *schedulingv1.PriorityClass {
	return &schedulingv1.PriorityClass{
		ObjectMeta: metav1.ObjectMeta{
			Name:   ObjectName,
			Labels: hco.Labels(hc, facts.Environment, hco.ComponentCompute),
		},
		Value:         Value,
		GlobalDefault: false,
		Description:   Description,
	}
}

// Status implements hco.Operand. A PriorityClass has no status: once it
// exists it is available, as upstream counts it.
func (Operand) Status(observed []client.Object) hcostatus.Component {
	for _, o := range observed {
		if pc, ok := o.(*schedulingv1.PriorityClass); ok && pc != nil && pc.Name == ObjectName {
			return hcostatus.Found(StatusKind)
		}
	}
	return hcostatus.NotFound(StatusKind)
}
