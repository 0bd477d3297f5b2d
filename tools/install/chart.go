package install

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// ChartDir is the Helm chart's directory, relative to the repository root.
const ChartDir = "charts/hcokit"

// chartNamespace stands for the install's namespace while the chart is
// made: config/ is rendered in it, and every place it lands (namespace
// fields, subjects, webhook services, the strings kustomize's replacements
// write) becomes {{ .Release.Namespace }}.
const chartNamespace = "hcokit-chart-namespace"

// KeepAnnotation tells helm uninstall to leave an object: the chart's CRDs
// in templates/ carry it, so that uninstalling the release deletes no custom
// resource (the HyperConverged among them).
const KeepAnnotation = "helm.sh/resource-policy"

// defaultNamespace is the namespace config/ names.
const defaultNamespace = "kubevirt-hyperconverged"

// A ChartVariant is one choice of the chart's platform and certificates, and
// the kustomization that renders the same objects.
type ChartVariant struct {
	Platform, Certificates string
	// Dir is the kustomization, under config/.
	Dir string
	// FixedNamespace: the kustomization cannot move to another namespace
	// (config/overlays/openshift: its Roles live in the platform's
	// namespaces); the chart renders it as config/default in the release's
	// namespace plus what the overlay adds or changes.
	FixedNamespace bool
}

// ChartVariants are the choices the chart offers, each equal to a
// kustomization of config/.
var ChartVariants = []ChartVariant{
	{Platform: "kubernetes", Certificates: "self-managed", Dir: "default"},
	{Platform: "kubernetes", Certificates: "cert-manager", Dir: "overlays/cert-manager"},
	{Platform: "openshift", Certificates: "self-managed", Dir: "overlays/openshift", FixedNamespace: true},
}

func (v ChartVariant) condition() string {
	return fmt.Sprintf(`and (eq .Values.platform %q) (eq .Values.certificates %q)`, v.Platform, v.Certificates)
}

// ChartOperator is a component operator the chart can leave out: the
// objects of its description (operands/<Name>/operator or
// config/operators/<Name>), switched by .Values.operators.<Name>.
type ChartOperator struct {
	Name string
	// Dir is its kustomization, relative to config/.
	Dir string
}

