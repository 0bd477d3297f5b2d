package hpp

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hcostatus"
	hppv1beta1 "github.com/hcokit/hcokit/operands/hpp/api/v1beta1"
	"github.com/hcokit/hcokit/placement"
)

// Name is the operand's registry name.
const Name = "hpp"

// CRName is the name of the cluster-scoped HostPathProvisioner the operand owns.
const CRName = "hostpath-provisioner"

// Operand builds the HostPathProvisioner CR.
type Operand struct{}

var (
	_ hco.Operand     = Operand{}
	_ hco.JSONPatcher = Operand{}
)

// New returns the HostPathProvisioner operand.
func New() Operand { return Operand{} }

// Name implements hco.Operand.
func (Operand) Name() string { return Name }

// JSONPatchAnnotation implements hco.JSONPatcher.
func (Operand) JSONPatchAnnotation() string { return hcov1.HPPJSONPatchAnnotation }

// Kinds implements hco.Operand.
func (Operand) Kinds() []client.Object {
	return []client.Object{&hppv1beta1.HostPathProvisioner{TypeMeta: metav1.TypeMeta{APIVersion: hppv1beta1.GroupVersion.String(), Kind: "HostPathProvisioner"}}}
}

// Desired implements hco.Operand. It returns nothing when hc does not set
// spec.storage.hostpathProvisioner.
func (Operand) Desired(hc *hcov1.HyperConverged, facts hco.Facts) ([]client.Object, error) {
	hpp := Build(hc, facts.Environment)
	if hpp == nil {
		return nil, nil
	}
	return []client.Object{hpp}, nil
}

// Build returns the HostPathProvisioner for hc, or nil when hc does not ask
// for one.
func Build(hc *hcov1.HyperConverged, env hco.Environment) *hppv1beta1.HostPathProvisioner {
	cfg := hc.Spec.StorageOrEmpty().HostpathProvisioner
	if cfg == nil {
		return nil
	}
	pools := make([]hppv1beta1.StoragePool, 0, len(cfg.StoragePools))
	for _, p := range cfg.StoragePools {
		pools = append(pools, hppv1beta1.StoragePool{Name: p.Name, Path: p.Path, PVCTemplate: p.PVCTemplate.DeepCopy()})
	}
	pull := cfg.ImagePullPolicy
	if pull == "" {
		pull = "IfNotPresent"
	}
	return &hppv1beta1.HostPathProvisioner{
		ObjectMeta: metav1.ObjectMeta{
			Name:   CRName,
			Labels: hco.Labels(hc, env, hco.ComponentStorage),
		},
		Spec: hppv1beta1.HostPathProvisionerSpec{
			ImagePullPolicy: pull,
			StoragePools:    pools,
			Workload:        placement.ForHPP(hc.Spec.WorkloadPlacement()),
		},
	}
}

// Status implements hco.Operand.
func (Operand) Status(observed []client.Object) hcostatus.Component {
	if len(observed) == 0 {
		return hcostatus.NotFound("HostPathProvisioner")
	}
	hpp, ok := observed[0].(*hppv1beta1.HostPathProvisioner)
	if !ok || hpp == nil {
		return hcostatus.NotFound("HostPathProvisioner")
	}
	return hcostatus.FromConditionsV1("HostPathProvisioner", hpp.Status.Conditions, hpp.Status.ObservedVersion)
}

// AddToScheme implements hco.SchemeAdder: the HostPathProvisioner mirror's types.
func (Operand) AddToScheme(s *runtime.Scheme) error { return hppv1beta1.AddToScheme(s) }
