package cnao

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/featuregates"
	"github.com/hcokit/hcokit/hco"
	cnaov1 "github.com/hcokit/hcokit/operands/cnao/api/v1"
	"github.com/hcokit/hcokit/placement"
)

// Name is the operand's registry name.
const Name = "cnao"

// CRName is the name of the cluster-scoped NetworkAddonsConfig the operand owns.
const CRName = "cluster"

// Operand builds the NetworkAddonsConfig CR.
type Operand struct{}

var (
	_ hco.Operand     = Operand{}
	_ hco.JSONPatcher = Operand{}
	_ hco.Adopter     = Operand{}
)

// New returns the NetworkAddonsConfig operand.
func New() Operand { return Operand{} }

// Name implements hco.Operand.
func (Operand) Name() string { return Name }

// JSONPatchAnnotation implements hco.JSONPatcher.
func (Operand) JSONPatchAnnotation() string { return hcov1.CNAOJSONPatchAnnotation }

// Kinds implements hco.Operand.
func (Operand) Kinds() []client.Object {
	return []client.Object{&cnaov1.NetworkAddonsConfig{TypeMeta: typeMeta()}}
}

func typeMeta() metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: cnaov1.GroupVersion.String(), Kind: "NetworkAddonsConfig"}
}

// DeploysOVS reports whether hc asks for the OvS CNI.
func DeploysOVS(hc *hcov1.HyperConverged) bool {
	return hc.GetAnnotations()[hcov1.DeployOVSAnnotation] == "true"
}

// Desired implements hco.Operand.
func (Operand) Desired(hc *hcov1.HyperConverged, env hco.Environment) ([]client.Object, error) {
	return []client.Object{Build(hc, env)}, nil
}

// Build returns the NetworkAddonsConfig for hc. The jsonpatch annotation is applied by
// the library (hco.DesiredObjects), not here.
func Build(hc *hcov1.HyperConverged, env hco.Environment) *cnaov1.NetworkAddonsConfig {
	spec := &hc.Spec
	nac := &cnaov1.NetworkAddonsConfig{
		TypeMeta: typeMeta(),
		ObjectMeta: metav1.ObjectMeta{
			Name:   CRName,
			Labels: hco.Labels(hc, env, hco.ComponentNetwork),
		},
		Spec: cnaov1.NetworkAddonsConfigSpec{
			Multus:                 &cnaov1.Multus{},
			LinuxBridge:            &cnaov1.LinuxBridge{},
			KubeMacPool:            &cnaov1.KubeMacPool{},
			ImagePullPolicy:        corev1.PullIfNotPresent,
			PlacementConfiguration: placement.ForCNAO(spec.InfraPlacement(), spec.WorkloadPlacement()),
			SelfSignConfiguration: &cnaov1.SelfSignConfiguration{
				CARotateInterval:    durationString(spec.Security.CertConfig.CA.Duration),
				CAOverlapInterval:   durationString(spec.Security.CertConfig.CA.RenewBefore),
				CertRotateInterval:  durationString(spec.Security.CertConfig.Server.Duration),
				CertOverlapInterval: durationString(spec.Security.CertConfig.Server.RenewBefore),
			},
		},
	}
	if DeploysOVS(hc) {
		nac.Spec.Ovs = &cnaov1.Ovs{}
	}
	if spec.FeatureGates.IsEnabled(featuregates.GateDeployKubeSecondaryDNS) {
		nac.Spec.KubeSecondaryDNS = &cnaov1.KubeSecondaryDNS{}
	}
	return nac
}

func durationString(d *metav1.Duration) string {
	if d == nil {
		return ""
	}
	return d.Duration.String()
}

// Status implements hco.Operand.
func (Operand) Status(observed []client.Object) hco.ComponentStatus {
	if len(observed) == 0 {
		return hco.StatusNotFound("NetworkAddonsConfig")
	}
	nac, ok := observed[0].(*cnaov1.NetworkAddonsConfig)
	if !ok || nac == nil {
		return hco.StatusNotFound("NetworkAddonsConfig")
	}
	return hco.StatusFromConditionsV1("NetworkAddonsConfig", nac.Status.Conditions, nac.Status.ObservedVersion)
}

// Adopt implements hco.Adopter. On upgrade, a HyperConverged without the
// deployOVS annotation whose NetworkAddonsConfig already deploys OvS gets
// deployOVS: "true", so that OvS stays deployed.
func (Operand) Adopt(hc *hcov1.HyperConverged, observed []client.Object) bool {
	if _, set := hc.GetAnnotations()[hcov1.DeployOVSAnnotation]; set {
		return false
	}
	for _, o := range observed {
		if nac, ok := o.(*cnaov1.NetworkAddonsConfig); ok && nac != nil && nac.Spec.Ovs != nil {
			if hc.Annotations == nil {
				hc.Annotations = map[string]string{}
			}
			hc.Annotations[hcov1.DeployOVSAnnotation] = "true"
			return true
		}
	}
	return false
}