// ChartOperators lists the component operators' descriptions under the
// repository (the directory above configRoot), in a fixed order.
func ChartOperators(configRoot string) ([]ChartOperator, error) {
	repo := filepath.Dir(configRoot)
	var out []ChartOperator
	for _, pattern := range []string{filepath.Join(repo, "operands", "*", "operator", "kustomization.yaml"), filepath.Join(configRoot, "operators", "*", "kustomization.yaml")} {
		files, err := filepath.Glob(pattern)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			dir := filepath.Dir(f)
			name := filepath.Base(dir)
			if name == "operator" {
				name = filepath.Base(filepath.Dir(dir))
			}
			rel, err := filepath.Rel(configRoot, dir)
			if err != nil {
				return nil, err
			}
			out = append(out, ChartOperator{Name: name, Dir: rel})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// chartObject is one object of the chart: its versions by variant, and the
// operator it belongs to ("" for hcokit's own).
type chartObject struct {
	key      string
	operator string
	versions map[int]*unstructured.Unstructured
}

// Chart makes the Helm chart's files (by path under the repository root)
// from the kustomizations of ChartVariants: for each choice of platform and
// certificates, with every operator on, helm template gives what kustomize
// builds, in any namespace (but the Namespace object, which Helm's
// --create-namespace makes, and OpenShift's, whose overlay keeps the default
// namespace). The component operators' CRDs go into crds/ (Helm installs
// them first and never deletes them); every other object into templates/,
// one file per operator and one for hcokit's own.
func Chart(configRoot, version string) (map[string][]byte, error) {
	operators, err := ChartOperators(configRoot)
	if err != nil {
		return nil, err
	}
	operatorOf := map[string]string{}
	for _, op := range operators {
		objs, err := Render(configRoot, op.Dir, Edit{})
		if err != nil {
			return nil, err
		}
		for _, u := range objs {
			operatorOf[u.GetKind()+"/"+u.GetName()] = op.Name
		}
	}

	var order []string
	objects := map[string]*chartObject{}
	for i, v := range ChartVariants {
		objs, err := chartRender(configRoot, v)
		if err != nil {
			return nil, err
		}
		for _, u := range objs {
			if u.GetKind() == "Namespace" {
				continue // Helm's: helm install -n NS --create-namespace
			}
			key := u.GetKind() + "/" + u.GetNamespace() + "/" + u.GetName()
			o, ok := objects[key]
			if !ok {
				o = &chartObject{key: key, operator: operatorOf[u.GetKind()+"/"+u.GetName()], versions: map[int]*unstructured.Unstructured{}}
				objects[key] = o
				order = append(order, key)
			}
			o.versions[i] = u
		}
	}

	files := map[string][]byte{}
	templates := map[string]*bytes.Buffer{}
	for _, key := range order {
		o := objects[key]
		if crd, ok := crdFile(o); ok {
			data, err := yaml.Marshal(crd.Object)
			if err != nil {
				return nil, err
			}
			files[filepath.Join(ChartDir, "crds", crd.GetName()+".yaml")] = data
			continue
		}
		if strings.HasPrefix(key, "CustomResourceDefinition/") {
			// A CRD in templates/ (it names the install's namespace, or is
			// one platform's): kept by helm uninstall, as crds/ are.
			for _, u := range o.versions {
				a := u.GetAnnotations()
				if a == nil {
					a = map[string]string{}
				}
				a[KeepAnnotation] = "keep"
				u.SetAnnotations(a)
			}
		}
		file := "hcokit.yaml"
		if o.operator != "" {
			file = "operator-" + o.operator + ".yaml"
		}
		buf := templates[file]
		if buf == nil {
			buf = &bytes.Buffer{}
			templates[file] = buf
		}
		if err := writeTemplate(buf, o); err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
	}
	for file, buf := range templates {
		files[filepath.Join(ChartDir, "templates", file)] = append([]byte(chartHeader), buf.Bytes()...)
	}
	files[filepath.Join(ChartDir, "templates", "validate.yaml")] = []byte(validateTemplate)
	files[filepath.Join(ChartDir, "templates", "_helpers.tpl")] = []byte(helpersTemplate)
	files[filepath.Join(ChartDir, "Chart.yaml")] = []byte(fmt.Sprintf(chartYAML, version))
	values := valuesHeader
	for _, op := range operators {
		values += fmt.Sprintf("  %s: true\n", op.Name)
	}
	files[filepath.Join(ChartDir, "values.yaml")] = []byte(values)
	return files, nil
}

// chartRender renders v's kustomization in chartNamespace. One with a
// FixedNamespace is config/default in chartNamespace plus what the overlay
// adds or changes, with the default namespace replaced where a value names
// it.
func chartRender(configRoot string, v ChartVariant) ([]*unstructured.Unstructured, error) {
	dir := v.Dir
	if !v.FixedNamespace {
		return Render(configRoot, dir, Edit{Namespace: chartNamespace})
	}
	base, err := Render(configRoot, "default", Edit{Namespace: chartNamespace})
	if err != nil {
		return nil, err
	}
	plain, err := Render(configRoot, "default", Edit{})
	if err != nil {
		return nil, err
	}
	overlay, err := Render(configRoot, dir, Edit{})
	if err != nil {
		return nil, err
	}
	inPlain := map[string]int{}
	for i, u := range plain {
		inPlain[u.GetKind()+"/"+u.GetNamespace()+"/"+u.GetName()] = i
	}
	var out []*unstructured.Unstructured
	for _, u := range overlay {
		if i, ok := inPlain[u.GetKind()+"/"+u.GetNamespace()+"/"+u.GetName()]; ok && reflect.DeepEqual(plain[i].Object, u.Object) {
			out = append(out, base[i])
			continue
		}
		u = u.DeepCopy()
		u.Object = replaceValue(u.Object, defaultNamespace, chartNamespace).(map[string]any)
		out = append(out, u)
	}
	return out, nil
}

// replaceValue replaces every string value equal to from with to.
func replaceValue(v any, from, to string) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = replaceValue(e, from, to)
		}
	case []any:
		for i, e := range v {
			v[i] = replaceValue(e, from, to)
		}
	case string:
		if v == from {
			return to
		}
	}
	return v
}

// crdFile says whether o goes into crds/: a CRD the same in every variant
// that names no namespace (a component operator's; the HyperConverged CRD's
// conversion webhook names the install's Service).
func crdFile(o *chartObject) (*unstructured.Unstructured, bool) {
	if !strings.HasPrefix(o.key, "CustomResourceDefinition/") || len(o.versions) != len(ChartVariants) {
		return nil, false
	}
	first := o.versions[0]
	for _, u := range o.versions {
		if !reflect.DeepEqual(u.Object, first.Object) {
			return nil, false
		}
	}
	data, err := yaml.Marshal(first.Object)
	if err != nil || bytes.Contains(data, []byte(chartNamespace)) {
		return nil, false
	}
	return first, true
}

