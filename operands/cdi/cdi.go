package cdi

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hcostatus"
	"github.com/hcokit/hcokit/placement"
	"github.com/hcokit/hcokit/tlsprofile"
)

// Name is the operand's registry name.
const Name = "cdi"

// CRName is the name of the cluster-scoped CDI CR the operand owns.
const CRName = "cdi-kubevirt-hyperconverged"

// ConfigAuthorityAnnotation on the CDI CR makes its spec.config the
// authority over CDIConfig, so edits to CDIConfig do not fight the operator.
const ConfigAuthorityAnnotation = "cdi.kubevirt.io/configAuthority"

// featureGates are the CDI gates the operator always enables, upstream's
// two (controllers/handlers/cdi.go getDefaultFeatureGates at 03da3cf; no
// longer WebhookPvcRendering).
var featureGates = []string{"HonorWaitForFirstConsumer", "DataVolumeClaimAdoption"}

// Operand builds the CDI CR.
type Operand struct{}

var (
	_ hco.Operand         = Operand{}
	_ hco.JSONPatcher     = Operand{}
	_ hco.DeletionOrderer = Operand{}
)

// New returns the CDI operand.
func New() Operand { return Operand{} }

// Name implements hco.Operand.
func (Operand) Name() string { return Name }

// JSONPatchAnnotation implements hco.JSONPatcher.
func (Operand) JSONPatchAnnotation() string { return hcov1.CDIJSONPatchAnnotation }

// Kinds implements hco.Operand.
func (Operand) Kinds() []client.Object {
	return []client.Object{&cdiv1beta1.CDI{TypeMeta: metav1.TypeMeta{APIVersion: cdiv1beta1.SchemeGroupVersion.String(), Kind: "CDI"}}}
}

// Desired implements hco.Operand.
func (Operand) Desired(hc *hcov1.HyperConverged, facts hco.Facts) ([]client.Object, error) {
	return []client.Object{Build(hc, facts)}, nil
}

// Build returns the CDI CR for hc. The jsonpatch annotation is applied by
// the library (hco.DesiredObjects), not here.
func Build(hc *hcov1.HyperConverged, facts hco.Facts) *cdiv1beta1.CDI {
	spec := &hc.Spec
	storage := spec.StorageOrEmpty()
	infra, workload := placement.ForCDI(spec.InfraPlacement(), spec.WorkloadPlacement())

	uninstall := cdiv1beta1.CDIUninstallStrategyBlockUninstallIfWorkloadsExist
	if spec.Deployment.UninstallStrategy == hcov1.UninstallStrategyRemoveWorkloads {
		uninstall = cdiv1beta1.CDIUninstallStrategyRemoveWorkloads
	}

	config := &cdiv1beta1.CDIConfigSpec{
		FeatureGates:             append([]string(nil), featureGates...),
		ScratchSpaceStorageClass: copyPtr(storage.ScratchSpaceStorageClass),
		FilesystemOverhead:       storage.FilesystemOverhead.DeepCopy(),
		// Unset in the HyperConverged means the cluster's profile, else Intermediate.
		TLSSecurityProfile: tlsprofile.ForCDI(tlsprofile.Resolve(spec.Security.TLSSecurityProfile, facts.ClusterTLSProfile)),
	}
	if lv := spec.Deployment.LogVerbosityConfig; lv != nil {
		config.LogVerbosity = copyPtr(lv.CDI)
	}
	if rr := storage.WorkloadResourceRequirements; rr != nil {
		config.PodResourceRequirements = rr.DeepCopy()
	}
	if si := storage.StorageImport; si != nil && len(si.InsecureRegistries) > 0 {
		config.InsecureRegistries = append([]string(nil), si.InsecureRegistries...)
	}

	cdi := &cdiv1beta1.CDI{
		ObjectMeta: metav1.ObjectMeta{
			Name:        CRName,
			Labels:      hco.Labels(hc, facts.Environment, hco.ComponentStorage),
			Annotations: map[string]string{ConfigAuthorityAnnotation: ""},
		},
		Spec: cdiv1beta1.CDISpec{
			UninstallStrategy: &uninstall,
			Infra:             infra,
			Workloads:         workload,
			Config:            config,
			CertConfig: &cdiv1beta1.CDICertConfig{
				CA:     &cdiv1beta1.CertConfig{Duration: spec.Security.CertConfig.CA.Duration.DeepCopy(), RenewBefore: spec.Security.CertConfig.CA.RenewBefore.DeepCopy()},
				Server: &cdiv1beta1.CertConfig{Duration: spec.Security.CertConfig.Server.Duration.DeepCopy(), RenewBefore: spec.Security.CertConfig.Server.RenewBefore.DeepCopy()},
			},
		},
	}
	return cdi
}

// Status implements hco.Operand.
func (Operand) Status(observed []client.Object) hcostatus.Component {
	if len(observed) == 0 {
		return hcostatus.NotFound("CDI")
	}
	cdi, ok := observed[0].(*cdiv1beta1.CDI)
	if !ok || cdi == nil {
		return hcostatus.NotFound("CDI")
	}
	return hcostatus.FromConditionsV1("CDI", cdi.Status.Conditions, cdi.Status.ObservedVersion)
}

func copyPtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// DeletionOrder implements hco.DeletionOrderer: CDI goes last.
func (Operand) DeletionOrder() int { return 20 }

// AddToScheme implements hco.SchemeAdder: CDI's types.
func (Operand) AddToScheme(s *runtime.Scheme) error { return cdiv1beta1.AddToScheme(s) }
