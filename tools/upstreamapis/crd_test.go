package upstreamapis

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"sigs.k8s.io/yaml"
)

// operatorCRDs pairs a CRD generated from a mirror (config/crd/operands)
// with the CRD its operator ships (testdata; see testdata/README.md).
var operatorCRDs = []struct{ generated, shipped string }{
	{
		generated: filepath.Join("..", "..", "config", "crd", "operands", "filerestore.kubevirt.io_filerestoreoperators.yaml"),
		shipped:   filepath.Join("testdata", "filerestore.kubevirt.io_filerestoreoperators.yaml"),
	},
}

// TestMirrorCRDsAreTheOperators checks that a CRD hcokit generates from a
// mirror has the schema, scope, names and subresources of the operator's own
// CRD: the API server then accepts, defaults and prunes exactly as with the
// real one. Descriptions are not compared (hcokit drops them).
func TestMirrorCRDsAreTheOperators(t *testing.T) {
	for _, c := range operatorCRDs {
		t.Run(filepath.Base(c.shipped), func(t *testing.T) {
			got, want := readCRD(t, c.generated), readCRD(t, c.shipped)
			for _, path := range [][]string{{"spec", "group"}, {"spec", "scope"}, {"spec", "names"}} {
				if g, w := dig(got, path...), dig(want, path...); !reflect.DeepEqual(g, w) {
					t.Errorf("%v: generated %v, the operator's %v", path, g, w)
				}
			}
			gv, _ := dig(got, "spec", "versions").([]any)
			wv, _ := dig(want, "spec", "versions").([]any)
			if len(gv) != len(wv) || len(wv) == 0 {
				t.Fatalf("versions: generated %d, the operator's %d", len(gv), len(wv))
			}
			for i := range wv {
				g, w := gv[i].(map[string]any), wv[i].(map[string]any)
				for _, k := range []string{"name", "served", "storage", "subresources", "schema"} {
					if !reflect.DeepEqual(g[k], w[k]) {
						t.Errorf("version %v %s differs:\ngenerated:        %v\nthe operator's:   %v", w["name"], k, g[k], w[k])
					}
				}
			}
		})
	}
}

// readCRD reads a CRD as a generic document without its descriptions.
func readCRD(t *testing.T, file string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	dropDescriptions(doc)
	return doc
}

func dropDescriptions(v any) {
	switch v := v.(type) {
	case map[string]any:
		if _, isSchema := v["type"]; isSchema {
			delete(v, "description")
		} else if _, hasProps := v["properties"]; hasProps {
			delete(v, "description")
		}
		for _, e := range v {
			dropDescriptions(e)
		}
	case []any:
		for _, e := range v {
			dropDescriptions(e)
		}
	}
}

func dig(doc map[string]any, path ...string) any {
	var cur any = doc
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[p]
	}
	return cur
}
