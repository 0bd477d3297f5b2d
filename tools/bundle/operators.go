package bundle

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// UpstreamCommit is the upstream HCO commit the component operators'
// descriptions are imported from (its deploy/ directory and OLM bundle).
const UpstreamCommit = "03da3cff7"

// upstreamCSV is the CSV of upstream's OLM bundle at UpstreamCommit, inside
// its deploy/ directory: its webhookdefinitions are the component operators'
// webhooks (deploy/webhooks.yaml is stale at that commit).
const upstreamCSV = "olm-catalog/community-kubevirt-hyperconverged/1.20.0/manifests/kubevirt-hyperconverged-operator.v1.20.0.clusterserviceversion.yaml"

// TableFile is the one table of the component operators' versions and
// image digests, relative to the repository root.
const TableFile = "config/operators/versions.csv"

// Operator is one component operator of the install: the Deployment upstream
// HCO's install deploys, and where its description lives.
type Operator struct {
	// Deployment is its Deployment's name (and its label "name").
	Deployment string
	// Dir is its description's directory, relative to the repository root:
	// beside the operand module that creates its custom resource.
	Dir string
	// CRDs are the files of upstream's deploy/crds it owns.
	CRDs []string
	// Webhook is the name of its ValidatingWebhookConfiguration (upstream's
	// deploy/webhooks.yaml name), when it serves webhooks.
	Webhook string
}

// Operators are the component operators of the stock install, in the order
// of upstream's deploy/operator.yaml, and the virtctl download server.
// hcokit's own workloads (hyperconverged-cluster-operator and -webhook) are
// config/manager and config/webhook. Which install carries which is the
// kustomizations' business: config/operators lists those of plain
// Kubernetes; ssp-operator and the download server, OpenShift-only in
// upstream's deploy.sh, are in config/overlays/openshift and the OLM bundle.
var Operators = []Operator{
	{Deployment: "cluster-network-addons-operator", Dir: "operands/cnao/operator", CRDs: []string{"cluster-network-addons00.crd.yaml"}},
	{Deployment: "virt-operator", Dir: "operands/kubevirt/operator", CRDs: []string{"kubevirt00.crd.yaml"}},
	{Deployment: "ssp-operator", Dir: "operands/ssp/operator", CRDs: []string{"scheduling-scale-performance00.crd.yaml"},
		Webhook: "vssp.kb.io"},
	{Deployment: "cdi-operator", Dir: "operands/cdi/operator", CRDs: []string{"containerized-data-importer00.crd.yaml"}},
	{Deployment: "hostpath-provisioner-operator", Dir: "operands/hpp/operator", CRDs: []string{"hostpath-provisioner00.crd.yaml"},
		Webhook: "hostpathprovisioner.kubevirt.io"},
	{Deployment: "aaq-operator", Dir: "operands/aaq/operator", CRDs: []string{"application-aware-quota00.crd.yaml"}},
	{Deployment: "kubevirt-migration-operator", Dir: "operands/migcontroller/operator", CRDs: []string{"migration-operator00.crd.yaml"}},
	{Deployment: "inflightoperations-controller-manager", Dir: "config/operators/inflightoperations", CRDs: []string{"inflightoperations00.crd.yaml", "inflightoperations01.crd.yaml"}},
	{Deployment: "virt-platform-autopilot", Dir: "config/operators/autopilot"},
	{Deployment: "vm-file-restore-operator-controller-manager", Dir: "operands/filerestore/operator", CRDs: []string{"vm-file-restore-operator00.crd.yaml", "vm-file-restore-operator01.crd.yaml"}},
	// The virtctl download server: upstream's install deploys it, its
	// operator makes the Service, Route and ConsoleCLIDownload
	// (operands/clidownload).
	{Deployment: "hyperconverged-cluster-cli-download", Dir: "operands/clidownload/operator"},
}

// A generated file's first lines.
func generatedHeader(what string) string {
	return "# " + what + "\n# Imported from upstream HCO " + UpstreamCommit + " (deploy/) by tools/bundle/cmd/operators;\n" +
		"# versions and digests come from " + TableFile + ": edit that table, then make generate.\n"
}

