package cnao

import (
	"fmt"
	"k8s.io/apimachinery/pkg/runtime"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	netutils "k8s.io/utils/net"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/featuregates"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hcostatus"
	cnaov1 "github.com/hcokit/hcokit/operands/cnao/api/v1"
	"github.com/hcokit/hcokit/placement"
	"github.com/hcokit/hcokit/tlsprofile"
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
	return []client.Object{&cnaov1.NetworkAddonsConfig{TypeMeta: metav1.TypeMeta{APIVersion: cnaov1.GroupVersion.String(), Kind: "NetworkAddonsConfig"}}}
}

// DeploysOVS reports whether hc asks for the OvS CNI.
func DeploysOVS(hc *hcov1.HyperConverged) bool {
	return hc.GetAnnotations()[hcov1.DeployOVSAnnotation] == "true"
}

// Desired implements hco.Operand.
func (Operand) Desired(hc *hcov1.HyperConverged, facts hco.Facts) ([]client.Object, error) {
	nac, err := Build(hc, facts)
	if err != nil {
		return nil, err
	}
	return []client.Object{nac}, nil
}

// OpenShiftNADNamespace is the namespace of the cluster default network's
// NetworkAttachmentDefinitions on OpenShift (OVN-Kubernetes').
const OpenShiftNADNamespace = "openshift-ovn-kubernetes"

// Build returns the NetworkAddonsConfig for hc, or an error naming the field
// when spec.networking.kubeSecondaryDNSNameServerIP is not an IPv4 address
// (checked whether or not KubeSecondaryDNS is deployed, as upstream does).
// The jsonpatch annotation is applied by the library (hco.DesiredObjects),
// not here.
func Build(hc *hcov1.HyperConverged, facts hco.Facts) (*cnaov1.NetworkAddonsConfig, error) {
	spec := &hc.Spec
	networking := spec.Networking
	if networking == nil {
		networking = &hcov1.NetworkingConfig{}
	}
	nameServerIP, err := kubeSecondaryDNSNameServerIP(networking.KubeSecondaryDNSNameServerIP)
	if err != nil {
		return nil, err
	}

	certs := &spec.Security.CertConfig
	nac := &cnaov1.NetworkAddonsConfig{
		ObjectMeta: metav1.ObjectMeta{
			Name:   CRName,
			Labels: hco.Labels(hc, facts.Environment, hco.ComponentNetwork),
		},
		Spec: cnaov1.NetworkAddonsConfigSpec{
			Multus:                 &cnaov1.Multus{},
			LinuxBridge:            &cnaov1.LinuxBridge{},
			KubeMacPool:            kubeMacPool(networking.KubeMacPoolConfiguration),
			PlacementConfiguration: placement.ForCNAO(spec.InfraPlacement(), spec.WorkloadPlacement()),
			SelfSignConfiguration: &cnaov1.SelfSignConfiguration{
				CARotateInterval:    durationString(certs.CA.Duration, hcov1.DefaultCADuration),
				CAOverlapInterval:   durationString(certs.CA.RenewBefore, hcov1.DefaultCARenewBefore),
				CertRotateInterval:  durationString(certs.Server.Duration, hcov1.DefaultServerDuration),
				CertOverlapInterval: durationString(certs.Server.RenewBefore, hcov1.DefaultServerRenewBefore),
			},
			KubevirtIpamController: &cnaov1.KubevirtIpamController{},
			// Unset in the HyperConverged means the cluster's profile, else Intermediate.
			TLSSecurityProfile: tlsprofile.Resolve(spec.Security.TLSSecurityProfile, facts.ClusterTLSProfile),
		},
	}
	if DeploysOVS(hc) {
		nac.Spec.Ovs = &cnaov1.Ovs{}
	}
	if facts.Platform.OpenShift {
		// The cluster default network's NetworkAttachmentDefinitions live
		// in OVN-Kubernetes' namespace on OpenShift (upstream's value).
		nac.Spec.KubevirtIpamController.DefaultNetworkNADNamespace = OpenShiftNADNamespace
	}
	if featuregates.Enabled(spec.FeatureGates, featuregates.GateDeployKubeSecondaryDNS) {
		// The secondary DNS serves under the cluster's base domain
		// (OpenShift's DNS configuration "cluster"; empty elsewhere, as
		// upstream).
		nac.Spec.KubeSecondaryDNS = &cnaov1.KubeSecondaryDNS{Domain: facts.Platform.DNSBaseDomain, NameServerIP: nameServerIP}
	}
	return nac, nil
}

// kubeMacPool returns spec.kubeMacPool: always set (kubemacpool is always
// deployed), with the configured range when there is one.
func kubeMacPool(c *hcov1.KubeMacPoolConfig) *cnaov1.KubeMacPool {
	out := &cnaov1.KubeMacPool{}
	if c == nil {
		return out
	}
	if c.RangeStart != nil {
		out.RangeStart = *c.RangeStart
	}
	if c.RangeEnd != nil {
		out.RangeEnd = *c.RangeEnd
	}
	return out
}

// kubeSecondaryDNSNameServerIP returns the name server IP, empty when unset,
// or an error when it is set and not an IPv4 address.
func kubeSecondaryDNSNameServerIP(ip *string) (string, error) {
	if ip == nil || *ip == "" {
		return "", nil
	}
	if !netutils.IsIPv4String(*ip) {
		return "", fmt.Errorf("spec.networking.kubeSecondaryDNSNameServerIP: %q is not an IPv4 address; use one such as \"192.168.1.10\", or leave it unset", *ip)
	}
	return *ip, nil
}

func durationString(d *metav1.Duration, def time.Duration) string {
	if d == nil {
		return def.String()
	}
	return d.Duration.String()
}

// Status implements hco.Operand.
func (Operand) Status(observed []client.Object) hcostatus.Component {
	if len(observed) == 0 {
		return hcostatus.NotFound("NetworkAddonsConfig")
	}
	nac, ok := observed[0].(*cnaov1.NetworkAddonsConfig)
	if !ok || nac == nil {
		return hcostatus.NotFound("NetworkAddonsConfig")
	}
	return hcostatus.FromConditionsV1("NetworkAddonsConfig", nac.Status.Conditions, nac.Status.ObservedVersion)
}

// Adopt implements hco.Adopter, as upstream's setDeployOvsAnnotation at
// 03da3cf: on upgrade, a HyperConverged without the deployOVS annotation
// gets deployOVS: "true" when its NetworkAddonsConfig deploys OvS (so that
// OvS stays deployed), "false" otherwise.
func (Operand) Adopt(hc *hcov1.HyperConverged, observed []client.Object) bool {
	if _, set := hc.GetAnnotations()[hcov1.DeployOVSAnnotation]; set {
		return false
	}
	value := "false"
	for _, o := range observed {
		if nac, ok := o.(*cnaov1.NetworkAddonsConfig); ok && nac != nil && nac.Spec.Ovs != nil {
			value = "true"
		}
	}
	if hc.Annotations == nil {
		hc.Annotations = map[string]string{}
	}
	hc.Annotations[hcov1.DeployOVSAnnotation] = value
	return true
}

// AddToScheme implements hco.SchemeAdder: the NetworkAddonsConfig mirror's types.
func (Operand) AddToScheme(s *runtime.Scheme) error { return cnaov1.AddToScheme(s) }
