package ssp

import (
	"fmt"
	"k8s.io/apimachinery/pkg/runtime"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	sspv1beta3 "kubevirt.io/ssp-operator/api/v1beta3"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/featuregates"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hcostatus"
	"github.com/hcokit/hcokit/nodefacts"
	"github.com/hcokit/hcokit/placement"
	"github.com/hcokit/hcokit/tlsprofile"
)

// Name is the operand's registry name.
const Name = "ssp"

// CRName is the name of the SSP CR the operand owns.
const CRName = "ssp-kubevirt-hyperconverged"

// Operand builds the SSP CR. The zero value is the stock operand, with
// the common golden images hcokit ships (DefaultGoldenImages).
type Operand struct {
	// cfg is nil for the stock operand; a pointer keeps Operand comparable.
	cfg *config
}

// config is what the options set.
type config struct {
	goldenImages    []hcov1.DataImportCronTemplate
	hasGoldenImages bool
}

// Option changes the stock operand; see New.
type Option func(*config)

// WithGoldenImages replaces the common golden images (DefaultGoldenImages)
// with a distribution's own list; an empty list means none. The list is
// copied. The admin still modifies, disables and extends them through the
// HyperConverged, and their schedule is replaced by DataImportSchedule, as
// for the stock list. An invalid list (see ValidateGoldenImages) makes
// Desired fail; ParseGoldenImages loads and checks one from YAML.
func WithGoldenImages(images []hcov1.DataImportCronTemplate) Option {
	images = cloneTemplates(images)
	return func(c *config) {
		c.goldenImages = cloneTemplates(images)
		c.hasGoldenImages = true
	}
}

var (
	_ hco.Operand     = Operand{}
	_ hco.JSONPatcher = Operand{}
)

// New returns the SSP operand, changed by opts. The shipped golden images
// are parsed here, once, not on every reconcile (a zero Operand parses them
// when asked).
func New(opts ...Option) Operand {
	c := &config{}
	for _, o := range opts {
		o(c)
	}
	if !c.hasGoldenImages {
		// The embedded list is valid (a test proves it); should it not be,
		// GoldenImages reports why on every reconcile.
		if images, err := DefaultGoldenImages(); err == nil {
			c.goldenImages, c.hasGoldenImages = images, true
		}
	}
	return Operand{cfg: c}
}

// Name implements hco.Operand.
func (Operand) Name() string { return Name }

// JSONPatchAnnotation implements hco.JSONPatcher.
func (Operand) JSONPatchAnnotation() string { return hcov1.SSPJSONPatchAnnotation }

// Kinds implements hco.Operand.
func (Operand) Kinds() []client.Object {
	return []client.Object{&sspv1beta3.SSP{TypeMeta: metav1.TypeMeta{APIVersion: sspv1beta3.GroupVersion.String(), Kind: "SSP"}}}
}

// Desired implements hco.Operand.
func (o Operand) Desired(hc *hcov1.HyperConverged, facts hco.Facts) ([]client.Object, error) {
	ssp, err := o.Build(hc, facts)
	if err != nil {
		return nil, err
	}
	return []client.Object{ssp}, nil
}

// GoldenImages returns the operand's common golden images: those of
// WithGoldenImages, else DefaultGoldenImages. A fresh copy on every call.
func (o Operand) GoldenImages() ([]hcov1.DataImportCronTemplate, error) {
	if o.cfg == nil || !o.cfg.hasGoldenImages {
		return DefaultGoldenImages()
	}
	if err := ValidateGoldenImages(o.cfg.goldenImages); err != nil {
		return nil, fmt.Errorf("the distribution's golden images (ssp.WithGoldenImages): %w", err)
	}
	return cloneTemplates(o.cfg.goldenImages), nil
}

// GoldenImageStatuses is GoldenImageStatuses with the operand's common
// golden images and the workload architectures of facts: what
// status.dataImportCronTemplates should say.
func (o Operand) GoldenImageStatuses(hc *hcov1.HyperConverged, facts hco.Facts, recorded Recorded, now metav1.Time) ([]hcov1.DataImportCronTemplateStatus, error) {
	common, err := o.GoldenImages()
	if err != nil {
		return nil, err
	}
	var archs []string
	if facts.Nodes != nil {
		archs = facts.Nodes.WorkloadArchitectures
	}
	return GoldenImageStatuses(hc, common, archs, recorded, now)
}

// ContributeStatus sets the HyperConverged status fields that come from
// SSP's configuration, computed from hc and facts: dataImportSchedule
// (DataImportSchedule) and dataImportCronTemplates (GoldenImageStatuses;
// now is the time of a new Deployed condition). It changes nothing else
// in st and nothing on an error. It is meant for an optional capability of
// package hco, called with the status about to be written.
func (o Operand) ContributeStatus(hc *hcov1.HyperConverged, facts hco.Facts, now metav1.Time, st *hcov1.HyperConvergedStatus) error {
	statuses, err := o.GoldenImageStatuses(hc, facts, Recorded{Schedule: facts.DataImportSchedule, Images: st.DataImportCronTemplates}, now)
	if err != nil {
		return err
	}
	st.DataImportSchedule = DataImportSchedule(hc, facts.DataImportSchedule)
	st.DataImportCronTemplates = statuses
	return nil
}

