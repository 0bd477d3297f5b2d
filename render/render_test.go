package render_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/featuregates"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/operands/cdi"
	"github.com/hcokit/hcokit/operands/kubevirt"
	"github.com/hcokit/hcokit/operands/ssp"
	"github.com/hcokit/hcokit/render"
)

const header = "apiVersion: hco.kubevirt.io/v1beta1\nkind: HyperConverged\nmetadata:\n  name: kubevirt-hyperconverged\n"

func TestDecodeErrorsNameTheField(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"unknown spec field", header + "spec:\n  infra:\n    nodeSelector: {a: b}\n", `unknown field "spec.infra.nodeSelector"`},
		{"unknown top-level field", header + "sepc: {}\n", `unknown field "sepc"`},
		{"duplicate field", header + "spec:\n  infra: {}\n  infra: {}\n", `"infra"`},
		{"wrong type", header + "spec:\n  liveMigrationConfig:\n    progressTimeout: soon\n", "progressTimeout"},
		{"wrong kind", "apiVersion: hco.kubevirt.io/v1beta1\nkind: KubeVirt\nmetadata:\n  name: x\n", "KubeVirt"},
		{"empty", "# nothing\n", "empty"},
		{"two documents", header + "---\n" + header, "2 YAML documents"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := render.Decode([]byte(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Decode error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestDecodeUnknownFeatureGateIsAWarning(t *testing.T) {
	hc, warnings, err := render.Decode([]byte(header + "spec:\n  featureGates:\n    withHostPassthroughCPU: true\n    noSuchGate: true\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "spec.featureGates.noSuchGate") {
		t.Errorf("warnings = %q, want one naming spec.featureGates.noSuchGate", warnings)
	}
	if !featuregates.Enabled(hc.Spec.FeatureGates.WithHostPassthroughCPU) {
		t.Error("the known gate was lost")
	}
}

func TestDecodeWithoutTypeMetaAndFromJSON(t *testing.T) {
	for _, in := range []string{
		"metadata:\n  name: kubevirt-hyperconverged\n",
		`{"apiVersion":"hco.kubevirt.io/v1beta1","kind":"HyperConverged","metadata":{"name":"kubevirt-hyperconverged"}}`,
	} {
		hc, _, err := render.Decode([]byte(in))
		if err != nil || hc.Name != v1beta1.HyperConvergedName {
			t.Errorf("Decode(%q) = %v, %v", in, hc, err)
		}
	}
}

func registry(t *testing.T) *hco.Registry {
	t.Helper()
	reg, err := hco.NewRegistry(kubevirt.New(), cdi.New(), ssp.New())
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func TestObjectsAppliesDefaultsAndNamespace(t *testing.T) {
	hc, _, err := render.Decode([]byte(header))
	if err != nil {
		t.Fatal(err)
	}
	objs, err := render.Objects(registry(t), hc, hco.Environment{})
	if err != nil {
		t.Fatal(err)
	}
	if hc.Spec.LiveMigrationConfig.BandwidthPerMigration != nil || hc.Namespace != "" {
		t.Error("Objects changed its input")
	}
	var kinds []string
	for _, o := range objs {
		kinds = append(kinds, o.GetObjectKind().GroupVersionKind().Kind)
	}
	if got := strings.Join(kinds, ","); got != "KubeVirt,CDI,SSP" {
		t.Fatalf("kinds = %s, want registry order KubeVirt,CDI,SSP", got)
	}
	if ns := objs[0].GetNamespace(); ns != v1beta1.DefaultNamespace {
		t.Errorf("KubeVirt namespace = %q, want %q", ns, v1beta1.DefaultNamespace)
	}
	var out bytes.Buffer
	if err := render.WriteYAML(&out, objs[:1]); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "bandwidthPerMigration: 64Mi") {
		t.Errorf("the CRD default bandwidth is not in the output:\n%s", out.String())
	}
}

func TestObjectsRefusesInvalidInput(t *testing.T) {
	for _, tc := range []struct{ name, in, env, want string }{
		{"wrong name", "metadata:\n  name: other\n", "", "metadata.name"},
		{"wrong namespace", header + "  namespace: elsewhere\n", "virt", "metadata.namespace"},
		{"bad bandwidth", header + "spec:\n  liveMigrationConfig:\n    bandwidthPerMigration: lots\n", "", "spec.liveMigrationConfig.bandwidthPerMigration"},
		{"bad jsonpatch", header + "  annotations:\n    kubevirt.kubevirt.io/jsonpatch: 'not json'\n", "", "kubevirt.kubevirt.io/jsonpatch"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hc, _, err := render.Decode([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			_, err = render.Objects(registry(t), hc, hco.Environment{Namespace: tc.env})
			var invalid *render.InvalidError
			if !errors.As(err, &invalid) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Objects error = %v, want an InvalidError naming %s", err, tc.want)
			}
		})
	}
}

func TestWriteYAMLIsCleanAndStable(t *testing.T) {
	hc, _, err := render.Decode([]byte(header))
	if err != nil {
		t.Fatal(err)
	}
	objs, err := render.Objects(registry(t), hc, hco.Environment{})
	if err != nil {
		t.Fatal(err)
	}
	write := func() string {
		var out bytes.Buffer
		if err := render.WriteYAML(&out, objs); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	first := write()
	for range 5 {
		if write() != first {
			t.Fatal("two renderings of the same objects differ")
		}
	}
	for _, noise := range []string{"status:", "creationTimestamp", ": null"} {
		if strings.Contains(first, noise) {
			t.Errorf("output contains %q", noise)
		}
	}
	docs := strings.Split(strings.TrimPrefix(first, "---\n"), "\n---\n")
	if len(docs) != len(objs) {
		t.Fatalf("%d documents, want %d", len(docs), len(objs))
	}
	for i, doc := range docs {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
			t.Fatalf("document %d is not YAML: %v", i, err)
		}
		if m["kind"] != objs[i].GetObjectKind().GroupVersionKind().Kind || m["apiVersion"] == nil {
			t.Errorf("document %d has kind %v apiVersion %v", i, m["kind"], m["apiVersion"])
		}
	}
}

func TestWriteYAMLNeedsTypeMeta(t *testing.T) {
	if _, err := render.Objects(registry(t), &v1beta1.HyperConverged{}, hco.Environment{}); err == nil {
		t.Fatal("a HyperConverged without a name was accepted")
	}
	bare := ssp.New().Kinds()[0].DeepCopyObject().(client.Object)
	bare.GetObjectKind().SetGroupVersionKind(bare.GetObjectKind().GroupVersionKind().GroupVersion().WithKind(""))
	if err := render.WriteYAML(&bytes.Buffer{}, []client.Object{bare}); err == nil {
		t.Error("an object without kind was written")
	}
}
