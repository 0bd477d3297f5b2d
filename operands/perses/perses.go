package perses

import (
	"bufio"
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hcostatus"
)

// Name is the operand's registry name.
const Name = "perses"

// Component is the objects' component label: upstream's
// AppComponentMonitoring.
const Component = "monitoring"

// DatasourceName is the name of upstream's PersesDatasource.
const DatasourceName = "perses-thanos-datasource"

// The kinds the module builds: the Perses operator's (perses.dev/v1alpha1,
// rhobs/perses-operator, which upstream pins at 78eb619430df).
var (
	DashboardKind  = schema.GroupVersionKind{Group: "perses.dev", Version: "v1alpha1", Kind: "PersesDashboard"}
	DatasourceKind = schema.GroupVersionKind{Group: "perses.dev", Version: "v1alpha1", Kind: "PersesDatasource"}
)

// resources are upstream's files (resources/README.md).
//
//go:embed resources/dashboards/*.yaml resources/datasources/*.yaml
var resources embed.FS

// DefaultDashboards returns upstream's dashboards: a file system of one
// PersesDashboard per .yaml file, as WithDashboards takes it.
func DefaultDashboards() fs.FS { return sub("resources/dashboards") }

// DefaultDatasources returns upstream's datasource: a file system of one
// PersesDatasource per .yaml file, as WithDatasources takes it.
func DefaultDatasources() fs.FS { return sub("resources/datasources") }

func sub(dir string) fs.FS {
	s, err := fs.Sub(resources, dir)
	if err != nil {
		panic(err) // a constant, valid path of the embedded files
	}
	return s
}

// Operand builds the Perses dashboards and datasource. The zero value is
// the stock operand, with upstream's files.
type Operand struct {
	// cfg is nil for the zero value; a pointer keeps Operand comparable.
	cfg *config
}

// config is what the options set, and the objects read from it once, on
// first use (a stock binary off OpenShift never reads them: they would be
// most of its heap's operand data).
type config struct {
	dashboards, datasources       fs.FS
	ownDashboards, ownDatasources bool
	once                          sync.Once
	objects                       []*unstructured.Unstructured
	err                           error
}

// load reads the objects once.
func (c *config) load() {
	c.once.Do(func() { c.objects, c.err = c.read() })
}

// Option changes the stock operand; see New.
type Option func(*config)

// WithDashboards replaces upstream's dashboards with those of fsys: one
// PersesDashboard (perses.dev/v1alpha1) per .yaml file, in any directory,
// read in lexical order, as upstream reads its own; nil or an empty file
// system means none. Each object is built as upstream builds its own: in
// the HyperConverged's namespace, whatever the file says, with the
// operator's labels instead of the file's, the rest as in the file. A file
// that is not one such object with a valid name, or a name used twice,
// makes Desired fail, naming the file (Read checks a file system alike).
func WithDashboards(fsys fs.FS) Option {
	return func(c *config) { c.dashboards, c.ownDashboards = fsys, true }
}

// WithDatasources replaces upstream's datasource with those of fsys: one
// PersesDatasource per .yaml file, as WithDashboards.
func WithDatasources(fsys fs.FS) Option {
	return func(c *config) { c.datasources, c.ownDatasources = fsys, true }
}

var (
	_ hco.Operand       = Operand{}
	_ hco.OpenShiftOnly = Operand{}
)

// New returns the Perses operand, changed by opts. The files are read
// here, once, not on every reconcile (a zero Operand reads upstream's when
// asked).
func New(opts ...Option) Operand {
	c := &config{dashboards: DefaultDashboards(), datasources: DefaultDatasources()}
	for _, o := range opts {
		o(c)
	}
	return Operand{cfg: c}
}

// read reads the dashboards, then the datasources.
func (c *config) read() ([]*unstructured.Unstructured, error) {
	source := func(own bool, option, what string) string {
		if own {
			return "the distribution's " + what + " (perses." + option + ")"
		}
		return "upstream's " + what + " (embedded)"
	}
	dashboards, err := Read(c.dashboards, DashboardKind)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source(c.ownDashboards, "WithDashboards", "dashboards"), err)
	}
	datasources, err := Read(c.datasources, DatasourceKind)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source(c.ownDatasources, "WithDatasources", "datasources"), err)
	}
	return append(dashboards, datasources...), nil
}

