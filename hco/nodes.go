package hco

import (
	"context"
	"fmt"
	"iter"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"unique"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/metadata"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

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
	return nodeFacts(func(yield func(string, map[string]string) bool) {
		for i := range nodes {
			if !yield(nodes[i].Name, nodes[i].Labels) {
				return
			}
		}
	}, workload)
}

// nodeFacts is NodeFactsFrom over nodes given as name and labels. The
// labels map is only read, and only until the next node is yielded.
func nodeFacts(nodes iter.Seq2[string, map[string]string], workload *hcov1.NodePlacement) NodeFacts {
	var f NodeFacts
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
	workloadArchs, cpArchs := map[string]bool{}, map[string]bool{}
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
			workloadArchs[arch] = true
		}
	}
	delete(workloadArchs, "")
	delete(cpArchs, "")
	f.WorkloadArchitectures = slices.Sorted(maps.Keys(workloadArchs))
	f.ControlPlaneArchitectures = slices.Sorted(maps.Keys(cpArchs))
	return f
}

func hasKey(labels map[string]string, key string) bool {
	_, ok := labels[key]
	return ok
}

// nodeIndex is what the operator keeps of the cluster's Nodes: each node's
// name and labels, and nothing else. With thousands of nodes it is most of
// what the operator holds, so it is compact: a node's labels are kept as one
// canonical string (sorted key\x00value pairs) interned with
// unique.Make, which nodes with the same labels share; the hostname label is
// left out of it when it equals the node's name, as the kubelet sets it, so
// that the labels of otherwise alike nodes are the same. A node costs its
// map entry (measured in docs/performance.md). Interned strings no node
// refers to any more are reclaimed by the garbage collector.
//
// A client-go Reflector fills it through nodeStore; the reconciler reads
// facts from it. Safe for concurrent use.
type nodeIndex struct {
	mu    sync.RWMutex
	nodes map[string]nodeEntry
	// synced is closed once the first full list has been stored.
	synced     chan struct{}
	syncedOnce sync.Once
}

// nodeEntry is one node's labels.
type nodeEntry struct {
	// labels are the sorted key\x00value pairs, \x00-separated, but the
	// hostname label when hostnameIsName.
	labels         unique.Handle[string]
	hostnameIsName bool
}

func newNodeIndex() *nodeIndex {
	return &nodeIndex{nodes: map[string]nodeEntry{}, synced: make(chan struct{})}
}

// entryOf encodes a node's labels.
func entryOf(name string, labels map[string]string) nodeEntry {
	var e nodeEntry
	keys := make([]string, 0, len(labels))
	for k, v := range labels {
		if k == LabelHostname && v == name {
			e.hostnameIsName = true
			continue
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(0)
		}
		b.WriteString(k)
		b.WriteByte(0)
		b.WriteString(labels[k])
	}
	e.labels = unique.Make(b.String())
	return e
}

// decode fills into (cleared first) with the labels of the node name.
func (e nodeEntry) decode(name string, into map[string]string) {
	clear(into)
	if e.hostnameIsName {
		into[LabelHostname] = name
	}
	s := e.labels.Value()
	for s != "" {
		k, rest, _ := strings.Cut(s, "\x00")
		v, rest, _ := strings.Cut(rest, "\x00")
		into[k] = v
		s = rest
	}
}

// facts computes the node facts for the workload placement.
func (x *nodeIndex) facts(workload *hcov1.NodePlacement) NodeFacts {
	x.mu.RLock()
	defer x.mu.RUnlock()
	labels := map[string]string{}
	return nodeFacts(func(yield func(string, map[string]string) bool) {
		for name, e := range x.nodes {
			e.decode(name, labels)
			if !yield(name, labels) {
				return
			}
		}
	}, workload)
}

// put stores a node and says whether its labels are new.
func (x *nodeIndex) put(obj any) bool {
	m, err := meta.Accessor(obj)
	if err != nil {
		return false
	}
	e := entryOf(m.GetName(), m.GetLabels())
	x.mu.Lock()
	defer x.mu.Unlock()
	if old, ok := x.nodes[m.GetName()]; ok && old == e {
		return false
	}
	x.nodes[strings.Clone(m.GetName())] = e
	return true
}

// remove forgets a node and says whether it was known.
func (x *nodeIndex) remove(obj any) bool {
	name := ""
	if m, err := meta.Accessor(obj); err == nil {
		name = m.GetName()
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if _, ok := x.nodes[name]; !ok {
		return false
	}
	delete(x.nodes, name)
	return true
}

// replace stores the nodes of a full list, says whether anything changed,
// and marks the index synced.
func (x *nodeIndex) replace(list []any) bool {
	nodes := make(map[string]nodeEntry, len(list))
	for _, obj := range list {
		if m, err := meta.Accessor(obj); err == nil {
			nodes[strings.Clone(m.GetName())] = entryOf(m.GetName(), m.GetLabels())
		}
	}
	x.mu.Lock()
	changed := !maps.Equal(x.nodes, nodes)
	x.nodes = nodes
	x.mu.Unlock()
	x.syncedOnce.Do(func() { close(x.synced) })
	return changed
}

// nodeStore is the cache.ReflectorStore a Reflector writes the Nodes to:
// the index, and changed called after every change of the node facts'
// inputs (a node added, removed or relabelled).
type nodeStore struct {
	index   *nodeIndex
	changed func()
}

func (s nodeStore) notify(changed bool) error {
	if changed {
		s.changed()
	}
	return nil
}

func (s nodeStore) Add(obj any) error                  { return s.notify(s.index.put(obj)) }
func (s nodeStore) Update(obj any) error               { return s.notify(s.index.put(obj)) }
func (s nodeStore) Delete(obj any) error               { return s.notify(s.index.remove(obj)) }
func (s nodeStore) Replace(list []any, _ string) error { return s.notify(s.index.replace(list)) }
func (nodeStore) Resync() error                        { return nil }

// nodeSource is the controller's source of node events: a Reflector that
// lists and watches the Nodes' metadata into the index, and enqueues the
// request whenever the index changed. The controller's first reconcile
// waits for the first list (it is a source.SyncingSource).
type nodeSource struct {
	index   *nodeIndex
	nodes   metadata.ResourceInterface
	request reconcile.Request
}

var _ source.SyncingSource = (*nodeSource)(nil)

func newNodeSource(index *nodeIndex, client metadata.Interface, request reconcile.Request) *nodeSource {
	return &nodeSource{index: index, nodes: client.Resource(corev1.SchemeGroupVersion.WithResource("nodes")), request: request}
}

// Start runs the Reflector until ctx is done.
func (s *nodeSource) Start(ctx context.Context, queue workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
	lw := &toolscache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			return s.nodes.List(ctx, opts)
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			return s.nodes.Watch(ctx, opts)
		},
	}
	store := nodeStore{index: s.index, changed: func() { queue.Add(s.request) }}
	r := toolscache.NewReflectorWithOptions(lw, &metav1.PartialObjectMetadata{}, store, toolscache.ReflectorOptions{
		Name: "hco-nodes", TypeDescription: "Node metadata",
	})
	go r.RunWithContext(ctx)
	return nil
}

// WaitForSync returns once the first list of the Nodes is in the index.
func (s *nodeSource) WaitForSync(ctx context.Context) error {
	select {
	case <-s.index.synced:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("wait for the first list of the nodes: %w", ctx.Err())
	}
}

func (s *nodeSource) String() string { return "nodes (metadata, hco node index)" }
