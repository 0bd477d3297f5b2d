package ssp

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	sspv1beta3 "kubevirt.io/ssp-operator/api/v1beta3"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/placement"
)

// Name is the operand's registry name.
const Name = "ssp"

// CRName is the name of the SSP CR the operand owns.
const CRName = "ssp-kubevirt-hyperconverged"

// Operand builds the SSP CR.
type Operand struct{}

var (
	_ hco.Operand     = Operand{}
	_ hco.JSONPatcher = Operand{}
)

// New returns the SSP operand.
func New() Operand { return Operand{} }

// Name implements hco.Operand.
func (Operand) Name() string { return Name }

// JSONPatchAnnotation implements hco.JSONPatcher.
func (Operand) JSONPatchAnnotation() string { return hcov1.SSPJSONPatchAnnotation }

// Kinds implements hco.Operand.
func (Operand) Kinds() []client.Object { return []client.Object{&sspv1beta3.SSP{TypeMeta: typeMeta()}} }

func typeMeta() metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: sspv1beta3.GroupVersion.String(), Kind: "SSP"}
}

// Desired implements hco.Operand.
func (Operand) Desired(hc *hcov1.HyperConverged, env hco.Environment) ([]client.Object, error) {
	return []client.Object{Build(hc, env)}, nil
}

// Build returns the SSP CR for hc. The jsonpatch annotation is applied by
// the library (hco.DesiredObjects), not here. The common
// templates go to spec.workloadSources.commonTemplatesNamespace, else to
// env.CommonTemplatesNamespace, else to upstream's "openshift".
func Build(hc *hcov1.HyperConverged, env hco.Environment) *sspv1beta3.SSP {
	ns := hco.DefaultCommonTemplatesNamespace
	if env.CommonTemplatesNamespace != "" {
		ns = env.CommonTemplatesNamespace
	}
	if hc.Spec.WorkloadSources.CommonTemplatesNamespace != nil && *hc.Spec.WorkloadSources.CommonTemplatesNamespace != "" {
		ns = *hc.Spec.WorkloadSources.CommonTemplatesNamespace
	}
	ssp := &sspv1beta3.SSP{
		TypeMeta: typeMeta(),
		ObjectMeta: metav1.ObjectMeta{
			Name:      CRName,
			Namespace: hc.Namespace,
			Labels:    hco.Labels(hc, env, hco.ComponentSchedule),
		},
		Spec: sspv1beta3.SSPSpec{
			CommonTemplates: sspv1beta3.CommonTemplates{Namespace: ns},
			TemplateValidator: &sspv1beta3.TemplateValidator{
				Placement: placement.ForSSP(hc.Spec.InfraPlacement()),
			},
		},
	}
	return ssp
}

// Status implements hco.Operand.
func (Operand) Status(observed []client.Object) hco.ComponentStatus {
	if len(observed) == 0 {
		return hco.StatusNotFound("SSP")
	}
	ssp, ok := observed[0].(*sspv1beta3.SSP)
	if !ok || ssp == nil {
		return hco.StatusNotFound("SSP")
	}
	return hco.StatusFromConditionsV1("SSP", ssp.Status.Conditions, ssp.Status.ObservedVersion)
}