// ImportOperators reads upstream HCO's deploy/ directory (deployDir) and
// returns the files of every Operator's description, by path relative to the
// repository root, and the table of versions and digests. Objects are
// assigned to an operator by their "name" label (the Deployment's, or its
// service account's for RBAC), as upstream's deploy.sh selects them.
func ImportOperators(deployDir string) (map[string][]byte, error) {
	read := func(name string) ([]*unstructured.Unstructured, error) {
		data, err := os.ReadFile(filepath.Join(deployDir, name))
		if err != nil {
			return nil, err
		}
		return decodeYAML(data)
	}
	var all []*unstructured.Unstructured
	for _, f := range []string{"service_account.yaml", "cluster_role.yaml", "cluster_role_binding.yaml", "operator.yaml"} {
		objs, err := read(f)
		if err != nil {
			return nil, err
		}
		all = append(all, objs...)
	}
	csvData, err := os.ReadFile(filepath.Join(deployDir, upstreamCSV))
	if err != nil {
		return nil, err
	}
	upCSV := &v1alpha1.ClusterServiceVersion{}
	if err := yaml.Unmarshal(csvData, upCSV); err != nil {
		return nil, fmt.Errorf("%s: %w", upstreamCSV, err)
	}

	files := map[string][]byte{}
	var table [][]string
	for _, op := range Operators {
		var deployment *unstructured.Unstructured
		for _, o := range all {
			if o.GetKind() == "Deployment" && o.GetName() == op.Deployment {
				deployment = o
			}
		}
		if deployment == nil {
			return nil, fmt.Errorf("upstream's operator.yaml has no Deployment %s", op.Deployment)
		}
		sa, _, _ := unstructured.NestedString(deployment.Object, "spec", "template", "spec", "serviceAccountName")
		var workload, rbac []*unstructured.Unstructured
		seen := map[string]bool{}
		for _, o := range all {
			label := o.GetLabels()["name"]
			switch {
			case o.GetKind() == "Deployment" || o.GetKind() == "Service":
				if label != op.Deployment && o.GetName() != op.Deployment {
					continue
				}
				k := o.GetKind() + "/" + o.GetName()
				if seen[k] { // upstream lists ssp-operator-service twice
					continue
				}
				seen[k] = true
				workload = append(workload, o)
			case label == sa:
				rbac = append(rbac, o)
			}
		}
		for _, o := range append(workload, rbac...) {
			if o.GetNamespace() == "" && namespaced(o.GetKind()) {
				o.SetNamespace("kubevirt-hyperconverged")
			}
		}
		for _, c := range containers(deployment) {
			table = append(table, []string{op.Deployment, c.name, "", c.image})
			for _, e := range c.env {
				if e.image || versionEnv(e.name) {
					table = append(table, []string{op.Deployment, c.name, e.name, e.value})
				}
			}
		}
		resources := []string{"operator.yaml", "rbac.yaml"}
		files[filepath.Join(op.Dir, "operator.yaml")], err = encodeYAML(generatedHeader(op.Deployment+": its Deployment and Services."), workload)
		if err != nil {
			return nil, err
		}
		files[filepath.Join(op.Dir, "rbac.yaml")], err = encodeYAML(generatedHeader(op.Deployment+": its ServiceAccount and what it may do."), rbac)
		if err != nil {
			return nil, err
		}
		if op.Webhook != "" {
			vwc, err := webhookConfiguration(op, upCSV, workload)
			if err != nil {
				return nil, err
			}
			files[filepath.Join(op.Dir, "webhook.yaml")], err = encodeYAML(generatedHeader(op.Deployment+": its admission webhooks, as upstream's CSV declares them (webhookdefinitions); the caBundle is injected by the install's certificate mechanism."), []*unstructured.Unstructured{vwc})
			if err != nil {
				return nil, err
			}
			resources = append(resources, "webhook.yaml")
		}
		for _, crd := range op.CRDs {
			data, err := os.ReadFile(filepath.Join(deployDir, "crds", crd))
			if err != nil {
				return nil, err
			}
			// Byte for byte upstream's: TestOperatorCRDsAreUpstreams checks
			// their git blob ids.
			files[filepath.Join(op.Dir, "crds", crd)] = data
			resources = append(resources, "crds/"+crd)
		}
		k := "# " + op.Deployment + ", as upstream HCO " + UpstreamCommit + " installs it: a kustomization of\n" +
			"# its own, so that an install lists the component operators it wants\n" +
			"# (config/operators for the stock set). Generated by tools/bundle/cmd/operators.\n" +
			"apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n"
		for _, r := range resources {
			k += "- " + r + "\n"
		}
		files[filepath.Join(op.Dir, "kustomization.yaml")] = []byte(k)
	}
	var buf bytes.Buffer
	buf.WriteString("deployment,container,env,value\n")
	w := csv.NewWriter(&buf)
	if err := w.WriteAll(table); err != nil {
		return nil, err
	}
	files[TableFile] = buf.Bytes()
	return files, nil
}

