package nodefacts

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcov1 "github.com/hcokit/hcokit/api/v1"
)

func nodeObject(name string, labels map[string]string) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

// TestNodeIndexKeepsLabels: what the index gives back is each node's
// labels, whatever their shape, and alike nodes share one interned value.
func TestNodeIndexKeepsLabels(t *testing.T) {
	for _, tc := range []struct {
		name   string
		labels map[string]string
	}{
		{"no labels", nil},
		{"hostname is the name", map[string]string{LabelHostname: "n", LabelArch: "amd64", LabelNodeRoleWorker: ""}},
		{"hostname differs", map[string]string{LabelHostname: "n.example.com", LabelArch: "arm64"}},
		{"empty values", map[string]string{"a": "", "b": "", "c/d": "x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := map[string]string{"stale": "x"}
			entryOf("n", tc.labels).decode("n", got)
			want := tc.labels
			if want == nil {
				want = map[string]string{}
			}
			assert.Equal(t, want, got)
		})
	}

	a := entryOf("a", map[string]string{LabelHostname: "a", LabelArch: "amd64", LabelNodeRoleWorker: ""})
	b := entryOf("b", map[string]string{LabelHostname: "b", LabelNodeRoleWorker: "", LabelArch: "amd64"})
	assert.Equal(t, a, b, "nodes alike but for their name share their labels")
	c := entryOf("c", map[string]string{LabelHostname: "elsewhere", LabelNodeRoleWorker: "", LabelArch: "amd64"})
	assert.NotEqual(t, a, c)
}

// TestNodeIndexChanges: the store reports a change exactly when a node
// appears, goes, or its labels change, and the first full list marks it synced.
func TestNodeIndexChanges(t *testing.T) {
	x := NewIndex()
	changes := 0
	s := store{index: x, changed: func() { changes++ }}
	step := func(what string, f func() error, wantChange bool) {
		t.Helper()
		before := changes
		require.NoError(t, f())
		assert.Equal(t, wantChange, changes > before, what)
	}
	worker := map[string]string{LabelNodeRoleWorker: "", LabelArch: "amd64"}

	select {
	case <-x.synced:
		t.Fatal("synced before the first list")
	default:
	}
	step("first list, empty", func() error { return s.Replace(nil, "1") }, false)
	<-x.synced
	step("a node added", func() error { return s.Add(nodeObject("a", worker)) }, true)
	step("the same node again (a resync, say)", func() error { return s.Update(nodeObject("a", worker)) }, false)
	step("an annotation-only update", func() error {
		n := nodeObject("a", worker)
		n.Annotations = map[string]string{"x": "y"}
		return s.Update(n)
	}, false)
	step("relabelled", func() error { return s.Update(nodeObject("a", map[string]string{LabelArch: "amd64"})) }, true)
	step("a relist with the same nodes", func() error { return s.Replace([]any{nodeObject("a", map[string]string{LabelArch: "amd64"})}, "2") }, false)
	step("a relist that lost one", func() error { return s.Replace(nil, "3") }, true)
	step("deleting an unknown node", func() error { return s.Delete(nodeObject("zz", nil)) }, false)
	step("b added", func() error { return s.Add(nodeObject("b", worker)) }, true)
	step("b deleted", func() error { return s.Delete(nodeObject("b", worker)) }, true)
	assert.Empty(t, x.nodes)
}

// TestNodeIndexFacts: the index gives the facts From gives for the
// same nodes, with and without a workload placement.
func TestNodeIndexFacts(t *testing.T) {
	nodes := []metav1.PartialObjectMetadata{
		*nodeObject("cp-0", map[string]string{LabelNodeRoleControlPlane: "", LabelArch: "amd64", LabelHostname: "cp-0"}),
		*nodeObject("w-0", map[string]string{LabelNodeRoleWorker: "", LabelArch: "amd64", LabelHostname: "w-0"}),
		*nodeObject("w-1", map[string]string{LabelNodeRoleWorker: "", LabelArch: "arm64", LabelHostname: "w-1", "virt": "yes"}),
		*nodeObject("w-2", map[string]string{LabelNodeRoleWorker: "", LabelArch: "s390x", LabelHostname: "host-2"}),
	}
	x := NewIndex()
	list := make([]any, len(nodes))
	for i := range nodes {
		list[i] = &nodes[i]
	}
	x.replace(list)
	for _, workload := range []*hcov1.NodePlacement{
		nil,
		{NodeSelector: map[string]string{"virt": "yes"}},
		{NodeSelector: map[string]string{LabelHostname: "host-2"}},
		{NodeSelector: map[string]string{LabelHostname: "w-0"}},
	} {
		want := From(nodes, workload)
		assert.Equal(t, want, x.Facts(workload), "workload %+v", workload)
	}
	assert.Equal(t, []string{"s390x"}, x.Facts(&hcov1.NodePlacement{NodeSelector: map[string]string{LabelHostname: "host-2"}}).WorkloadArchitectures)
	assert.Equal(t, []string{"amd64"}, x.Facts(&hcov1.NodePlacement{NodeSelector: map[string]string{LabelHostname: "w-0"}}).WorkloadArchitectures)
}

// BenchmarkNodeIndexMemory reports what the index holds per node, for nodes
// labelled as the kubelet and a cloud provider label them (make bench
// measures the operator's RSS with 5,000 of them).
func BenchmarkNodeIndexMemory(b *testing.B) {
	const n = 5000
	objs := make([]any, n)
	for i := range objs {
		name := fmt.Sprintf("node-%d", i)
		objs[i] = nodeObject(name, map[string]string{
			LabelNodeRoleWorker: "", LabelArch: "amd64", "kubernetes.io/os": "linux",
			LabelHostname: name, "topology.kubernetes.io/zone": fmt.Sprintf("zone-%d", i%3),
		})
	}
	var perNode float64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		x := NewIndex()
		x.replace(objs)
		runtime.GC()
		runtime.ReadMemStats(&after)
		perNode = float64(after.HeapAlloc-before.HeapAlloc) / n
		runtime.KeepAlive(x)
	}
	b.ReportMetric(perNode, "B/node")
}
