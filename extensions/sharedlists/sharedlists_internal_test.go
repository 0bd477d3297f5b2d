package sharedlists

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hcostatus"
)

// Items are added, put back in their place and taken out by their key,
// every other item kept as it is; a condition's transition time is kept
// while its status is the same, stamped when it changes.
func TestMergeListItems(t *testing.T) {
	now := metav1.NewTime(time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC))
	strings := hco.ListTarget{Path: []string{"spec", "plugins"}}
	item := func(v any) []hco.ListItem { return []hco.ListItem{{Target: strings, Value: v}} }
	assert.Equal(t, []any{"a", "b", "ours"}, merge(strings, []any{"a", "b"}, item("ours"), false, now))
	assert.Equal(t, []any{"a", "ours", "b"}, merge(strings, []any{"a", "ours", "b"}, item("ours"), false, now), "in place")
	assert.Equal(t, []any{"a", "b"}, merge(strings, []any{"a", "ours", "b"}, item("ours"), true, now))
	assert.Equal(t, []any{"ours"}, merge(strings, nil, item("ours"), false, now))
	absent := []hco.ListItem{{Target: strings, Value: "ours", Absent: true}}
	assert.Equal(t, []any{"a", "b"}, merge(strings, []any{"a", "ours", "b"}, absent, false, now), "an Absent item taken out")
	assert.Equal(t, []any{"a"}, merge(strings, []any{"a"}, absent, false, now), "and not added")

	routes := hco.ListTarget{Path: []string{"status", "componentRoutes"}, Key: []string{"name", "namespace"}}
	theirs := map[string]any{"name": "console", "namespace": "openshift-console", "defaultHostname": "console.example.com"}
	ours := func(host, degraded string) map[string]any {
		return map[string]any{"name": "virt-downloads", "namespace": "ns", "defaultHostname": host,
			"conditions": []any{map[string]any{"type": "Degraded", "status": degraded}}}
	}
	got := merge(routes, []any{theirs}, []hco.ListItem{{Target: routes, Value: ours("a.example.com", "False")}}, false, now)
	assert.Equal(t, []any{theirs, map[string]any{"name": "virt-downloads", "namespace": "ns", "defaultHostname": "a.example.com",
		"conditions": []any{map[string]any{"type": "Degraded", "status": "False", "lastTransitionTime": "2026-11-26T12:00:00Z"}}}}, got)

	later := metav1.NewTime(now.Add(time.Hour))
	again := merge(routes, got, []hco.ListItem{{Target: routes, Value: ours("a.example.com", "False")}}, false, later)
	assert.Equal(t, got, again, "nothing changed: the transition time kept")
	changed := merge(routes, got, []hco.ListItem{{Target: routes, Value: ours("b.example.com", "True")}}, false, later)
	assert.Equal(t, "b.example.com", changed[1].(map[string]any)["defaultHostname"], "replaced in its place")
	assert.Equal(t, "2026-11-26T13:00:00Z", changed[1].(map[string]any)["conditions"].([]any)[0].(map[string]any)["lastTransitionTime"])
	assert.Equal(t, []any{theirs}, merge(routes, changed, []hco.ListItem{{Target: routes, Value: ours("x", "False")}}, true, later), "taken out by its key")
}

// listOperand is a ListMember with the targets given, building ConfigMaps.
type listOperand struct {
	name    string
	targets []hco.ListTarget
}

func (o listOperand) Name() string { return o.name }
func (listOperand) Kinds() []client.Object {
	return []client.Object{&corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}}}
}
func (listOperand) Desired(*hcov1.HyperConverged, hco.Facts) ([]client.Object, error) {
	return nil, nil
}
func (listOperand) Status([]client.Object) hcostatus.Component { return hcostatus.Component{} }

func (o listOperand) ListTargets() []hco.ListTarget { return o.targets }

func (listOperand) ListItems(*hcov1.HyperConverged, hco.Facts) []hco.ListItem { return nil }

