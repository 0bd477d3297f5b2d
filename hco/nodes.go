package hco

import (
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	hcov1 "github.com/hcokit/hcokit/api/v1"
)

// The node labels the operator reads (upstream HCO's).
const (
	LabelNodeRoleControlPlane = "node-role.kubernetes.io/control-plane"
	LabelNodeRoleMaster       = "node-role.kubernetes.io/master"
	LabelNodeRoleWorker       = "node-role.kubernetes.io/worker"
	LabelNodeRoleArbiter      = "node-role.kubernetes.io/arbiter"
	// LabelArch is the well-known label the kubelet sets to the node's
	// architecture (GOARCH), so that no Node needs reading beyond its metadata.
	LabelArch = "kubernetes.io/arch"
)

// NodeFacts are what the operator knows about the cluster's nodes, from
// their labels only.
type NodeFacts struct {
	// Workers, ControlPlane and Arbiters count the nodes with each role label.
	Workers, ControlPlane, Arbiters int
	// WorkloadArchitectures are the architectures of the nodes VMs can run
	// on (those the workload placement selects, else the workers), sorted.
	WorkloadArchitectures []string
	// ControlPlaneArchitectures are the control-plane nodes' architectures, sorted.
	ControlPlaneArchitectures []string
}

// InfrastructureHighlyAvailable is upstream's rule: at least two worker nodes.
func (f NodeFacts) InfrastructureHighlyAvailable() bool { return f.Workers >= 2 }

// ControlPlaneHighlyAvailable is upstream's rule: three control-plane
// nodes, or two and an arbiter.
func (f NodeFacts) ControlPlaneHighlyAvailable() bool {
	return f.ControlPlane >= 3 || (f.ControlPlane >= 2 && f.Arbiters >= 1)
}

// NodeFactsFrom counts nodes by role and collects their architectures. A
// node is a workload node when the workload placement's node selector and
// required node affinity select it, or, without either, when it is a worker.
func NodeFactsFrom(nodes []metav1.PartialObjectMetadata, workload *hcov1.NodePlacement) NodeFacts {
	var f NodeFacts
	isWorkload := func(n *metav1.PartialObjectMetadata) bool { return hasLabel(n, LabelNodeRoleWorker) }
	if workload != nil && (len(workload.NodeSelector) > 0 ||
		(workload.Affinity != nil && workload.Affinity.NodeAffinity != nil && workload.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil)) {
		required := nodeaffinity.GetRequiredNodeAffinity(&corev1.Pod{Spec: corev1.PodSpec{NodeSelector: workload.NodeSelector, Affinity: workload.Affinity}})
		isWorkload = func(n *metav1.PartialObjectMetadata) bool {
			ok, err := required.Match(&corev1.Node{ObjectMeta: n.ObjectMeta})
			return err == nil && ok
		}
	}
	workloadArchs, cpArchs := map[string]bool{}, map[string]bool{}
	for i := range nodes {
		n := &nodes[i]
		arch := n.Labels[LabelArch]
		if hasLabel(n, LabelNodeRoleWorker) {
			f.Workers++
		}
		if hasLabel(n, LabelNodeRoleControlPlane) || hasLabel(n, LabelNodeRoleMaster) {
			f.ControlPlane++
			cpArchs[arch] = true
		}
		if hasLabel(n, LabelNodeRoleArbiter) {
			f.Arbiters++
		}
		if isWorkload(n) {
			workloadArchs[arch] = true
		}
	}
	delete(workloadArchs, "")
	delete(cpArchs, "")
	f.WorkloadArchitectures = slices.Sorted(maps.Keys(workloadArchs))
	f.ControlPlaneArchitectures = slices.Sorted(maps.Keys(cpArchs))
	return f
}

func hasLabel(n *metav1.PartialObjectMetadata, key string) bool {
	_, ok := n.Labels[key]
	return ok
}

// keepNodeLabels trims a cached Node's metadata to its name and labels: a
// cache transform (toolscache.TransformFunc). With thousands of nodes, their
// annotations and managed fields would be most of the operator's memory.
func keepNodeLabels(in any) (any, error) {
	n, ok := in.(*metav1.PartialObjectMetadata)
	if !ok {
		return in, nil
	}
	// Fresh copies: a string of the decoded object can share the memory of
	// the whole response it came in, annotations and all.
	labels := make(map[string]string, len(n.Labels))
	for k, v := range n.Labels {
		labels[strings.Clone(k)] = strings.Clone(v)
	}
	return &metav1.PartialObjectMetadata{
		TypeMeta: n.TypeMeta,
		ObjectMeta: metav1.ObjectMeta{
			Name:            strings.Clone(n.Name),
			UID:             types.UID(strings.Clone(string(n.UID))),
			ResourceVersion: strings.Clone(n.ResourceVersion),
			Labels:          labels,
		},
	}, nil
}

// nodeMetadata is an empty Node as the cache holds it: metadata only.
func nodeMetadata() *metav1.PartialObjectMetadata {
	n := &metav1.PartialObjectMetadata{}
	n.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Node"))
	return n
}
