package nodefacts_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/nodefacts"
)

func node(name string, labels ...string) metav1.PartialObjectMetadata {
	n := metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{}}}
	for i := 0; i+1 < len(labels); i += 2 {
		n.Labels[labels[i]] = labels[i+1]
	}
	return n
}

func TestNodeFacts(t *testing.T) {
	const worker, cp, master, arbiter, arch = nodefacts.LabelNodeRoleWorker, nodefacts.LabelNodeRoleControlPlane, nodefacts.LabelNodeRoleMaster, nodefacts.LabelNodeRoleArbiter, nodefacts.LabelArch
	for _, tc := range []struct {
		name       string
		nodes      []metav1.PartialObjectMetadata
		workload   *hcov1.NodePlacement
		infraHA    bool
		cpHA       bool
		workloads  []string
		cpArchs    []string
		workers    int
		controlPln int
	}{
		{name: "no nodes"},
		{name: "single node, both roles", nodes: []metav1.PartialObjectMetadata{node("a", worker, "", cp, "", arch, "amd64")},
			workloads: []string{"amd64"}, cpArchs: []string{"amd64"}, workers: 1, controlPln: 1},
		{name: "two workers: infrastructure highly available", nodes: []metav1.PartialObjectMetadata{
			node("a", worker, "", arch, "amd64"), node("b", worker, "", arch, "arm64"), node("c", master, "", arch, "amd64")},
			infraHA: true, workloads: []string{"amd64", "arm64"}, cpArchs: []string{"amd64"}, workers: 2, controlPln: 1},
		{name: "three control-plane nodes", nodes: []metav1.PartialObjectMetadata{node("a", cp, ""), node("b", cp, ""), node("c", master, "")},
			cpHA: true, controlPln: 3},
		{name: "two control-plane nodes and an arbiter", nodes: []metav1.PartialObjectMetadata{node("a", cp, ""), node("b", cp, ""), node("c", arbiter, "")},
			cpHA: true, controlPln: 2},
		{name: "the workload placement decides which nodes are workload nodes",
			nodes: []metav1.PartialObjectMetadata{
				node("a", worker, "", arch, "amd64"), node("b", "virt", "yes", arch, "s390x"), node("c", worker, "", "virt", "yes", arch, "arm64")},
			workload: &hcov1.NodePlacement{NodeSelector: map[string]string{"virt": "yes"}},
			infraHA:  true, workloads: []string{"arm64", "s390x"}, workers: 2},
		{name: "required node affinity too",
			nodes: []metav1.PartialObjectMetadata{node("a", worker, "", arch, "amd64"), node("b", worker, "", "zone", "x", arch, "arm64")},
			workload: &hcov1.NodePlacement{Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
					MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"x"}}},
				}}},
			}}},
			infraHA: true, workloads: []string{"arm64"}, workers: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := nodefacts.From(tc.nodes, tc.workload)
			assert.Equal(t, tc.infraHA, f.InfrastructureHighlyAvailable())
			assert.Equal(t, tc.cpHA, f.ControlPlaneHighlyAvailable())
			assert.Equal(t, tc.workers, f.Workers)
			assert.Equal(t, tc.controlPln, f.ControlPlane)
			assert.Equal(t, tc.workloads, nilIfEmpty(f.WorkloadArchitectures))
			assert.Equal(t, tc.cpArchs, nilIfEmpty(f.ControlPlaneArchitectures))
		})
	}
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

// The default architecture is upstream's rule (pkg/internal/nodeinfo at
// 03da3cf): the control plane's when workload nodes have it, else the one
// most workload nodes have, the first in sorted order on a tie.
func TestDefaultArchitecture(t *testing.T) {
	const worker, cp, arch = nodefacts.LabelNodeRoleWorker, nodefacts.LabelNodeRoleControlPlane, nodefacts.LabelArch
	for _, tc := range []struct {
		name  string
		nodes []metav1.PartialObjectMetadata
		want  string
	}{
		{"no nodes", nil, ""},
		{"no workload nodes", []metav1.PartialObjectMetadata{node("c", cp, "", arch, "amd64")}, ""},
		{"the control plane's, though fewer workers have it", []metav1.PartialObjectMetadata{
			node("c", cp, "", arch, "amd64"), node("a", worker, "", arch, "amd64"),
			node("b", worker, "", arch, "arm64"), node("d", worker, "", arch, "arm64")}, "amd64"},
		{"no worker has the control plane's: the most common", []metav1.PartialObjectMetadata{
			node("c", cp, "", arch, "amd64"), node("a", worker, "", arch, "s390x"),
			node("b", worker, "", arch, "arm64"), node("d", worker, "", arch, "arm64")}, "arm64"},
		{"a tie: the first in sorted order", []metav1.PartialObjectMetadata{
			node("a", worker, "", arch, "s390x"), node("b", worker, "", arch, "arm64")}, "arm64"},
		{"a node without the label counts for none", []metav1.PartialObjectMetadata{
			node("a", worker, ""), node("b", worker, ""), node("d", worker, "", arch, "s390x")}, "s390x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, nodefacts.From(tc.nodes, nil).DefaultArchitecture)
		})
	}
}