// namespaced says whether an object of the install's kinds lives in a
// namespace.
func namespaced(kind string) bool {
	switch kind {
	case "ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition", "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration", "Namespace", "PriorityClass":
		return false
	}
	return true
}

// versionEnv says whether an environment variable of a component operator
// carries a version that a bump changes.
func versionEnv(name string) bool { return strings.HasSuffix(name, "_VERSION") }

type containerEnv struct {
	name, value string
	image       bool
}

type containerImages struct {
	name, image string
	env         []containerEnv
}

// containers lists a Deployment's containers with their image and their
// environment variables whose values are literal.
func containers(d *unstructured.Unstructured) []containerImages {
	cs, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
	var out []containerImages
	for _, c := range cs {
		c, _ := c.(map[string]any)
		ci := containerImages{}
		ci.name, _ = c["name"].(string)
		ci.image, _ = c["image"].(string)
		env, _ := c["env"].([]any)
		for _, e := range env {
			e, _ := e.(map[string]any)
			name, _ := e["name"].(string)
			value, ok := e["value"].(string)
			if !ok {
				continue
			}
			ci.env = append(ci.env, containerEnv{name: name, value: value, image: strings.Contains(value, "@sha256:")})
		}
		out = append(out, ci)
	}
	return out
}

// webhookConfiguration builds op's ValidatingWebhookConfiguration from
// upstream's CSV webhookdefinitions of its Deployment, pointed at the Service
// of the install that selects it, under the name upstream's
// deploy/webhooks.yaml gives it (so that the switch from upstream's install
// replaces that object in place).
func webhookConfiguration(op Operator, csv *v1alpha1.ClusterServiceVersion, workload []*unstructured.Unstructured) (*unstructured.Unstructured, error) {
	var service *unstructured.Unstructured
	for _, o := range workload {
		if o.GetKind() == "Service" {
			service = o
		}
	}
	if service == nil {
		return nil, fmt.Errorf("%s serves webhooks but upstream's operator.yaml has no Service for it", op.Deployment)
	}
	var webhooks []any
	for _, d := range csv.Spec.WebhookDefinitions {
		if d.DeploymentName != op.Deployment {
			continue
		}
		if d.Type != v1alpha1.ValidatingAdmissionWebhook {
			return nil, fmt.Errorf("%s: webhook %s of type %s; only validating webhooks are imported", op.Deployment, d.GenerateName, d.Type)
		}
		w := d.GetValidatingWebhook("kubevirt-hyperconverged", nil, nil)
		w.ClientConfig.Service.Name = service.GetName()
		port := d.ContainerPort
		w.ClientConfig.Service.Port = &port
		u, err := toMap(w)
		if err != nil {
			return nil, err
		}
		webhooks = append(webhooks, u)
	}
	if len(webhooks) == 0 {
		return nil, fmt.Errorf("upstream's CSV declares no webhook of %s", op.Deployment)
	}
	vwc := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "admissionregistration.k8s.io/v1",
		"kind":       "ValidatingWebhookConfiguration",
		"metadata": map[string]any{
			"name":   op.Webhook,
			"labels": map[string]any{"name": op.Deployment},
		},
		"webhooks": webhooks,
	}}
	return vwc, nil
}

// decodeYAML splits a multi-document YAML stream into objects; empty
// documents are skipped.
func decodeYAML(data []byte) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	for _, doc := range splitDocuments(data) {
		m := map[string]any{}
		if err := yaml.Unmarshal(doc, &m); err != nil {
			return nil, err
		}
		if len(m) == 0 {
			continue
		}
		out = append(out, &unstructured.Unstructured{Object: m})
	}
	return out, nil
}

