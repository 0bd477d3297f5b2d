package upstreamtest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Documents splits on "---" lines only, and leaves a comment alone out.
func TestDocuments(t *testing.T) {
	file := filepath.Join(t.TempDir(), "objects.yaml")
	content := "# deployed: true\n---\nmetadata:\n  name: a\ndata:\n  x: \"a---b\"\n---\nmetadata:\n  name: b\n"
	if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	docs := Documents(t, file)
	assert.Equal(t, []map[string]any{
		{"metadata": map[string]any{"name": "a"}, "data": map[string]any{"x": "a---b"}},
		{"metadata": map[string]any{"name": "b"}},
	}, docs)
}

// WithoutServerFields drops the server's and the client's fields, and
// keeps the rest.
func TestWithoutServerFields(t *testing.T) {
	m := map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "status": map[string]any{},
		"metadata": map[string]any{"name": "d", "creationTimestamp": nil},
		"spec":     map[string]any{"replicas": 1.0, "template": map[string]any{"metadata": map[string]any{"creationTimestamp": nil, "labels": map[string]any{}}}}}
	assert.Equal(t, map[string]any{"metadata": map[string]any{"name": "d"},
		"spec": map[string]any{"replicas": 1.0, "template": map[string]any{"metadata": map[string]any{"labels": map[string]any{}}}}}, WithoutServerFields(m))
}
