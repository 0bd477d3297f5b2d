package nodefacts

import (
	"iter"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
	// LabelHostname is the well-known label the kubelet sets to the node's
	// hostname, usually its name.
	LabelHostname = "kubernetes.io/hostname"
)

// Facts are what the operator knows about the cluster's nodes, from
// their labels only.
type Facts struct {
	// Workers, ControlPlane and Arbiters count the nodes with each role label.
	Workers, ControlPlane, Arbiters int
	// WorkloadArchitectures are the architectures of the nodes VMs can run
	// on (those the workload placement selects, else the workers), sorted.
	WorkloadArchitectures []string
	// ControlPlaneArchitectures are the control-plane nodes' architectures, sorted.
	ControlPlaneArchitectures []string
	// DefaultArchitecture is the architecture of virtual machines that
	// name none, upstream HCO's rule: the (first) control-plane
	// architecture when workload nodes have it, else the one most workload
	// nodes have (the first of them in sorted order on a tie); empty
	// without workload nodes.
	DefaultArchitecture string
}

// InfrastructureHighlyAvailable is upstream's rule: at least two worker nodes.
func (f Facts) InfrastructureHighlyAvailable() bool { return f.Workers >= 2 }

// ControlPlaneHighlyAvailable is upstream's rule: three control-plane
// nodes, or two and an arbiter.
func (f Facts) ControlPlaneHighlyAvailable() bool {
	return f.ControlPlane >= 3 || (f.ControlPlane >= 2 && f.Arbiters >= 1)
}

// From counts nodes by role and collects their architectures. A
// node is a workload node when the workload placement's node selector and
// required node affinity select it, or, without either, when it is a worker.
func From(nodes []metav1.PartialObjectMetadata, workload *hcov1.NodePlacement) Facts {
	return compute(func(yield func(string, map[string]string) bool) {
		for i := range nodes {
			if !yield(nodes[i].Name, nodes[i].Labels) {
				return
			}
		}
	}, workload)
}

// nodeFacts is From over nodes given as name and labels. The
// labels map is only read, and only until the next node is yielded.
func compute(nodes iter.Seq2[string, map[string]string], workload *hcov1.NodePlacement) Facts {
	var f Facts
	isWorkload := func(_ string, labels map[string]string) bool { return hasKey(labels, LabelNodeRoleWorker) }
	if workload != nil && (len(workload.NodeSelector) > 0 ||
		(workload.Affinity != nil && workload.Affinity.NodeAffinity != nil && workload.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil)) {
		required := nodeaffinity.GetRequiredNodeAffinity(&corev1.Pod{Spec: corev1.PodSpec{NodeSelector: workload.NodeSelector, Affinity: workload.Affinity}})
		node := &corev1.Node{} // one, refilled per node: no allocation per node
		isWorkload = func(name string, labels map[string]string) bool {
			node.Name, node.Labels = name, labels
			ok, err := required.Match(node)
			return err == nil && ok
		}
	}
	workloadArchs, cpArchs := map[string]int{}, map[string]bool{}
	for name, labels := range nodes {
		arch := labels[LabelArch]
		if hasKey(labels, LabelNodeRoleWorker) {
			f.Workers++
		}
		if hasKey(labels, LabelNodeRoleControlPlane) || hasKey(labels, LabelNodeRoleMaster) {
			f.ControlPlane++
			cpArchs[arch] = true
		}
		if hasKey(labels, LabelNodeRoleArbiter) {
			f.Arbiters++
		}
		if isWorkload(name, labels) {
			workloadArchs[arch]++
		}
	}
	delete(workloadArchs, "")
	delete(cpArchs, "")
	f.WorkloadArchitectures = slices.Sorted(maps.Keys(workloadArchs))
	f.ControlPlaneArchitectures = slices.Sorted(maps.Keys(cpArchs))
	f.DefaultArchitecture = defaultArchitecture(f.ControlPlaneArchitectures, f.WorkloadArchitectures, workloadArchs)
	return f
}

// defaultArchitecture is upstream's rule (pkg/internal/nodeinfo,
// Architectures.set, at 03da3cf): see Facts.DefaultArchitecture.
func defaultArchitecture(cp, workload []string, count map[string]int) string {
	if len(cp) > 0 && slices.Contains(workload, cp[0]) {
		return cp[0]
	}
	most := ""
	for _, arch := range workload {
		if count[arch] > count[most] {
			most = arch
		}
	}
	return most
}

func hasKey(labels map[string]string, key string) bool {
	_, ok := labels[key]
	return ok
}
