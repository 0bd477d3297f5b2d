package upstreamtest

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// Documents reads the YAML documents of file (separated by "---" lines),
// each decoded as JSON decodes it; a document that holds nothing (a
// comment alone) is left out.
func Documents(t testing.TB, file string) []map[string]any {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	var doc []string
	flush := func() {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(strings.Join(doc, "\n")), &m); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if m != nil {
			out = append(out, m)
		}
		doc = nil
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if line == "---" {
			flush()
			continue
		}
		doc = append(doc, line)
	}
	flush()
	return out
}

// JSON is obj as JSON carries it, decoded.
func JSON(t testing.TB, obj any) map[string]any {
	t.Helper()
	raw, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// WithoutServerFields drops from m what upstream's handlers leave to the
// client and the API server: apiVersion, kind, status and the creation
// times (the object's and its pod template's). It returns m.
func WithoutServerFields(m map[string]any) map[string]any {
	delete(m, "apiVersion")
	delete(m, "kind")
	delete(m, "status")
	if md, ok := m["metadata"].(map[string]any); ok {
		delete(md, "creationTimestamp")
	}
	if spec, ok := m["spec"].(map[string]any); ok {
		if tmpl, ok := spec["template"].(map[string]any); ok {
			if md, ok := tmpl["metadata"].(map[string]any); ok {
				delete(md, "creationTimestamp")
			}
		}
	}
	return m
}
