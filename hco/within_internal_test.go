package hco

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestWithin(t *testing.T) {
	tests := []struct {
		name       string
		want, have any
		in         bool
	}{
		{"equal", map[string]any{"a": int64(1)}, map[string]any{"a": int64(1)}, true},
		{"a default beside", map[string]any{"a": int64(1)}, map[string]any{"a": int64(1), "preemptionPolicy": "PreemptLowerPriority"}, true},
		{"a default inside a list item", map[string]any{"ports": []any{map[string]any{"port": int64(443)}}},
			map[string]any{"ports": []any{map[string]any{"port": int64(443), "protocol": "TCP"}}}, true},
		{"another value", map[string]any{"a": int64(1)}, map[string]any{"a": int64(2)}, false},
		{"missing", map[string]any{"a": int64(1)}, map[string]any{}, false},
		{"an item more", map[string]any{"l": []any{"x"}}, map[string]any{"l": []any{"x", "y"}}, false},
		{"a map where a value is wanted", map[string]any{"a": "x"}, map[string]any{"a": map[string]any{}}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.in, within(tc.want, tc.have)) })
	}
}

func TestEventNoteFitsAnEvent(t *testing.T) {
	assert.Equal(t, "short", eventNote("short"))
	long := eventNote(string(make([]byte, 3000)))
	assert.Len(t, long, maxEventNote)
	assert.Contains(t, long, "conditions hold it whole")
}

// BenchmarkJSONEqual is why jsonEqual is not equality.Semantic.DeepEqual,
// whose answers it gives (TestJSONEqualIsSemanticDeepEqual): the operator
// compares each object it holds on every reconcile.
func BenchmarkJSONEqual(b *testing.B) {
	obj := map[string]any{}
	for i := range 40 {
		obj[fmt.Sprintf("member%d", i)] = map[string]any{"n": int64(i), "s": "value", "l": []any{"a", "b", map[string]any{"k": true}}}
	}
	same := runtime.DeepCopyJSON(obj)
	b.Run("jsonEqual", func(b *testing.B) {
		for b.Loop() {
			jsonEqual(obj, same)
		}
	})
	b.Run("equality.Semantic", func(b *testing.B) {
		for b.Loop() {
			equality.Semantic.DeepEqual(obj, same)
		}
	})
}