// Build returns the stock SSP CR for hc; see Operand.Build.
func Build(hc *hcov1.HyperConverged, facts hco.Facts) (*sspv1beta3.SSP, error) {
	return Operand{}.Build(hc, facts)
}

// Build returns the SSP CR for hc, set as upstream HCO sets it. The
// jsonpatch annotation is applied by the library (hco.DesiredObjects), not
// here.
//
//   - commonTemplates.namespace: spec.workloadSources.commonTemplatesNamespace,
//     else facts.CommonTemplatesNamespace, else upstream's "openshift".
//   - commonTemplates.dataImportCronTemplates: the golden images
//     (GoldenImageStatuses, then ForSSP).
//   - templateValidator: 2 replicas (upstream's value) and the infra placement.
//   - enableMultipleArchitectures: the enableMultiArchBootImageImport gate.
//   - cluster: the architectures of the node facts, when known.
//   - tlsSecurityProfile: spec.security.tlsSecurityProfile, else the
//     cluster's (facts.ClusterTLSProfile), else Intermediate.
//   - tokenGenerationService: spec.deployment.deployVmConsoleProxy, when set.
//
// An error names the field of hc to fix, or the distribution's golden images.
func (o Operand) Build(hc *hcov1.HyperConverged, facts hco.Facts) (*sspv1beta3.SSP, error) {
	ns := hco.DefaultCommonTemplatesNamespace
	if facts.CommonTemplatesNamespace != "" {
		ns = facts.CommonTemplatesNamespace
	}
	if hc.Spec.WorkloadSources.CommonTemplatesNamespace != nil && *hc.Spec.WorkloadSources.CommonTemplatesNamespace != "" {
		ns = *hc.Spec.WorkloadSources.CommonTemplatesNamespace
	}
	// The transition time of a Deployed condition does not reach SSP.
	statuses, err := o.GoldenImageStatuses(hc, facts, Recorded{Schedule: facts.DataImportSchedule}, metav1.Time{})
	if err != nil {
		return nil, err
	}
	multiArch := featuregates.Enabled(hc.Spec.FeatureGates, GateMultiArchBootImageImport)
	ssp := &sspv1beta3.SSP{
		ObjectMeta: metav1.ObjectMeta{
			Name:      CRName,
			Namespace: hc.Namespace,
			Labels:    hco.Labels(hc, facts.Environment, hco.ComponentSchedule),
		},
		Spec: sspv1beta3.SSPSpec{
			EnableMultipleArchitectures: ptr.To(multiArch),
			TemplateValidator: &sspv1beta3.TemplateValidator{
				Replicas:  ptr.To(TemplateValidatorReplicas),
				Placement: placement.ForSSP(hc.Spec.InfraPlacement()),
			},
			Cluster: cluster(facts.Nodes),
			CommonTemplates: sspv1beta3.CommonTemplates{
				Namespace:               ns,
				DataImportCronTemplates: ForSSP(statuses, multiArch),
			},
			TLSSecurityProfile: tlsprofile.Resolve(hc.Spec.Security.TLSSecurityProfile, facts.ClusterTLSProfile),
		},
	}
	if p := hc.Spec.Deployment.DeployVMConsoleProxy; p != nil {
		ssp.Spec.TokenGenerationService = &sspv1beta3.TokenGenerationService{Enabled: *p}
	}
	return ssp, nil
}

// TemplateValidatorReplicas is the number of template validator pods, as
// upstream sets it.
const TemplateValidatorReplicas = int32(2)

// cluster is SSP's view of the node architectures, nil while unknown.
func cluster(n *nodefacts.Facts) *sspv1beta3.Cluster {
	if n == nil || len(n.WorkloadArchitectures) == 0 && len(n.ControlPlaneArchitectures) == 0 {
		return nil
	}
	return &sspv1beta3.Cluster{
		WorkloadArchitectures:     slices.Clone(n.WorkloadArchitectures),
		ControlPlaneArchitectures: slices.Clone(n.ControlPlaneArchitectures),
	}
}

// cloneTemplates deep-copies a list of golden images.
func cloneTemplates(in []hcov1.DataImportCronTemplate) []hcov1.DataImportCronTemplate {
	if in == nil {
		return nil
	}
	out := make([]hcov1.DataImportCronTemplate, len(in))
	for i := range in {
		in[i].DeepCopyInto(&out[i])
	}
	return out
}

// Status implements hco.Operand.
func (Operand) Status(observed []client.Object) hcostatus.Component {
	if len(observed) == 0 {
		return hcostatus.NotFound("SSP")
	}
	ssp, ok := observed[0].(*sspv1beta3.SSP)
	if !ok || ssp == nil {
		return hcostatus.NotFound("SSP")
	}
	return hcostatus.FromConditionsV1("SSP", ssp.Status.Conditions, ssp.Status.ObservedVersion)
}

// AddToScheme implements hco.SchemeAdder: SSP's types.
func (Operand) AddToScheme(s *runtime.Scheme) error { return sspv1beta3.AddToScheme(s) }
