package migcontroller

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hcostatus"
	migv1alpha1 "github.com/hcokit/hcokit/operands/migcontroller/api/v1alpha1"
	"github.com/hcokit/hcokit/placement"
	"github.com/hcokit/hcokit/tlsprofile"
)

// Name is the operand's registry name.
const Name = "migcontroller"

// CRName is the name of the MigController, upstream's
// "migcontroller-" + the HyperConverged's name.
const CRName = "migcontroller-" + hcov1.HyperConvergedName

// Component is upstream's app.kubernetes.io/component of the MigController.
const Component = "migration"

// StatusKind names the component in the HyperConverged's conditions.
const StatusKind = "MigController"

// Operand builds the MigController.
type Operand struct{}

var _ hco.Operand = Operand{}

// New returns the MigController operand.
func New() Operand { return Operand{} }

// Name implements hco.Operand.
func (Operand) Name() string { return Name }

// Kinds implements hco.Operand.
func (Operand) Kinds() []client.Object {
	return []client.Object{&migv1alpha1.MigController{TypeMeta: metav1.TypeMeta{APIVersion: migv1alpha1.GroupVersion.String(), Kind: "MigController"}}}
}

// Desired implements hco.Operand.
func (Operand) Desired(hc *hcov1.HyperConverged, facts hco.Facts) ([]client.Object, error) {
	return []client.Object{Build(hc, facts)}, nil
}

// Build returns the MigController for hc, in facts.Namespace.
func Build(hc *hcov1.HyperConverged, facts hco.Facts) *migv1alpha1.MigController {
	return &migv1alpha1.MigController{
		ObjectMeta: metav1.ObjectMeta{
			Name:      CRName,
			Namespace: facts.Namespace,
			Labels:    hco.Labels(hc, facts.Environment, Component),
		},
		Spec: migv1alpha1.MigControllerSpec{
			ImagePullPolicy: corev1.PullIfNotPresent,
			Infra:           placement.ForMigController(hc.Spec.InfraPlacement()),
			// The HyperConverged's profile, else the cluster's (OpenShift's
			// APIServer), else Intermediate, as for CDI.
			TLSSecurityProfile: tlsprofile.ForMigController(tlsprofile.Resolve(hc.Spec.Security.TLSSecurityProfile, facts.ClusterTLSProfile)),
		},
	}
}

// Status implements hco.Operand: the MigController's Available,
// Progressing, Degraded (and Upgradeable) conditions and observed version,
// as upstream reads them.
func (Operand) Status(observed []client.Object) hcostatus.Component {
	for _, o := range observed {
		if m, ok := o.(*migv1alpha1.MigController); ok && m != nil && m.Name == CRName {
			return hcostatus.FromConditionsV1(StatusKind, m.Status.Conditions, m.Status.ObservedVersion)
		}
	}
	return hcostatus.NotFound(StatusKind)
}

// AddToScheme implements hco.SchemeAdder: the MigController mirror's types.
func (Operand) AddToScheme(s *runtime.Scheme) error { return migv1alpha1.AddToScheme(s) }