// writeTemplate writes o's versions, each under the condition of the
// variants that have it, within its operator's switch.
func writeTemplate(buf *bytes.Buffer, o *chartObject) error {
	type version struct {
		text     string
		variants []int
	}
	var versions []*version
	for i := range ChartVariants {
		u, ok := o.versions[i]
		if !ok {
			continue
		}
		data, err := yaml.Marshal(u.Object)
		if err != nil {
			return err
		}
		text := templateText(string(data))
		j := slices.IndexFunc(versions, func(v *version) bool { return v.text == text })
		if j < 0 {
			versions = append(versions, &version{text: text})
			j = len(versions) - 1
		}
		versions[j].variants = append(versions[j].variants, i)
	}
	var conds []string
	if o.operator != "" {
		conds = append(conds, ".Values.operators."+o.operator)
	}
	if len(versions) > 1 {
		// Versions that differ in their annotations only (the
		// HyperConverged CRD's cert-manager annotation): one text, the
		// annotations chosen by variant.
		if text, ok, err := annotationsOnly(o); err != nil {
			return err
		} else if ok {
			versions = []*version{{text: text, variants: slices.Sorted(maps.Keys(o.versions))}}
		}
	}
	for _, v := range versions {
		c := slices.Clone(conds)
		if len(v.variants) < len(ChartVariants) {
			var vc []string
			for _, i := range v.variants {
				vc = append(vc, "("+ChartVariants[i].condition()+")")
			}
			if len(vc) == 1 {
				c = append(c, vc[0])
			} else {
				c = append(c, "(or "+strings.Join(vc, " ")+")")
			}
		}
		if len(c) == 0 {
			fmt.Fprintf(buf, "---\n%s", v.text)
			continue
		}
		cond := c[0]
		if len(c) > 1 {
			cond = "and " + strings.Join(c, " ")
		}
		fmt.Fprintf(buf, "{{- if %s }}\n---\n%s{{- end }}\n", cond, v.text)
	}
	return nil
}

// annotationsOnly writes o's versions as one text when they differ in their
// annotations only, the annotations under the condition of the variants
// that have them.
func annotationsOnly(o *chartObject) (string, bool, error) {
	var rest []byte
	byText := map[string][]string{}
	var texts []string
	for i := range ChartVariants {
		u, ok := o.versions[i]
		if !ok {
			continue
		}
		u = u.DeepCopy()
		annotations := u.GetAnnotations()
		u.SetAnnotations(nil)
		data, err := yaml.Marshal(u.Object)
		if err != nil {
			return "", false, err
		}
		if rest != nil && !bytes.Equal(rest, data) {
			return "", false, nil
		}
		rest = data
		if len(annotations) == 0 {
			continue
		}
		block, err := yaml.Marshal(map[string]any{"annotations": annotations})
		if err != nil {
			return "", false, err
		}
		text := indent(templateText(string(block)), "  ")
		if _, ok := byText[text]; !ok {
			texts = append(texts, text)
		}
		byText[text] = append(byText[text], "("+ChartVariants[i].condition()+")")
	}
	restText := templateText(string(rest))
	head, tail, ok := strings.Cut(restText, "\nmetadata:\n")
	if !ok {
		return "", false, fmt.Errorf("no metadata in %q", restText)
	}
	var b strings.Builder
	b.WriteString(head + "\nmetadata:")
	for i, text := range texts {
		cond := byText[text][0]
		if len(byText[text]) > 1 {
			cond = "or " + strings.Join(byText[text], " ")
		}
		if i == 0 {
			fmt.Fprintf(&b, "\n{{- if %s }}\n", cond)
		} else {
			fmt.Fprintf(&b, "\n{{- else if %s }}\n", cond)
		}
		b.WriteString(strings.TrimSuffix(text, "\n"))
	}
	if len(texts) > 0 {
		b.WriteString("\n{{- end }}")
	}
	b.WriteString("\n" + tail)
	return b.String(), true, nil
}

func indent(text, prefix string) string {
	lines := strings.SplitAfter(text, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "")
}

// templateText makes YAML a template: Go template delimiters in it are
// written out literally (the PrometheusRules' {{ $labels... }}), the
// namespace placeholder becomes the release's namespace, and every image
// (a container's, or an environment variable's value) is pulled from
// .Values.registry when that is set.
func templateText(data string) string {
	data = strings.NewReplacer("{{", "\x00L", "}}", "\x00R").Replace(data)
	data = strings.NewReplacer("\x00L", `{{ "{{" }}`, "\x00R", `{{ "}}" }}`).Replace(data)
	data = imageLine.ReplaceAllString(data, `${1}{{ include "hcokit.image" (dict "ref" "${2}" "registry" $$.Values.registry) }}`)
	return strings.ReplaceAll(data, chartNamespace, "{{ .Release.Namespace }}")
}