// Read returns the objects of fsys, one per .yaml file (other files are
// left out), in lexical order of their paths, each of kind, as the files
// say them. A file that is not a single object of that kind with a valid
// name, or a name used twice, is an error naming the file; nil fsys has no
// objects.
func Read(fsys fs.FS, kind schema.GroupVersionKind) ([]*unstructured.Unstructured, error) {
	if fsys == nil {
		return nil, nil
	}
	var out []*unstructured.Unstructured
	seen := map[string]string{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || path.Ext(d.Name()) != ".yaml" {
			return nil
		}
		u, err := readFile(fsys, p, kind)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if first, ok := seen[u.GetName()]; ok {
			return fmt.Errorf("%s: metadata.name %q is %s's too", p, u.GetName(), first)
		}
		seen[u.GetName()] = p
		out = append(out, u)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// readFile reads the one object of kind in file p.
func readFile(fsys fs.FS, p string, kind schema.GroupVersionKind) (*unstructured.Unstructured, error) {
	raw, err := fs.ReadFile(fsys, p)
	if err != nil {
		return nil, err
	}
	var objs []map[string]any
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(raw)))
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		j, err := yaml.YAMLToJSON(doc)
		if err != nil {
			return nil, err
		}
		if string(bytes.TrimSpace(j)) == "null" {
			continue // an empty document, or comments only
		}
		var m map[string]any
		if err := utiljson.Unmarshal(j, &m); err != nil {
			return nil, fmt.Errorf("not an object: %w", err)
		}
		objs = append(objs, m)
	}
	if len(objs) != 1 {
		return nil, fmt.Errorf("holds %d objects, want one %s", len(objs), kind.Kind)
	}
	u := &unstructured.Unstructured{Object: objs[0]}
	if got := u.GroupVersionKind(); got != kind {
		return nil, fmt.Errorf("apiVersion %q, kind %q: want %q, %q", u.GetAPIVersion(), u.GetKind(), kind.GroupVersion().String(), kind.Kind)
	}
	if _, ok := u.Object["metadata"].(map[string]any); !ok {
		return nil, fmt.Errorf("metadata: want an object")
	}
	if msgs := validation.IsDNS1123Subdomain(u.GetName()); len(msgs) > 0 {
		return nil, fmt.Errorf("metadata.name %q: %s", u.GetName(), strings.Join(msgs, "; "))
	}
	return u, nil
}

// Name implements hco.Operand.
func (Operand) Name() string { return Name }

// OpenShiftOnly implements hco.OpenShiftOnly: upstream deploys them on
// OpenShift only.
func (Operand) OpenShiftOnly() bool { return true }

// Kinds implements hco.Operand.
func (Operand) Kinds() []client.Object {
	dashboard, datasource := &unstructured.Unstructured{}, &unstructured.Unstructured{}
	dashboard.SetGroupVersionKind(DashboardKind)
	datasource.SetGroupVersionKind(DatasourceKind)
	return []client.Object{dashboard, datasource}
}

// Objects returns the operand's objects as its files say them (before
// Desired sets their namespace and labels): the dashboards, then the
// datasources; a fresh copy on every call. The error names the file at
// fault and the option that gave it.
func (o Operand) Objects() ([]*unstructured.Unstructured, error) {
	c := o.cfg
	if c == nil {
		c = &config{dashboards: DefaultDashboards(), datasources: DefaultDatasources()}
	}
	c.load()
	if c.err != nil {
		return nil, c.err
	}
	out := make([]*unstructured.Unstructured, len(c.objects))
	for i, u := range c.objects {
		out[i] = u.DeepCopy()
	}
	return out, nil
}

// Desired implements hco.Operand: on OpenShift, the dashboards, then the
// datasources, each in hc's namespace with the operator's labels (both
// replace the file's, as upstream's initDashboards and initDatasource do);
// nothing elsewhere, or without files.
func (o Operand) Desired(hc *hcov1.HyperConverged, facts hco.Facts) ([]client.Object, error) {
	if !facts.Platform.OpenShift {
		return nil, nil
	}
	objs, err := o.Objects()
	if err != nil || len(objs) == 0 {
		return nil, err
	}
	out := make([]client.Object, len(objs))
	for i, u := range objs {
		u.SetNamespace(hc.Namespace)
		u.SetLabels(hco.Labels(hc, facts.Environment, Component))
		out[i] = u
	}
	return out, nil
}

// StatusKind names the component in the HyperConverged's condition reasons.
const StatusKind = "Perses"

// Status implements hco.Operand: available once its objects exist (they
// report no condition that upstream reads; upstream's Perses controller
// reports nothing to the HyperConverged).
func (Operand) Status(observed []client.Object) hcostatus.Component {
	for _, o := range observed {
		if u, ok := o.(*unstructured.Unstructured); ok && u != nil {
			if gvk := u.GroupVersionKind(); gvk == DashboardKind || gvk == DatasourceKind {
				return hcostatus.Found(StatusKind)
			}
		}
	}
	return hcostatus.NotFound(StatusKind)
}