func splitDocuments(data []byte) [][]byte {
	var docs [][]byte
	var cur []byte
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		if bytes.Equal(bytes.TrimRight(line, "\r\n"), []byte("---")) {
			docs = append(docs, cur)
			cur = nil
			continue
		}
		cur = append(cur, line...)
	}
	return append(docs, cur)
}

// encodeYAML writes objects as one YAML stream after header.
func encodeYAML(header string, objs []*unstructured.Unstructured) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString(header)
	for _, o := range objs {
		data, err := yaml.Marshal(o.Object)
		if err != nil {
			return nil, err
		}
		buf.WriteString("---\n")
		buf.Write(data)
	}
	return buf.Bytes(), nil
}

// ApplyTable sets every version and digest of the table (TableFile under
// root) in the operators' descriptions and returns the files that change.
// A row naming a Deployment, container or variable that is not there is an
// error naming the row.
func ApplyTable(root string) (map[string][]byte, error) {
	f, err := os.Open(filepath.Join(root, TableFile))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rows, err := readTable(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", TableFile, err)
	}
	changed := map[string][]byte{}
	used := make([]bool, len(rows))
	for _, op := range Operators {
		path := filepath.Join(op.Dir, "operator.yaml")
		data, err := os.ReadFile(filepath.Join(root, path))
		if err != nil {
			return nil, err
		}
		header, objs, err := splitHeader(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		for _, o := range objs {
			if o.GetKind() != "Deployment" || o.GetName() != op.Deployment {
				continue
			}
			for i, r := range rows {
				if r.deployment != op.Deployment {
					continue
				}
				if err := setValue(o, r); err != nil {
					return nil, fmt.Errorf("%s line %d: %w", TableFile, r.line, err)
				}
				used[i] = true
			}
		}
		out, err := encodeYAML(header, objs)
		if err != nil {
			return nil, err
		}
		if !bytes.Equal(out, data) {
			changed[path] = out
		}
	}
	for i, u := range used {
		if !u {
			return nil, fmt.Errorf("%s line %d: no component operator's Deployment is named %q (see tools/bundle Operators)", TableFile, rows[i].line, rows[i].deployment)
		}
	}
	return changed, nil
}

type tableRow struct {
	line                       int
	deployment, container, env string
	value                      string
}

func readTable(r io.Reader) ([]tableRow, error) {
	records, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(records) == 0 || !slices.Equal(records[0], []string{"deployment", "container", "env", "value"}) {
		return nil, fmt.Errorf("want the header deployment,container,env,value")
	}
	var rows []tableRow
	for i, rec := range records[1:] {
		rows = append(rows, tableRow{line: i + 2, deployment: rec[0], container: rec[1], env: rec[2], value: rec[3]})
	}
	return rows, nil
}

// setValue sets a container's image (env empty) or a variable's value.
func setValue(d *unstructured.Unstructured, r tableRow) error {
	cs, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
	for _, c := range cs {
		c := c.(map[string]any)
		if c["name"] != r.container {
			continue
		}
		if r.env == "" {
			c["image"] = r.value
			return unstructured.SetNestedSlice(d.Object, cs, "spec", "template", "spec", "containers")
		}
		env, _ := c["env"].([]any)
		for _, e := range env {
			e := e.(map[string]any)
			if e["name"] == r.env {
				e["value"] = r.value
				return unstructured.SetNestedSlice(d.Object, cs, "spec", "template", "spec", "containers")
			}
		}
		return fmt.Errorf("container %s of Deployment %s has no variable %s", r.container, r.deployment, r.env)
	}
	return fmt.Errorf("Deployment %s has no container %s", r.deployment, r.container)
}

// splitHeader separates a generated file's comment header from its objects.
func splitHeader(data []byte) (string, []*unstructured.Unstructured, error) {
	i := bytes.Index(data, []byte("---\n"))
	if i < 0 {
		return "", nil, fmt.Errorf("no YAML document")
	}
	objs, err := decodeYAML(data[i:])
	return string(data[:i]), objs, err
}

// SortedPaths returns the keys of files, sorted.
func SortedPaths(files map[string][]byte) []string { return slices.Sorted(maps.Keys(files)) }
