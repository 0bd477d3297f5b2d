package hco

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Items are added, put back in their place and taken out by their key,
// every other item kept as it is; a condition's transition time is kept
// while its status is the same, stamped when it changes.
func TestMergeListItems(t *testing.T) {
	now := metav1.NewTime(time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC))
	strings := ListTarget{Path: []string{"spec", "plugins"}}
	item := func(v any) []ListItem { return []ListItem{{Target: strings, Value: v}} }
	assert.Equal(t, []any{"a", "b", "ours"}, mergeListItems(strings, []any{"a", "b"}, item("ours"), false, now))
	assert.Equal(t, []any{"a", "ours", "b"}, mergeListItems(strings, []any{"a", "ours", "b"}, item("ours"), false, now), "in place")
	assert.Equal(t, []any{"a", "b"}, mergeListItems(strings, []any{"a", "ours", "b"}, item("ours"), true, now))
	assert.Equal(t, []any{"ours"}, mergeListItems(strings, nil, item("ours"), false, now))

	routes := ListTarget{Path: []string{"status", "componentRoutes"}, Key: []string{"name", "namespace"}}
	theirs := map[string]any{"name": "console", "namespace": "openshift-console", "defaultHostname": "console.example.com"}
	ours := func(host, degraded string) map[string]any {
		return map[string]any{"name": "virt-downloads", "namespace": "ns", "defaultHostname": host,
			"conditions": []any{map[string]any{"type": "Degraded", "status": degraded}}}
	}
	got := mergeListItems(routes, []any{theirs}, []ListItem{{Target: routes, Value: ours("a.example.com", "False")}}, false, now)
	assert.Equal(t, []any{theirs, map[string]any{"name": "virt-downloads", "namespace": "ns", "defaultHostname": "a.example.com",
		"conditions": []any{map[string]any{"type": "Degraded", "status": "False", "lastTransitionTime": "2026-11-26T12:00:00Z"}}}}, got)

	later := metav1.NewTime(now.Add(time.Hour))
	again := mergeListItems(routes, got, []ListItem{{Target: routes, Value: ours("a.example.com", "False")}}, false, later)
	assert.Equal(t, got, again, "nothing changed: the transition time kept")
	changed := mergeListItems(routes, got, []ListItem{{Target: routes, Value: ours("b.example.com", "True")}}, false, later)
	assert.Equal(t, "b.example.com", changed[1].(map[string]any)["defaultHostname"], "replaced in its place")
	assert.Equal(t, "2026-11-26T13:00:00Z", changed[1].(map[string]any)["conditions"].([]any)[0].(map[string]any)["lastTransitionTime"])
	assert.Equal(t, []any{theirs}, mergeListItems(routes, changed, []ListItem{{Target: routes, Value: ours("x", "False")}}, true, later), "taken out by its key")
}
