package aaq

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hcostatus"
	aaqv1alpha1 "github.com/hcokit/hcokit/operands/aaq/api/v1alpha1"
	"github.com/hcokit/hcokit/operands/priorityclass"
	"github.com/hcokit/hcokit/placement"
	"github.com/hcokit/hcokit/tlsprofile"
)

// Name is the operand's registry name.
const Name = "aaq"

// CRName is the name of the cluster-scoped AAQ, upstream's "aaq-" + the
// HyperConverged's name.
const CRName = "aaq-" + hcov1.HyperConvergedName

// Component is upstream's app.kubernetes.io/component of the AAQ.
const Component = "quota-management"

// StatusKind names the component in the HyperConverged's conditions.
const StatusKind = "AAQ"

// Operand builds the AAQ.
type Operand struct{}

var _ hco.Operand = Operand{}

// New returns the AAQ operand.
func New() Operand { return Operand{} }

// Name implements hco.Operand.
func (Operand) Name() string { return Name }

// Kinds implements hco.Operand.
func (Operand) Kinds() []client.Object {
	return []client.Object{&aaqv1alpha1.AAQ{TypeMeta: metav1.TypeMeta{APIVersion: aaqv1alpha1.GroupVersion.String(), Kind: "AAQ"}}}
}

// Desired implements hco.Operand. It returns nothing unless hc sets
// spec.deployment.applicationAwareConfig.enable.
func (Operand) Desired(hc *hcov1.HyperConverged, facts hco.Facts) ([]client.Object, error) {
	a := Build(hc, facts)
	if a == nil {
		return nil, nil
	}
	return []client.Object{a}, nil
}

// Enabled reports whether hc asks for AAQ, upstream's rule.
func Enabled(hc *hcov1.HyperConverged) bool {
	c := hc.Spec.Deployment.ApplicationAwareConfig
	return c != nil && c.Enable != nil && *c.Enable
}

// Build returns the AAQ for hc, or nil when hc does not enable it.
func Build(hc *hcov1.HyperConverged, facts hco.Facts) *aaqv1alpha1.AAQ {
	if !Enabled(hc) {
		return nil
	}
	spec := &hc.Spec
	certs := spec.Security.CertConfig
	priority := aaqv1alpha1.AAQPriorityClass(priorityclass.ObjectName)
	infra, workloads := placement.ForAAQ(spec.InfraPlacement(), spec.WorkloadPlacement())
	out := &aaqv1alpha1.AAQ{
		ObjectMeta: metav1.ObjectMeta{
			Name:   CRName,
			Labels: hco.Labels(hc, facts.Environment, Component),
		},
		Spec: aaqv1alpha1.AAQSpec{
			PriorityClass:   &priority,
			ImagePullPolicy: corev1.PullIfNotPresent,
			CertConfig: &aaqv1alpha1.AAQCertConfig{
				CA:     &aaqv1alpha1.CertConfig{Duration: certs.CA.Duration.DeepCopy(), RenewBefore: certs.CA.RenewBefore.DeepCopy()},
				Server: &aaqv1alpha1.CertConfig{Duration: certs.Server.Duration.DeepCopy(), RenewBefore: certs.Server.RenewBefore.DeepCopy()},
			},
			// The HyperConverged's profile, else the cluster's (OpenShift's
			// APIServer), else Intermediate, as for CDI.
			TLSSecurityProfile: tlsprofile.ForAAQ(tlsprofile.Resolve(spec.Security.TLSSecurityProfile, facts.ClusterTLSProfile)),
			Infra:              infra,
			Workloads:          workloads,
		},
	}
	config := spec.Deployment.ApplicationAwareConfig
	out.Spec.Configuration.VmiCalculatorConfiguration.ConfigName = aaqv1alpha1.DedicatedVirtualResources
	if config.VmiCalcConfigName != nil {
		out.Spec.Configuration.VmiCalculatorConfiguration.ConfigName = aaqv1alpha1.VmiCalcConfigName(*config.VmiCalcConfigName)
	}
	out.Spec.NamespaceSelector = config.NamespaceSelector.DeepCopy()
	out.Spec.Configuration.AllowApplicationAwareClusterResourceQuota = config.AllowApplicationAwareClusterResourceQuota != nil && *config.AllowApplicationAwareClusterResourceQuota
	return out
}

// Status implements hco.Operand: the AAQ's Available, Progressing, Degraded
// (and Upgradeable) conditions and observed version, as upstream reads them.
func (Operand) Status(observed []client.Object) hcostatus.Component {
	for _, o := range observed {
		if a, ok := o.(*aaqv1alpha1.AAQ); ok && a != nil && a.Name == CRName {
			return hcostatus.FromConditionsV1(StatusKind, a.Status.Conditions, a.Status.ObservedVersion)
		}
	}
	return hcostatus.NotFound(StatusKind)
}

// AddToScheme implements hco.SchemeAdder: the AAQ mirror's types.
func (Operand) AddToScheme(s *runtime.Scheme) error { return aaqv1alpha1.AddToScheme(s) }
