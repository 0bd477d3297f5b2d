package integration

import (
	"context"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/hcokit/hcokit/extensions/openshift"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hco/manager"
	"github.com/hcokit/hcokit/internal/testenv"
	"github.com/hcokit/hcokit/operands"
	"github.com/hcokit/hcokit/operands/kubevirt"
)

// On OpenShift (this package's cluster serves the APIServer and Network
// configurations), an operator started on a single-stack IPv6 cluster
// network says so in kubevirt_hco_single_stack_ipv6, as upstream's does
// (extensions/openshift).
func TestSingleStackIPv6IsReported(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	gauge := func() float64 {
		t.Helper()
		reg, err := hco.NewRegistry(kubevirt.New())
		require.NoError(t, err)
		scheme, err := hco.NewScheme(operands.AddToScheme)
		require.NoError(t, err)
		metrics := prometheus.NewRegistry()
		_, _, err = manager.New(env.Config, reg, hco.Environment{Namespace: ns}, manager.Options{Manager: testenv.ManagerOptions(scheme), Metrics: metrics,
			Extensions: []hco.Extension{openshift.New()}})
		require.NoError(t, err)
		n, err := testutil.GatherAndCount(metrics, "kubevirt_hco_single_stack_ipv6")
		require.NoError(t, err)
		require.Equal(t, 1, n)
		families, err := metrics.Gather()
		require.NoError(t, err)
		for _, f := range families {
			if f.GetName() == "kubevirt_hco_single_stack_ipv6" {
				return f.GetMetric()[0].GetGauge().GetValue()
			}
		}
		return -1
	}
	require.Equal(t, float64(0), gauge(), "no Network configuration")

	// The CRD has no status subresource: the status is written with the object.
	network := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "config.openshift.io/v1", "kind": "Network", "metadata": map[string]any{"name": "cluster"},
		"spec":   map[string]any{"clusterNetwork": []any{map[string]any{"cidr": "fd01::/48", "hostPrefix": int64(64)}}, "serviceNetwork": []any{"fd02::/112"}},
		"status": map[string]any{"clusterNetwork": []any{map[string]any{"cidr": "fd01::/48", "hostPrefix": int64(64)}}},
	}}
	require.NoError(t, k.Create(ctx, network))
	t.Cleanup(func() { _ = k.Delete(context.Background(), network) })
	require.Equal(t, float64(1), gauge(), "single-stack IPv6")

	require.NoError(t, unstructured.SetNestedSlice(network.Object, []any{
		map[string]any{"cidr": "10.128.0.0/14", "hostPrefix": int64(23)}, map[string]any{"cidr": "fd01::/48", "hostPrefix": int64(64)},
	}, "status", "clusterNetwork"))
	require.NoError(t, k.Update(ctx, network))
	require.Equal(t, float64(0), gauge(), "dual stack")
}