// ImageRef matches an image reference: a registry host (with a dot), a
// path, and a tag or digest.
var ImageRef = regexp.MustCompile(`^[a-z0-9-]+(\.[a-z0-9-]+)+(:[0-9]+)?/[a-z0-9._/-]+(:[A-Za-z0-9._-]+|@sha256:[0-9a-f]{64})$`)

// imageLine is a YAML line whose value is an image reference.
var imageLine = regexp.MustCompile(`(?m)^(\s*(?:- )?(?:image|value): )([a-z0-9-]+(?:\.[a-z0-9-]+)+(?::[0-9]+)?/[a-z0-9._/-]+(?::[A-Za-z0-9._-]+|@sha256:[0-9a-f]{64}))$`)

const helpersTemplate = `{{- /* Generated by tools/install/cmd/chart (make chart). */ -}}
{{- /* hcokit.image: the image ref, from .registry when set (its registry host replaced, its path and digest kept). */ -}}
{{- define "hcokit.image" -}}
{{- if .registry -}}
{{ trimSuffix "/" .registry }}/{{ index (splitn "/" 2 .ref) "_1" }}
{{- else -}}
{{ .ref }}
{{- end -}}
{{- end -}}
`

const chartHeader = `# Generated by tools/install/cmd/chart (make chart) from config/: do not
# edit; change config/ and run make chart.
`

const chartYAML = `# Generated by tools/install/cmd/chart (make chart) from config/.
apiVersion: v2
name: hcokit
description: >-
  The whole virtualization stack of hcokit: the HyperConverged meta-operator
  (hco-operator, hco-webhook) and the component operators (virt-operator,
  cdi-operator, cluster-network-addons-operator, ...) at upstream HCO's
  versions; the same objects as kubectl apply -k config.
type: application
version: %[1]s
appVersion: "%[1]s"
kubeVersion: ">=1.30.0-0"
home: https://github.com/hcokit/hcokit
`

const valuesHeader = `# Generated by tools/install/cmd/chart (make chart) from config/. Each
# choice renders what the kustomization docs/install.md names renders.

# platform: kubernetes (config/default) or openshift
# (config/overlays/openshift: ssp-operator, the platform's monitoring and
# alerts, the operator's Roles in the platform's namespaces).
platform: kubernetes

# certificates of the webhooks: self-managed (hco-webhook keeps them,
# config/default) or cert-manager (config/overlays/cert-manager; kubernetes
# only, cert-manager installed first).
certificates: self-managed

# registry: when set, every image of the stack is pulled from this registry
# (a mirror that keeps the images' paths and digests):
# quay.io/kubevirt/virt-operator@sha256:... becomes
# <registry>/kubevirt/virt-operator@sha256:...
registry: ""

# operators: the component operators to install, by the operand module that
# creates their custom resource (operands/<name>/operator) or, for the two no
# module creates one for, config/operators/<name>. ssp runs on OpenShift only.
operators:
`

const validateTemplate = `{{- /* Generated by tools/install/cmd/chart (make chart): the choices' checks. */ -}}
{{- if not (has .Values.platform (list "kubernetes" "openshift")) }}
{{- fail (printf "platform %q: want kubernetes or openshift" .Values.platform) }}
{{- end }}
{{- if not (has .Values.certificates (list "self-managed" "cert-manager")) }}
{{- fail (printf "certificates %q: want self-managed or cert-manager" .Values.certificates) }}
{{- end }}
{{- if and (eq .Values.platform "openshift") (eq .Values.certificates "cert-manager") }}
{{- fail "certificates cert-manager: only with platform kubernetes (on OpenShift hco-webhook keeps them; set certificates: self-managed)" }}
{{- end }}
`

// WriteFiles writes files (paths under root), replacing dir's whole
// content: a file of dir not in files is removed.
func WriteFiles(root, dir string, files map[string][]byte) error {
	if err := os.RemoveAll(filepath.Join(root, dir)); err != nil {
		return err
	}
	for p, data := range files {
		path := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// StaleFiles lists what differs between files and dir under root: files
// that differ or are missing, and files of dir not in files.
func StaleFiles(root, dir string, files map[string][]byte) ([]string, error) {
	var stale []string
	for p, data := range files {
		have, err := os.ReadFile(filepath.Join(root, p))
		if err != nil || !bytes.Equal(have, data) {
			stale = append(stale, p)
		}
	}
	err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		if _, ok := files[rel]; !ok {
			stale = append(stale, rel)
		}
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	sort.Strings(stale)
	return stale, nil
}
