package render_test

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/featuregates"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/operands/cdi"
	"github.com/hcokit/hcokit/operands/kubevirt"
	"github.com/hcokit/hcokit/operands/ssp"
	"github.com/hcokit/hcokit/render"
)

const (
	header        = "apiVersion: hco.kubevirt.io/v1\nkind: HyperConverged\nmetadata:\n  name: kubevirt-hyperconverged\n"
	headerV1beta1 = "apiVersion: hco.kubevirt.io/v1beta1\nkind: HyperConverged\nmetadata:\n  name: kubevirt-hyperconverged\n"
)

func TestDecodeErrorsNameTheField(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"unknown spec field", header + "spec:\n  deployment:\n    nodeSelector: {a: b}\n", `unknown field "spec.deployment.nodeSelector"`},
		{"v1beta1 field in v1", header + "spec:\n  infra:\n    nodePlacement: {}\n", `unknown field "spec.infra"`},
		{"v1beta1: unknown spec field", headerV1beta1 + "spec:\n  infra:\n    nodeSelector: {a: b}\n", `unknown field "spec.infra.nodeSelector"`},
		{"v1beta1: v1 field", headerV1beta1 + "spec:\n  virtualization: {}\n", `unknown field "spec.virtualization"`},
		{"unknown top-level field", header + "sepc: {}\n", `unknown field "sepc"`},
		{"duplicate field", header + "spec:\n  deployment: {}\n  deployment: {}\n", `"deployment"`},
		{"v1beta1: duplicate field", headerV1beta1 + "spec:\n  infra: {}\n  infra: {}\n", `"infra"`},
		{"wrong type", header + "spec:\n  virtualization:\n    liveMigrationConfig:\n      progressTimeout: soon\n", "progressTimeout"},
		{"v1beta1: wrong type", headerV1beta1 + "spec:\n  liveMigrationConfig:\n    progressTimeout: soon\n", "progressTimeout"},
		{"bad gate state", header + "spec:\n  featureGates:\n  - {name: downwardMetrics, enabled: 1}\n", "enabled"},
		{"wrong kind", "apiVersion: hco.kubevirt.io/v1\nkind: KubeVirt\nmetadata:\n  name: x\n", "KubeVirt"},
		{"wrong apiVersion", "apiVersion: hco.kubevirt.io/v2\nkind: HyperConverged\nmetadata:\n  name: x\n", "hco.kubevirt.io/v2"},
		{"no apiVersion, neither version", "metadata:\n  name: x\nspec:\n  nonsense: {}\n", `unknown field "spec.nonsense"`},
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

