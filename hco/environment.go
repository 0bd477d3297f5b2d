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

// Environment is what the operator is told about itself and its platform,
// read once in main (flags, environment variables), passed down in Facts.
type Environment struct {
	// Namespace is the operator's: only hcov1.HyperConvergedName there is reconciled.
	Namespace string

	// Version is the operator's own version. It labels every object it
	// creates and is reported as "operator" in status.versions.
	Version string

	// OperandVersions are the versions each operand ("kubevirt", "cdi", ...)
	// reports once upgraded; an operand without one is not waited for.
	OperandVersions map[string]string

	// Images are container images by role, for operands that deploy
	// workloads themselves (e.g. "virtctl-download").
	Images map[string]string

	// CommonTemplatesNamespace is where SSP deploys the common templates by default.
	CommonTemplatesNamespace string

	// KVMEmulation: no hardware virtualization here; drops KubeVirt gates needing it.
	KVMEmulation bool

	// OperatorConditionName names the OperatorCondition OLM made in Namespace
	// (OPERATOR_CONDITION_NAME), whose Upgradeable condition the operator
	// keeps (see UpgradeableCondition); empty when not installed by OLM.
	OperatorConditionName string

	// SMBIOS is what KubeVirt gives VMs (configuration.smbios), YAML or JSON
	// with its field names (family, manufacturer, product, sku, version);
	// empty keeps KubeVirt's. Upstream HCO reads the SMBIOS variable.
	SMBIOS string

	// MachineTypes are the default VM machine types by node architecture
	// ("amd64", "arm64", "s390x": configuration.architectureConfiguration),
	// KubeVirt's where missing. Upstream HCO reads MACHINETYPE (or
	// AMD64_MACHINETYPE), ARM64_MACHINETYPE and S390X_MACHINETYPE.
	MachineTypes map[string]string
}

// DefaultCommonTemplatesNamespace is upstream's CommonTemplatesNamespace.
const DefaultCommonTemplatesNamespace = "openshift"

// Facts is what an operand's Desired gets besides the admin's HyperConverged
// (never edited to carry facts; status.nodeInfo and the like report these
// facts, no input): the Environment and what is learnt of the cluster.
type Facts struct {
	Environment

	// Nodes are the node facts (roles, architectures; from the node index),
	// nil when unknown (offline): operands then assume a highly available
	// cluster and no architecture.
	Nodes *nodefacts.Facts

	// ClusterTLSProfile is the cluster's (OpenShift's APIServer "cluster"),
	// nil if none; spec.security.tlsSecurityProfile wins (tlsprofile.Resolve).
	ClusterTLSProfile *ocpconfigv1.TLSSecurityProfile

	// Platform: OpenShift or not, and OpenShift's details (see Platform).
	Platform Platform

	// DataImportSchedule is the golden images' status.dataImportSchedule
	// (upstream's random pick, adopted, or SSP's own), kept by SSP; empty if none.
	DataImportSchedule string

	// Observed reads, by kind and key, an object the operator manages from
	// its cache (no request); false when absent, its kind unwatched, or
	// offline (nil). Shared: read only. It serves builds that follow another
	// operand's object (an operand's own go to Status), as upstream's do:
	// KubeVirt's ExternalNetResourceInjection gate follows the
	// network-resources-injector's readiness.
	Observed func(gvk schema.GroupVersionKind, key client.ObjectKey) (*unstructured.Unstructured, bool)
}

// Observe is f.Observed, false when f has none (offline).
func (f Facts) Observe(gvk schema.GroupVersionKind, key client.ObjectKey) (*unstructured.Unstructured, bool) {
	if f.Observed == nil {
		return nil, false
	}
	return f.Observed(gvk, key)
}

// FactSources are where GatherFacts reads facts: the reconciler's cache,
// node index and watched kinds, or the API server itself (the preview).
type FactSources struct {
	Env Environment
	// Nodes are the node facts for the workload placement.
	Nodes func(workload *hcov1.NodePlacement) (nodefacts.Facts, error)
	// Reader reads OpenShift's Ingress, Network, DNS and APIServer "cluster";
	// Direct reads past any cache (a custom host's certificate Secret).
	Reader, Direct client.Reader
	// OpenShift: the cluster is OpenShift; ClusterTLS: it serves the APIServer config.
	OpenShift, ClusterTLS bool
	// Observed is Facts.Observed.
	Observed func(gvk schema.GroupVersionKind, key client.ObjectKey) (*unstructured.Unstructured, bool)
	// Extensions add their facts if FactGatherers (extensions/openshift).
	Extensions []Extension
}

// GatherFacts gathers the operands' facts for hc, for any asker (reconciler,
// hco-operator diff, the webhook's operand check): node facts for its
// workload placement, the golden images' schedule from its status, OpenShift
// or not, the served APIServer TLS profile, and FactGatherer extensions' facts.
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

// OfflineFacts are the facts of a render without a cluster (render, the
// webhook's validation): env only, Nodes nil, no cluster TLS profile.
func OfflineFacts(env Environment) Facts { return Facts{Environment: env} }
