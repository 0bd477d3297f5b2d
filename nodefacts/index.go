package nodefacts

import (
	"context"
	"fmt"
	"maps"
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
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	hcov1 "github.com/hcokit/hcokit/api/v1"
)

// Index is what the operator keeps of the cluster's Nodes: each node's
// name and labels, and nothing else. With thousands of nodes it is most of
// what the operator holds, so it is compact: a node's labels are kept as one
// canonical string (sorted key\x00value pairs) interned with
// unique.Make, which nodes with the same labels share; the hostname label is
// left out of it when it equals the node's name, as the kubelet sets it, so
// that the labels of otherwise alike nodes are the same. A node costs its
// map entry (measured in docs/performance.md). Interned strings no node
// refers to any more are reclaimed by the garbage collector.
//
// A client-go Reflector fills it through store; the reconciler reads
// facts from it. Safe for concurrent use.
type Index struct {
	mu    sync.RWMutex
	nodes map[string]entry
	// synced is closed once the first full list has been stored.
	synced     chan struct{}
	syncedOnce sync.Once
}

// entry is one node's labels.
type entry struct {
	// labels are the sorted key\x00value pairs, \x00-separated, but the
	// hostname label when hostnameIsName.
	labels         unique.Handle[string]
	hostnameIsName bool
}

// NewIndex returns an empty index; NewSource fills it.
func NewIndex() *Index {
	return &Index{nodes: map[string]entry{}, synced: make(chan struct{})}
}

// entryOf encodes a node's labels.
func entryOf(name string, labels map[string]string) entry {
	var e entry
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
func (e entry) decode(name string, into map[string]string) {
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
func (x *Index) Facts(workload *hcov1.NodePlacement) Facts {
	x.mu.RLock()
	defer x.mu.RUnlock()
	labels := map[string]string{}
	return compute(func(yield func(string, map[string]string) bool) {
		for name, e := range x.nodes {
			e.decode(name, labels)
			if !yield(name, labels) {
				return
			}
		}
	}, workload)
}

// put stores a node and says whether its labels are new.
func (x *Index) put(obj any) bool {
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
func (x *Index) remove(obj any) bool {
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
func (x *Index) replace(list []any) bool {
	nodes := make(map[string]entry, len(list))
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

// store is the cache.ReflectorStore a Reflector writes the Nodes to:
// the index, and changed called after every change of the node facts'
// inputs (a node added, removed or relabelled).
type store struct {
	index   *Index
	changed func()
}

func (s store) notify(changed bool) error {
	if changed {
		s.changed()
	}
	return nil
}

func (s store) Add(obj any) error                  { return s.notify(s.index.put(obj)) }
func (s store) Update(obj any) error               { return s.notify(s.index.put(obj)) }
func (s store) Delete(obj any) error               { return s.notify(s.index.remove(obj)) }
func (s store) Replace(list []any, _ string) error { return s.notify(s.index.replace(list)) }
func (store) Resync() error                        { return nil }

// nodeSource is the controller's source of node events: a Reflector that
// lists and watches the Nodes' metadata into the index, and enqueues the
// request whenever the index changed. The controller's first reconcile
// waits for the first list (it is a source.SyncingSource).
type nodeSource struct {
	index   *Index
	nodes   metadata.ResourceInterface
	request reconcile.Request
}

var _ source.SyncingSource = (*nodeSource)(nil)

// NewSource returns the source that keeps index current from the Nodes'
// metadata, read with client, and enqueues request on every change.
func NewSource(index *Index, client metadata.Interface, request reconcile.Request) source.SyncingSource {
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
	store := store{index: s.index, changed: func() { queue.Add(s.request) }}
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