// An unknown gate is a warning naming it as the version written does.
func TestDecodeUnknownFeatureGateIsAWarning(t *testing.T) {
	for in, want := range map[string]string{
		header + "spec:\n  featureGates:\n  - name: withHostPassthroughCPU\n  - name: noSuchGate\n":        `spec.featureGates "noSuchGate" is not a known feature gate`,
		headerV1beta1 + "spec:\n  featureGates:\n    withHostPassthroughCPU: true\n    noSuchGate: true\n": `spec.featureGates.noSuchGate is not a known feature gate`,
	} {
		hc, warnings, err := render.Decode([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		if len(warnings) != 1 || !strings.HasPrefix(warnings[0], want) {
			t.Errorf("warnings = %q, want one starting %q", warnings, want)
		}
		if !hc.Spec.FeatureGates.Enabled(featuregates.GateWithHostPassthroughCPU) {
			t.Error("the known gate was lost")
		}
	}
}

// Warnings about fields nothing acts on name the fields of the version written.
func TestDecodeWarningsNameTheFieldsWritten(t *testing.T) {
	for in, want := range map[string]string{
		headerV1beta1 + "spec:\n  featureGates:\n    nonRoot: true\n": "spec.featureGates.nonRoot is deprecated and ignored",
		headerV1beta1 + "spec:\n  vddkInitImage: quay.io/x/vddk\n":    "spec.vddkInitImage is deprecated and ignored",
	} {
		_, warnings, err := render.Decode([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		if len(warnings) != 1 || !strings.HasPrefix(warnings[0], want) {
			t.Errorf("warnings = %q, want one starting %q", warnings, want)
		}
	}
}

func TestDecodeWithoutTypeMetaAndFromJSON(t *testing.T) {
	for _, in := range []string{
		"metadata:\n  name: kubevirt-hyperconverged\n",
		// Without apiVersion, what only v1beta1 accepts is read as v1beta1.
		"metadata:\n  name: kubevirt-hyperconverged\nspec:\n  infra:\n    nodePlacement:\n      nodeSelector: {nodeType: infra}\n",
		`{"apiVersion":"hco.kubevirt.io/v1","kind":"HyperConverged","metadata":{"name":"kubevirt-hyperconverged"}}`,
		`{"apiVersion":"hco.kubevirt.io/v1beta1","kind":"HyperConverged","metadata":{"name":"kubevirt-hyperconverged"}}`,
	} {
		hc, _, err := render.Decode([]byte(in))
		if err != nil || hc.Name != hcov1.HyperConvergedName {
			t.Fatalf("Decode(%q) = %v, %v", in, hc, err)
		}
		if gvk := hc.GroupVersionKind(); gvk != hcov1.GroupVersion.WithKind("HyperConverged") {
			t.Errorf("Decode(%q) returned a %v, want the hub", in, gvk)
		}
	}
	hc, _, err := render.Decode([]byte("metadata:\n  name: kubevirt-hyperconverged\nspec:\n  infra:\n    nodePlacement:\n      nodeSelector: {nodeType: infra}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if p := hc.Spec.InfraPlacement(); p == nil || p.NodeSelector["nodeType"] != "infra" {
		t.Errorf("the v1beta1 infra placement did not reach spec.deployment.nodePlacements.infra: %+v", hc.Spec.Deployment)
	}
}

// A v1beta1 document is converted to the hub as the API server would: same
// configuration, v1 shape.
func TestDecodeV1beta1ConvertsToTheHub(t *testing.T) {
	fromV1beta1, _, err := render.Decode([]byte(headerV1beta1 + `spec:
  liveMigrationConfig:
    network: migration
  workloads:
    nodePlacement:
      nodeSelector: {nodeType: nested-virtualization}
  obsoleteCPUs:
    cpuModels: [Nehalem]
  defaultCPUModel: Skylake
  certConfig:
    ca: {duration: 72h0m0s}
  uninstallStrategy: RemoveWorkloads
`))
	if err != nil {
		t.Fatal(err)
	}
	want := &hcov1.HyperConverged{}
	want.Name = hcov1.HyperConvergedName
	want.Spec.Virtualization.LiveMigrationConfig.Network = ptr("migration")
	want.Spec.Deployment.NodePlacements = &hcov1.NodePlacements{Workload: &hcov1.NodePlacement{NodeSelector: map[string]string{"nodeType": "nested-virtualization"}}}
	want.Spec.Virtualization.ObsoleteCPUModels = []string{"Nehalem"}
	want.Spec.Virtualization.VirtualMachineOptions = &hcov1.VirtualMachineOptions{DefaultCPUModel: ptr("Skylake")}
	want.Spec.Security.CertConfig.CA.Duration = &metav1.Duration{Duration: 72 * time.Hour}
	want.Spec.Deployment.UninstallStrategy = hcov1.UninstallStrategyRemoveWorkloads
	hcov1.Default(want)
	got := fromV1beta1.DeepCopy()
	hcov1.Default(got)
	got.TypeMeta = metav1.TypeMeta{}
	// v1beta1's defaults list every gate it has a field for, as false.
	for _, g := range got.Spec.FeatureGates {
		if g.IsEnabled() {
			t.Errorf("gate %s is on", g.Name)
		}
	}
	got.Spec.FeatureGates = nil
	if !equality.Semantic.DeepEqual(want, got) {
		t.Errorf("Decode(v1beta1) = %+v\nwant %+v", got.Spec, want.Spec)
	}
}

func ptr[T any](v T) *T { return &v }

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
	if hc.Spec.Virtualization.LiveMigrationConfig.BandwidthPerMigration != nil || hc.Namespace != "" {
		t.Error("Objects changed its input")
	}
	var kinds []string
	for _, o := range objs {
		kinds = append(kinds, o.GetObjectKind().GroupVersionKind().Kind)
	}
	if got := strings.Join(kinds, ","); got != "KubeVirt,CDI,SSP" {
		t.Fatalf("kinds = %s, want registry order KubeVirt,CDI,SSP", got)
	}
	if ns := objs[0].GetNamespace(); ns != hcov1.DefaultNamespace {
		t.Errorf("KubeVirt namespace = %q, want %q", ns, hcov1.DefaultNamespace)
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
		{"bad bandwidth", header + "spec:\n  virtualization:\n    liveMigrationConfig:\n      bandwidthPerMigration: lots\n", "", "spec.virtualization.liveMigrationConfig.bandwidthPerMigration"},
		// Objects sees only the hub, so its errors name v1 fields whatever version was decoded.
		{"v1beta1: bad bandwidth", headerV1beta1 + "spec:\n  liveMigrationConfig:\n    bandwidthPerMigration: lots\n", "", "spec.virtualization.liveMigrationConfig.bandwidthPerMigration"},
		{"v1beta1: bad workload placement", headerV1beta1 + "spec:\n  workloads:\n    nodePlacement:\n      nodeSelector: {\"bad key!\": x}\n", "", "spec.deployment.nodePlacements.workload.nodeSelector[bad key!]"},
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
	again, err := render.Objects(registry(t), hc, hco.Environment{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(objs, again) {
		t.Error("WriteYAML changed the objects it wrote")
	}
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
	if _, err := render.Objects(registry(t), &hcov1.HyperConverged{}, hco.Environment{}); err == nil {
		t.Fatal("a HyperConverged without a name was accepted")
	}
	bare := ssp.New().Kinds()[0].DeepCopyObject().(client.Object)
	bare.GetObjectKind().SetGroupVersionKind(bare.GetObjectKind().GroupVersionKind().GroupVersion().WithKind(""))
	if err := render.WriteYAML(&bytes.Buffer{}, []client.Object{bare}); err == nil {
		t.Error("an object without kind was written")
	}
}

// TestDecodeAdmittedTakesTheObjectAsAdmitted: the webhook's entry to the
// decoder reads the JSON the API server admitted without checking or
// defaulting it again (a field this binary does not know is ignored, as a
// newer CRD may hold one), and converts and names fields as Decode does.
func TestDecodeAdmittedTakesTheObjectAsAdmitted(t *testing.T) {
	raw := []byte(`{"apiVersion":"hco.kubevirt.io/v1beta1","kind":"HyperConverged","metadata":{"name":"kubevirt-hyperconverged"},
		"spec":{"futureField":1,"localStorageClassName":"local","liveMigrationConfig":{"network":"migration"}}}`)
	d, err := render.DecodeAdmitted(raw, schema.GroupVersion{})
	require.NoError(t, err)
	assert.Equal(t, "hco.kubevirt.io/v1beta1", d.Version().String())
	assert.Equal(t, "migration", *d.HC.Spec.Virtualization.LiveMigrationConfig.Network)
	assert.Nil(t, d.HC.Spec.Virtualization.LiveMigrationConfig.BandwidthPerMigration, "not defaulted: the API server has done it")
	assert.Contains(t, d.Warnings(), "spec.localStorageClassName is deprecated and ignored (as upstream HCO ignores it); remove it")
	assert.Equal(t, "spec.liveMigrationConfig.network: x", d.FieldPaths("spec.virtualization.liveMigrationConfig.network: x"))

	_, err = render.DecodeManifest(raw)
	assert.ErrorContains(t, err, `unknown field "spec.futureField"`, "a manifest is read strictly")

	d, err = render.DecodeAdmitted([]byte(`{"spec":{"liveMigrationConfig":{"network":"migration"}}}`), v1beta1.GroupVersion)
	require.NoError(t, err)
	assert.NotNil(t, d.Written, "without apiVersion, the request's version")
	_, err = render.DecodeAdmitted(nil, v1beta1.GroupVersion)
	assert.Error(t, err)
}
