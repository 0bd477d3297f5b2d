package conventions

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// stockBinary is the package whose link the guard checks.
const stockBinary = "github.com/hcokit/hcokit/cmd/hco-operator"

// unwanted names the libraries the stock binary must not link, and why: they
// are what controller-runtime's metrics filter pulled in (binary 51 -> 82 MB,
// file-backed pages 26 -> 40 MiB when it was measured). The
// metrics endpoints use metricsauth instead.
var unwanted = []struct{ prefix, why string }{
	{"k8s.io/apiserver", "the API server's library (an authenticator or authorizer from it?)"},
	{"go.opentelemetry.io", "OpenTelemetry, which k8s.io/apiserver and otelhttp bring"},
	{"google.golang.org/grpc", "gRPC, which OpenTelemetry's exporters bring"},
}

// under reports whether pkg is prefix or a package below it.
func under(pkg, prefix string) bool {
	return pkg == prefix || strings.HasPrefix(pkg, prefix+"/")
}

// importChain returns the shortest chain of imports from "from" to a
// package for which match is true (both ends included), or nil. imports maps
// each package to its direct imports.
func importChain(imports map[string][]string, from string, match func(string) bool) []string {
	parent := map[string]string{from: ""}
	queue := []string{from}
	for len(queue) > 0 {
		pkg := queue[0]
		queue = queue[1:]
		if match(pkg) {
			var chain []string
			for p := pkg; p != ""; p = parent[p] {
				chain = append(chain, p)
			}
			slices.Reverse(chain)
			return chain
		}
		for _, imp := range imports[pkg] {
			if _, seen := parent[imp]; !seen {
				parent[imp] = pkg
				queue = append(queue, imp)
			}
		}
	}
	return nil
}

// The stock binary links neither k8s.io/apiserver nor OpenTelemetry nor
// gRPC; a failure names the import chain that brings each in.
func TestStockBinaryLinksNoAPIServerLibrary(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skipf("no go command: %v", err)
	}
	cmd := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./cmd/hco-operator")
	cmd.Dir = repoRoot(t)
	// As make build links it.
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("go list -deps ./cmd/hco-operator: %v\n%s", err, stderr)
	}
	imports := map[string][]string{}
	for line := range strings.Lines(string(out)) {
		fields := strings.Fields(line)
		if len(fields) > 0 {
			imports[fields[0]] = fields[1:]
		}
	}
	if _, ok := imports[stockBinary]; !ok {
		t.Fatalf("go list -deps ./cmd/hco-operator does not list %s:\n%.500s", stockBinary, out)
	}
	for _, u := range unwanted {
		var linked int
		for pkg := range imports {
			if under(pkg, u.prefix) {
				linked++
			}
		}
		if linked == 0 {
			continue
		}
		chain := importChain(imports, stockBinary, func(pkg string) bool { return under(pkg, u.prefix) })
		t.Errorf("cmd/hco-operator links %d packages of %s, %s; the shortest import chain:\n\t%s",
			linked, u.prefix, u.why, strings.Join(chain, "\n\t-> "))
	}
}

func TestImportChain(t *testing.T) {
	imports := map[string][]string{
		"main":              {"fmt", "lib", "metrics"},
		"lib":               {"fmt"},
		"metrics":           {"filters", "fmt"},
		"filters":           {"k8s.io/apiserver/pkg/authn", "k8s.io/apiserverx"},
		"k8s.io/apiserverx": nil,
	}
	isAPIServer := func(pkg string) bool { return under(pkg, "k8s.io/apiserver") }
	for _, tc := range []struct {
		from  string
		match func(string) bool
		want  []string
	}{
		{"main", isAPIServer, []string{"main", "metrics", "filters", "k8s.io/apiserver/pkg/authn"}},
		{"lib", isAPIServer, nil},
		{"main", func(pkg string) bool { return pkg == "main" }, []string{"main"}},
	} {
		if got := importChain(imports, tc.from, tc.match); !slices.Equal(got, tc.want) {
			t.Errorf("from %s: %v, want %v", tc.from, got, tc.want)
		}
	}
}
