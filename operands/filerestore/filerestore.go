package filerestore

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hcostatus"
	frv1alpha1 "github.com/hcokit/hcokit/operands/filerestore/api/v1alpha1"
	"github.com/hcokit/hcokit/tlsprofile"
)

// Name is the operand's registry name.
const Name = "filerestore"

// CRName is the name of the FileRestoreOperator, upstream's
// "vm-file-restore-" + the HyperConverged's name.
const CRName = "vm-file-restore-" + hcov1.HyperConvergedName

// Component is upstream's app.kubernetes.io/component of the CR.
const Component = "vm-file-restore"

// StatusKind names the component in the HyperConverged's conditions.
const StatusKind = "FileRestoreOperator"

// Operand builds the FileRestoreOperator.
type Operand struct{}

var _ hco.Operand = Operand{}

// New returns the FileRestoreOperator operand.
func New() Operand { return Operand{} }

// Name implements hco.Operand.
func (Operand) Name() string { return Name }

// Kinds implements hco.Operand.
func (Operand) Kinds() []client.Object {
	return []client.Object{&frv1alpha1.FileRestoreOperator{TypeMeta: metav1.TypeMeta{APIVersion: frv1alpha1.GroupVersion.String(), Kind: "FileRestoreOperator"}}}
}

// Desired implements hco.Operand.
func (Operand) Desired(hc *hcov1.HyperConverged, facts hco.Facts) ([]client.Object, error) {
	return []client.Object{Build(hc, facts)}, nil
}

// Build returns the FileRestoreOperator for hc, in facts.Namespace.
func Build(hc *hcov1.HyperConverged, facts hco.Facts) *frv1alpha1.FileRestoreOperator {
	return &frv1alpha1.FileRestoreOperator{
		ObjectMeta: metav1.ObjectMeta{
			Name:      CRName,
			Namespace: facts.Namespace,
			Labels:    hco.Labels(hc, facts.Environment, Component),
		},
		Spec: frv1alpha1.FileRestoreOperatorSpec{
			ImagePullPolicy: corev1.PullIfNotPresent,
			// The HyperConverged's profile, else the cluster's (OpenShift's
			// APIServer), else Intermediate, as for CDI.
			TLSSecurityProfile: tlsprofile.ForFileRestore(tlsprofile.Resolve(hc.Spec.Security.TLSSecurityProfile, facts.ClusterTLSProfile)),
		},
	}
}

// Status implements hco.Operand: the FileRestoreOperator's Available,
// Progressing, Degraded (and Upgradeable) conditions and observed version,
// as upstream reads them.
func (Operand) Status(observed []client.Object) hcostatus.Component {
	for _, o := range observed {
		if f, ok := o.(*frv1alpha1.FileRestoreOperator); ok && f != nil && f.Name == CRName {
			conds := make([]hcostatus.OperandCondition, 0, len(f.Status.Conditions))
			for _, c := range f.Status.Conditions {
				conds = append(conds, hcostatus.OperandCondition{Type: c.Type, Status: string(c.Status), Reason: c.Reason, Message: c.Message})
			}
			return hcostatus.FromConditions(StatusKind, conds, f.Status.ObservedVersion)
		}
	}
	return hcostatus.NotFound(StatusKind)
}

// AddToScheme implements hco.SchemeAdder: the FileRestoreOperator mirror's types.
func (Operand) AddToScheme(s *runtime.Scheme) error { return frv1alpha1.AddToScheme(s) }
