// Package conventions checks, without a cluster, the house rules of
// ../shared/conventions.md that a program can check: every package has a
// doc.go, every exported identifier a doc comment, the translators
// import no client, no os and no logger (and, in link_test.go, the stock
// binary links no k8s.io/apiserver).
package conventions

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test")
		}
		dir = parent
	}
}

// packages maps each directory of the root module holding non-test Go files
// to those files, parsed with comments. Tool modules are left out.
func packages(t *testing.T) map[string][]*ast.File {
	t.Helper()
	root := repoRoot(t)
	fset := token.NewFileSet()
	out := map[string][]*ast.File{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (strings.HasPrefix(name, ".") || name == "bin" || name == "testdata" ||
				fileExists(filepath.Join(path, "go.mod"))) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		out[rel] = append(out[rel], f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func TestEveryPackageHasADocGo(t *testing.T) {
	root := repoRoot(t)
	for dir := range packages(t) {
		if !fileExists(filepath.Join(root, dir, "doc.go")) {
			t.Errorf("%s has no doc.go saying what the package is for and what it must not do", dir)
		}
	}
}

func TestExportedIdentifiersAreDocumented(t *testing.T) {
	for dir, files := range packages(t) {
		for _, f := range files {
			if isGenerated(f) {
				continue
			}
			for _, decl := range f.Decls {
				switch d := decl.(type) {
				case *ast.FuncDecl:
					if d.Name.IsExported() && d.Doc == nil && exportedReceiver(d) {
						t.Errorf("%s: func %s has no doc comment", dir, d.Name.Name)
					}
				case *ast.GenDecl:
					for _, spec := range d.Specs {
						switch s := spec.(type) {
						case *ast.TypeSpec:
							if s.Name.IsExported() && d.Doc == nil && s.Doc == nil {
								t.Errorf("%s: type %s has no doc comment", dir, s.Name.Name)
							}
						case *ast.ValueSpec:
							for _, n := range s.Names {
								// A const or var block's comment documents its members.
								if n.IsExported() && d.Doc == nil && s.Doc == nil && s.Comment == nil {
									t.Errorf("%s: %s has no doc comment", dir, n.Name)
								}
							}
						}
					}
				}
			}
		}
	}
}

func isGenerated(f *ast.File) bool {
	for _, c := range f.Comments {
		if strings.Contains(c.Text(), "Code generated") || strings.Contains(c.Text(), "DO NOT EDIT") {
			return true
		}
	}
	return false
}

// exportedReceiver reports whether a method's receiver type is exported (a
// function without a receiver counts as exported).
func exportedReceiver(d *ast.FuncDecl) bool {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return true
	}
	typ := d.Recv.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	if idx, ok := typ.(*ast.IndexExpr); ok {
		typ = idx.X
	}
	id, ok := typ.(*ast.Ident)
	return ok && id.IsExported()
}

func TestTranslatorsArePure(t *testing.T) {
	forbidden := []string{"os", "log", "log/slog", "k8s.io/klog", "sigs.k8s.io/controller-runtime", "k8s.io/client-go", "github.com/go-logr/logr"}
	pkgs := packages(t)
	for _, dir := range []string{"placement", "featuregates", "migration", "hostdevices", "tlsprofile"} {
		files, ok := pkgs[dir]
		if !ok {
			t.Fatalf("translator package %s not found", dir)
		}
		for _, f := range files {
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if slices.ContainsFunc(forbidden, func(p string) bool { return path == p || strings.HasPrefix(path, p+"/") }) {
					t.Errorf("translator %s imports %s; translators import only API types", dir, path)
				}
			}
		}
		// A package-level var is a table, read only: no function of the
		// package assigns it, increments it or takes its address.
		vars := map[string]bool{}
		topSpecs := map[*ast.ValueSpec]bool{}
		for _, f := range files {
			for _, decl := range f.Decls {
				if g, ok := decl.(*ast.GenDecl); ok && g.Tok == token.VAR {
					for _, spec := range g.Specs {
						topSpecs[spec.(*ast.ValueSpec)] = true
						for _, n := range spec.(*ast.ValueSpec).Names {
							if n.Name != "_" {
								vars[n.Name] = true
							}
						}
					}
				}
			}
		}
		for _, f := range files {
			ast.Inspect(f, func(n ast.Node) bool {
				var targets []ast.Expr
				switch x := n.(type) {
				case *ast.AssignStmt:
					targets = x.Lhs
				case *ast.IncDecStmt:
					targets = []ast.Expr{x.X}
				case *ast.UnaryExpr:
					if x.Op == token.AND {
						targets = []ast.Expr{x.X}
					}
				}
				for _, e := range targets {
					if root := rootIdent(e); root != nil && vars[root.Name] && packageLevel(root, topSpecs) {
						t.Errorf("translator %s writes its package-level var %s: translators keep no state", dir, root.Name)
					}
				}
				return true
			})
		}
	}
}

// rootIdent is the variable an assignment target starts from (x in x,
// x.f, x[i], *x), or nil.
func rootIdent(e ast.Expr) *ast.Ident {
	for {
		switch x := e.(type) {
		case *ast.Ident:
			return x
		case *ast.SelectorExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		default:
			return nil
		}
	}
}

// packageLevel reports whether id resolves to a package-level var: one of
// top, or unresolved (the parser resolves a file's own scopes only, so a
// package-level var of another file is unresolved).
func packageLevel(id *ast.Ident, top map[*ast.ValueSpec]bool) bool {
	if id.Obj == nil {
		return true
	}
	spec, ok := id.Obj.Decl.(*ast.ValueSpec)
	return ok && top[spec]
}
