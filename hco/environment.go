package hco

import (
	"context"

	ocpconfigv1 "github.com/openshift/api/config/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/clustertls"
	"github.com/hcokit/hcokit/nodefacts"
)

// Environment is what the operator is told about itself and its platform.
// It is read once, from flags and environment variables, in main and passed
// down by value, inside the Facts an operand gets; nothing below main reads
// the process environment.
type Environment struct {
	// Namespace is the operator's namespace. Only the HyperConverged named
	// hcov1.HyperConvergedName in this namespace is reconciled.
	Namespace string

	// Version is the operator's own version. It labels every object it
	// creates and is reported as "operator" in status.versions.
	Version string

	// OperandVersions are the versions each operand is expected to report
	// once upgraded, by operand name ("kubevirt", "cdi", ...). An operand
	// without an entry is not waited for.
	OperandVersions map[string]string

	// Images are container images by role, for operands that deploy
	// workloads themselves (e.g. "virtctl-download").
	Images map[string]string

	// CommonTemplatesNamespace is where SSP deploys the common templates
	// when the HyperConverged does not say. Upstream uses "openshift".
	CommonTemplatesNamespace string

	// KVMEmulation is true on clusters without hardware virtualization; it
	// drops KubeVirt gates that need real hardware.
	KVMEmulation bool

	// OperatorConditionName is the name of the OperatorCondition OLM made for
	// the operator in Namespace (OLM's OPERATOR_CONDITION_NAME), whose
	// Upgradeable condition the operator keeps (see UpgradeableCondition);
	// empty when not installed by OLM.
	OperatorConditionName string

	// SMBIOS is the SMBIOS information KubeVirt gives VMs
	// (configuration.smbios), as YAML or JSON with KubeVirt's field names
	// (family, manufacturer, product, sku, version); empty leaves KubeVirt's
	// own. Upstream HCO reads it from the SMBIOS variable.
	SMBIOS string

	// MachineTypes are the default VM machine types by node architecture
	// ("amd64", "arm64", "s390x"), for KubeVirt's
	// configuration.architectureConfiguration; an architecture without one
	// keeps KubeVirt's default. Upstream HCO reads them from MACHINETYPE
	// (or AMD64_MACHINETYPE), ARM64_MACHINETYPE and S390X_MACHINETYPE.
	MachineTypes map[string]string
}

// DefaultCommonTemplatesNamespace is upstream's default for
// Environment.CommonTemplatesNamespace.
const DefaultCommonTemplatesNamespace = "openshift"

// Facts is everything an operand's Desired is given besides the admin's
// HyperConverged: the Environment read in main, and what the reconciler
// learns about the cluster. It is a plain value, passed down; the
// HyperConverged an operand gets is the admin's, never edited to carry
// facts (status.nodeInfo and the like are what the status writer reports
// from these same facts, not an input).
type Facts struct {
	Environment

	// Nodes are the node facts (node roles and architectures, from the node
	// index); nil when unknown, as in an offline render: an operand then
	// takes the cluster for a highly available one and assumes no
	// architecture.
	Nodes *nodefacts.Facts

	// ClusterTLSProfile is the cluster's TLS profile (on OpenShift, the
	// APIServer configuration "cluster"); nil when there is none. The
	// HyperConverged's spec.security.tlsSecurityProfile wins over it
	// (tlsprofile.Resolve).
	ClusterTLSProfile *ocpconfigv1.TLSSecurityProfile

	// Platform is the cluster's platform: OpenShift or not, and on
	// OpenShift its ingress domain and the component routes an admin set
	// for the operator's namespace. The zero value is plain Kubernetes.
	Platform Platform

	// DataImportSchedule is the golden images' schedule the
	// HyperConverged's status records (status.dataImportSchedule: upstream
	// HCO's random pick, adopted, or the one the SSP operand derived),
	// which the SSP operand keeps; empty when none is recorded.
	DataImportSchedule string

	// Observed reads an object the operator manages as the cluster holds it
	// now (the operator's cache: no request), by kind and key; false when
	// there is none, its kind is not watched, or the facts are offline
	// (nil). The object is shared: read it, never change it. An operand sees
	// its own objects in Status; this is for a build that follows another
	// operand's object, as upstream's do (KubeVirt's
	// ExternalNetResourceInjection gate follows the network-resources-
	// injector's readiness).
	Observed func(gvk schema.GroupVersionKind, key client.ObjectKey) (*unstructured.Unstructured, bool)
}

// Observe is f.Observed, false when f has none (offline).
func (f Facts) Observe(gvk schema.GroupVersionKind, key client.ObjectKey) (*unstructured.Unstructured, bool) {
	if f.Observed == nil {
		return nil, false
	}
	return f.Observed(gvk, key)
}

// FactSources are where GatherFacts reads a HyperConverged's facts: the
// reconciler gives its cache, node index and watched kinds, the preview
// the API server itself.
type FactSources struct {
	Env Environment
	// Nodes are the node facts for the workload placement.
	Nodes func(workload *hcov1.NodePlacement) (nodefacts.Facts, error)
	// Reader reads the cluster's configuration objects (OpenShift's
	// Ingress, Network, DNS and APIServer configurations "cluster"); Direct
	// reads past any cache (a custom host's certificate Secret).
	Reader, Direct client.Reader
	// OpenShift: the cluster is OpenShift; ClusterTLS: it serves
	// OpenShift's APIServer configuration.
	OpenShift, ClusterTLS bool
	// Observed is Facts.Observed.
	Observed func(gvk schema.GroupVersionKind, key client.ObjectKey) (*unstructured.Unstructured, bool)
	// Extensions add their facts (those that are FactGatherers: the
	// OpenShift platform's, extensions/openshift).
	Extensions []Extension
}

// GatherFacts is the one gathering of the facts the operands are given for
// hc, whoever asks (the reconciler, hco-operator diff, the webhook's
// operand check): the node facts for its workload placement, the golden
// images' schedule its status records, whether the cluster is OpenShift,
// where the cluster serves it the APIServer configuration's TLS profile,
// and what the FactGatherer extensions add (on OpenShift, the platform
// facts).
func GatherFacts(ctx context.Context, hc *hcov1.HyperConverged, s FactSources) (Facts, error) {
	f := Facts{Environment: s.Env, DataImportSchedule: hc.Status.DataImportSchedule, Observed: s.Observed}
	nodes, err := s.Nodes(hc.Spec.WorkloadPlacement())
	if err != nil {
		return f, err
	}
	f.Nodes = &nodes
	f.Platform = Platform{OpenShift: s.OpenShift}
	if s.ClusterTLS {
		if f.ClusterTLSProfile, err = clustertls.Profile(ctx, s.Reader); err != nil {
			return f, err
		}
	}
	for _, ext := range s.Extensions {
		if g, ok := ext.(FactGatherer); ok {
			if err := g.GatherFacts(ctx, hc, s, &f); err != nil {
				return f, err
			}
		}
	}
	return f, nil
}

// OfflineFacts are the facts of a render without a cluster: env, nodes
// unknown (Nodes nil) and no cluster TLS profile. render and the webhook's
// validation build objects with them.
func OfflineFacts(env Environment) Facts { return Facts{Environment: env} }
