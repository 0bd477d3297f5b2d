package placement_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/placement"
)

// The seeds' split: infra pods on nodeType=infra nodes, workloads on
// nodeType=nested-virtualization nodes, tolerating the taint of the nodes
// reserved for VMs. Each operand gets the classes it supports.
func Example() {
	infra := &hcov1.NodePlacement{NodeSelector: map[string]string{"nodeType": "infra"}}
	workloads := &hcov1.NodePlacement{
		NodeSelector: map[string]string{"nodeType": "nested-virtualization"},
		Tolerations:  []corev1.Toleration{{Key: "key", Operator: corev1.TolerationOpEqual, Value: "kubevirt", Effect: corev1.TaintEffectNoSchedule}},
	}

	kvInfra, kvWorkloads := placement.ForKubeVirt(infra, workloads)
	fmt.Println("KubeVirt infra:", kvInfra.NodePlacement.NodeSelector)
	fmt.Println("KubeVirt workloads:", kvWorkloads.NodePlacement.NodeSelector, kvWorkloads.NodePlacement.Tolerations[0].Value)
	fmt.Println("SSP (infra only):", placement.ForSSP(infra).NodeSelector)
	fmt.Println("HostPathProvisioner (workloads only):", placement.ForHPP(workloads).NodeSelector)
	// Output:
	// KubeVirt infra: map[nodeType:infra]
	// KubeVirt workloads: map[nodeType:nested-virtualization] kubevirt
	// SSP (infra only): map[nodeType:infra]
	// HostPathProvisioner (workloads only): map[nodeType:nested-virtualization]
}

// Without a placement an operand keeps its own defaults.
func ExampleForKubeVirt_unplaced() {
	kvInfra, kvWorkloads := placement.ForKubeVirt(nil, nil)
	fmt.Println(kvInfra == nil, kvWorkloads == nil)
	// Output: true true
}
