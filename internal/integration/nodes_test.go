package integration

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kvv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/internal/testenv"
	"github.com/hcokit/hcokit/nodefacts"
)

// TestNodeFactsFollowTheNodes: status.infrastructureHighlyAvailable flips
// when the worker count crosses upstream's threshold (two), and nodeInfo
// lists the architectures, from the nodes' labels alone.
func TestNodeFactsFollowTheNodes(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	createHC(t, nil)
	waitNodeStatus := func(what string, ha bool, workloadArchs []string) {
		t.Helper()
		testenv.Eventually(t, what, func() error {
			hc := &hcov1.HyperConverged{}
			if err := k.Get(ctx, client.ObjectKey{Namespace: ns, Name: hcov1.HyperConvergedName}, hc); err != nil {
				return err
			}
			got := hc.Status.InfrastructureHighlyAvailable
			if got == nil || *got != ha || !slices.Equal(hc.Status.NodeInfo.WorkloadsArchitectures, workloadArchs) {
				return fmt.Errorf("infrastructureHighlyAvailable %v, nodeInfo %+v", got, hc.Status.NodeInfo)
			}
			return nil
		})
	}
	waitNodeStatus("no nodes: not highly available", false, nil)

	newNode := func(name, arch string, roles ...string) {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{nodefacts.LabelArch: arch}}}
		for _, r := range roles {
			n.Labels[r] = ""
		}
		require.NoError(t, k.Create(ctx, n))
		t.Cleanup(func() {
			if err := k.Delete(context.Background(), n); err != nil && !apierrors.IsNotFound(err) {
				t.Errorf("delete node %s: %v", name, err)
			}
		})
	}
	newNode("test-cp", "amd64", nodefacts.LabelNodeRoleControlPlane)
	newNode("test-worker-a", "amd64", nodefacts.LabelNodeRoleWorker)
	waitNodeStatus("one worker", false, []string{"amd64"})

	newNode("test-worker-b", "arm64", nodefacts.LabelNodeRoleWorker)
	waitNodeStatus("two workers", true, []string{"amd64", "arm64"})
	hc := getHC(t)
	assert.Equal(t, []string{"amd64"}, hc.Status.NodeInfo.ControlPlaneArchitectures)
	waitDefaultArch := func(what, want string) {
		t.Helper()
		testenv.Eventually(t, what, func() error {
			kv := get(t, kvKey, &kvv1.KubeVirt{})
			got := ""
			if a := kv.Spec.Configuration.ArchitectureConfiguration; a != nil {
				got = a.DefaultArchitecture
			}
			if got != want {
				return fmt.Errorf("KubeVirt defaultArchitecture %q", got)
			}
			return nil
		})
	}
	waitDefaultArch("the control plane's architecture, which a worker has", "amd64")
	testenv.Eventually(t, "the default reported as upstream's status.nodeInfo.defaultWorkloadArchitecture", func() error {
		if got := getHC(t).Status.NodeInfo.DefaultWorkloadArchitecture; got != "amd64" {
			return fmt.Errorf("defaultWorkloadArchitecture %q", got)
		}
		return nil
	})

	// One control-plane node: not highly available, so KubeVirt's control
	// plane runs one replica; three make it highly available (upstream's
	// thresholds), and KubeVirt's defaults come back.
	waitInfra := func(what string, cpHA bool, replicas *uint8) {
		t.Helper()
		testenv.Eventually(t, what, func() error {
			hc := getHC(t)
			if got := hc.Status.ControlPlaneHighlyAvailable; got == nil || *got != cpHA {
				return fmt.Errorf("controlPlaneHighlyAvailable %v", got)
			}
			kv := get(t, kvKey, &kvv1.KubeVirt{})
			var got *uint8
			if kv.Spec.Infra != nil {
				got = kv.Spec.Infra.Replicas
			}
			if (got == nil) != (replicas == nil) || (got != nil && *got != *replicas) {
				return fmt.Errorf("KubeVirt spec.infra %+v", kv.Spec.Infra)
			}
			return nil
		})
	}
	one := uint8(1)
	waitInfra("one control-plane node", false, &one)
	newNode("test-cp-2", "amd64", nodefacts.LabelNodeRoleControlPlane)
	waitInfra("two control-plane nodes", false, &one)
	newNode("test-cp-3", "amd64", nodefacts.LabelNodeRoleMaster)
	waitInfra("three control-plane nodes", true, nil)

	// A label change is an event too: the worker stops being one.
	n := &corev1.Node{}
	require.NoError(t, k.Get(ctx, client.ObjectKey{Name: "test-worker-b"}, n))
	delete(n.Labels, nodefacts.LabelNodeRoleWorker)
	require.NoError(t, k.Update(ctx, n))
	waitNodeStatus("the second worker relabelled", false, []string{"amd64"})

	// No worker with the control plane's architecture: the workers' most
	// common one (upstream's rule).
	require.NoError(t, k.Get(ctx, client.ObjectKey{Name: "test-worker-a"}, n))
	n.Labels[nodefacts.LabelArch] = "s390x"
	require.NoError(t, k.Update(ctx, n))
	waitDefaultArch("the only worker is s390x", "s390x")
}