// A target must be a list under spec or status of an object with a name,
// one object per kind, and of no kind an operand builds (the cache holds
// those by the operator's labels).
func TestListTargetsRefused(t *testing.T) {
	console := schema.GroupVersionKind{Group: "operator.openshift.io", Version: "v1", Kind: "Console"}
	for name, targets := range map[string][]hco.ListTarget{
		"a path under metadata": {{GVK: console, Name: "cluster", Path: []string{"metadata", "finalizers"}}},
		"no name":               {{GVK: console, Path: []string{"spec", "plugins"}}},
		"two names of a kind":   {{GVK: console, Name: "cluster", Path: []string{"spec", "plugins"}}, {GVK: console, Name: "other", Path: []string{"spec", "plugins"}}},
		"an operand's kind":     {{GVK: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, Name: "shared", Path: []string{"spec", "items"}}},
	} {
		reg, err := hco.NewRegistry(listOperand{name: "test", targets: targets})
		require.NoError(t, err)
		_, err = ServedTargets(hco.Install{Registry: reg, OpenShift: true})
		assert.Error(t, err, name)
	}
}

// itemsOperand is a ListMember that wants items.
type itemsOperand struct {
	listOperand
	items []hco.ListItem
}

func (o itemsOperand) ListItems(*hcov1.HyperConverged, hco.Facts) []hco.ListItem { return o.items }

// ListChanges reports the lists the items change, as read, with the list
// before and after; a list already right, a target not served or an object
// that does not exist is no change; a read that fails is an error, the
// other targets still reported.
func TestListChanges(t *testing.T) {
	ctx := context.Background()
	now := metav1.NewTime(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
	console := hco.ListTarget{GVK: schema.GroupVersionKind{Group: "operator.openshift.io", Version: "v1", Kind: "Console"}, Name: "cluster", Path: []string{"spec", "plugins"}}
	ingress := hco.ListTarget{GVK: schema.GroupVersionKind{Group: "config.openshift.io", Version: "v1", Kind: "Ingress"}, Name: "cluster",
		Path: []string{"status", "componentRoutes"}, Key: []string{"name", "namespace"}}
	op := itemsOperand{listOperand: listOperand{name: "test", targets: []hco.ListTarget{console, ingress}},
		items: []hco.ListItem{{Target: console, Value: "ours"}, {Target: ingress, Value: map[string]any{"name": "r", "namespace": "ns"}}}}
	objects := map[string]*unstructured.Unstructured{
		"Console": {Object: map[string]any{"spec": map[string]any{"plugins": []any{"theirs"}}}},
	}
	var readErr error
	read := func(_ context.Context, t hco.ListTarget) (*unstructured.Unstructured, bool, error) {
		if t.GVK.Kind == "Ingress" && readErr != nil {
			return nil, false, readErr
		}
		u, ok := objects[t.GVK.Kind]
		return u, ok, nil
	}
	hc := &hcov1.HyperConverged{}
	changes, err := Changes(ctx, []hco.Operand{op}, hc, hco.Facts{}, []hco.ListTarget{console, ingress}, false, now, read)
	require.NoError(t, err)
	require.Len(t, changes, 1, "the Ingress configuration does not exist")
	assert.Equal(t, []any{"theirs"}, changes[0].Was)
	assert.Equal(t, []any{"theirs", "ours"}, changes[0].List)
	assert.Same(t, objects["Console"], changes[0].Live)

	changes, err = Changes(ctx, []hco.Operand{op}, hc, hco.Facts{}, []hco.ListTarget{console, ingress}, true, now, read)
	require.NoError(t, err)
	assert.Empty(t, changes, "nothing of ours to take out")

	changes, err = Changes(ctx, []hco.Operand{op}, hc, hco.Facts{}, []hco.ListTarget{ingress}, false, now, read)
	require.NoError(t, err)
	assert.Empty(t, changes, "the Console is not a served target")

	readErr = errors.New("boom")
	changes, err = Changes(ctx, []hco.Operand{op}, hc, hco.Facts{}, []hco.ListTarget{console, ingress}, false, now, read)
	require.ErrorContains(t, err, "read Ingress cluster status.componentRoutes: boom")
	assert.Len(t, changes, 1, "the Console still reported")
}
