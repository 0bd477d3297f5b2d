package upstreamtest

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
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

// WithoutCreationTime drops m's metadata.creationTimestamp (a zero time,
// which the Go types send as null) and returns m.
func WithoutCreationTime(m map[string]any) map[string]any {
	if md, ok := m["metadata"].(map[string]any); ok {
		delete(md, "creationTimestamp")
	}
	return m
}

// HyperConverged is the HyperConverged the captures of upstream's console
// and image handlers were made for: its name in its default namespace, the
// CRD's defaults applied.
func HyperConverged() *hcov1.HyperConverged {
	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: hcov1.DefaultNamespace}}
	hcov1.Default(hc)
	return hc
}

// OpenShift are the facts of the OpenShift cluster those captures saw: the
// operator's version 1.20.0 (HCO_KV_IO_VERSION), in the default namespace.
func OpenShift() hco.Facts {
	f := hco.OfflineFacts(hco.Environment{Namespace: hcov1.DefaultNamespace, Version: "1.20.0"})
	f.Platform = hco.Platform{OpenShift: true, IngressDomain: "apps.example.com"}
	return f
}
