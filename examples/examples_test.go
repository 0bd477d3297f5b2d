package examples_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	kvv1 "kubevirt.io/api/core/v1"
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	sspv1beta3 "kubevirt.io/ssp-operator/api/v1beta3"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/featuregates"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/jsonpatch"
	"github.com/hcokit/hcokit/operands"
	"github.com/hcokit/hcokit/operands/cdi"
	"github.com/hcokit/hcokit/operands/clidownload"
	"github.com/hcokit/hcokit/operands/cnao"
	cnaov1 "github.com/hcokit/hcokit/operands/cnao/api/v1"
	"github.com/hcokit/hcokit/operands/hpp"
	"github.com/hcokit/hcokit/operands/kubevirt"
	"github.com/hcokit/hcokit/operands/ssp"
	"github.com/hcokit/hcokit/render"
)

// rendered is one example's objects, by kind.
type rendered struct {
	kinds    []string
	kv       *kvv1.KubeVirt
	cdi      *cdiv1beta1.CDI
	nac      *cnaov1.NetworkAddonsConfig
	ssp      *sspv1beta3.SSP
	download *appsv1.Deployment
}

// renderFile renders an example as hco-operator render does with its
// default operands, plus an image for the CLI-download module.
func renderFile(t *testing.T, file string) rendered {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	hc, warnings, err := render.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) > 0 {
		t.Errorf("warnings: %q", warnings)
	}
	reg, err := hco.NewRegistry(kubevirt.New(), cdi.New(), cnao.New(), ssp.New(), hpp.New(), clidownload.New())
	if err != nil {
		t.Fatal(err)
	}
	if err := reg.Disable(hpp.Name); err != nil {
		t.Fatal(err)
	}
	env := hco.Environment{Images: map[string]string{clidownload.ImageKey: "example.com/virtctl-download:v1"}}
	objs, err := render.Objects(reg, hc, env)
	if err != nil {
		t.Fatal(err)
	}
	scheme, err := hco.NewScheme(operands.AddToScheme)
	if err != nil {
		t.Fatal(err)
	}
	var r rendered
	for _, o := range objs {
		if u, ok := o.(*unstructured.Unstructured); ok {
			// A patched object: the wire form, typed here to be checked.
			typed, err := scheme.New(u.GroupVersionKind())
			if err != nil {
				t.Fatal(err)
			}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, typed); err != nil {
				t.Fatal(err)
			}
			o = typed.(client.Object)
		}
		r.kinds = append(r.kinds, o.GetObjectKind().GroupVersionKind().Kind)
		switch o := o.(type) {
		case *kvv1.KubeVirt:
			r.kv = o
		case *cdiv1beta1.CDI:
			r.cdi = o
		case *cnaov1.NetworkAddonsConfig:
			r.nac = o
		case *sspv1beta3.SSP:
			r.ssp = o
		case *appsv1.Deployment:
			r.download = o
		}
	}
	if r.kv == nil || r.cdi == nil || r.nac == nil || r.ssp == nil || r.download == nil {
		t.Fatalf("rendered kinds %v lack one of KubeVirt, CDI, NetworkAddonsConfig, SSP, Deployment", r.kinds)
	}
	return r
}

var examples = map[string]func(t *testing.T, r rendered){
	"hyperconverged.yaml": func(t *testing.T, r rendered) {
		want := []string{"KubeVirt", "CDI", "NetworkAddonsConfig", "SSP", "Deployment", "Service"}
		if !slices.Equal(r.kinds, want) {
			t.Errorf("kinds = %v, want %v (registry order)", r.kinds, want)
		}
		if r.kv.Spec.Infra != nil || r.kv.Spec.Workloads != nil || r.nac.Spec.PlacementConfiguration != nil {
			t.Error("placement set without spec.deployment.nodePlacements")
		}
		if r.nac.Spec.Ovs != nil {
			t.Error("OvS deployed without the deployOVS annotation")
		}
		if slices.Contains(r.kv.Spec.Configuration.DeveloperConfiguration.FeatureGates, featuregates.WithHostPassthroughCPU) {
			t.Error("WithHostPassthroughCPU on by default")
		}
		m := r.kv.Spec.Configuration.MigrationConfiguration
		if m == nil || m.BandwidthPerMigration == nil || m.BandwidthPerMigration.String() != "64Mi" || *m.ParallelMigrationsPerCluster != 5 {
			t.Errorf("migrations = %+v, want the CRD defaults (64Mi, 5 per cluster)", m)
		}
		if r.kv.Spec.Configuration.PermittedHostDevices != nil {
			t.Error("host devices permitted by default")
		}
	},
	"node-placement-selectors.yaml": func(t *testing.T, r rendered) {
		infra, workloads := map[string]string{"nodeType": "infra"}, map[string]string{"nodeType": "nested-virtualization"}
		checkSelector(t, "KubeVirt infra", r.kv.Spec.Infra.NodePlacement.NodeSelector, infra)
		checkSelector(t, "KubeVirt workloads", r.kv.Spec.Workloads.NodePlacement.NodeSelector, workloads)
		checkSelector(t, "CDI infra", r.cdi.Spec.Infra.NodeSelector, infra)
		checkSelector(t, "CDI workload", r.cdi.Spec.Workloads.NodeSelector, workloads)
		checkSelector(t, "CNAO infra", r.nac.Spec.PlacementConfiguration.Infra.NodeSelector, infra)
		checkSelector(t, "CNAO workloads", r.nac.Spec.PlacementConfiguration.Workloads.NodeSelector, workloads)
		checkSelector(t, "SSP template validator", r.ssp.Spec.TemplateValidator.Placement.NodeSelector, infra)
		checkSelector(t, "CLI download", r.download.Spec.Template.Spec.NodeSelector, infra)
	},
	"node-placement-affinity.yaml": func(t *testing.T, r rendered) {
		required := func(a *corev1.Affinity) string {
			if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
				return ""
			}
			return a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchExpressions[0].Values[0]
		}
		for name, a := range map[string]*corev1.Affinity{
			"KubeVirt infra": r.kv.Spec.Infra.NodePlacement.Affinity, "CDI infra": r.cdi.Spec.Infra.Affinity,
			"SSP": r.ssp.Spec.TemplateValidator.Placement.Affinity, "CLI download": r.download.Spec.Template.Spec.Affinity,
		} {
			if got := required(a); got != "infra" {
				t.Errorf("%s: required node affinity to %q, want infra", name, got)
			}
		}
		wl := r.kv.Spec.Workloads.NodePlacement.Affinity
		if required(wl) != "nested-virtualization" {
			t.Errorf("KubeVirt workloads: required node affinity to %q, want nested-virtualization", required(wl))
		}
		pref := wl.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution
		if len(pref) != 1 || pref[0].Preference.MatchExpressions[0].Operator != corev1.NodeSelectorOpGt || pref[0].Preference.MatchExpressions[0].Values[0] != "8" {
			t.Errorf("KubeVirt workloads: preferred affinity %+v, want more than 8 CPUs", pref)
		}
		if required(r.cdi.Spec.Workloads.Affinity) != "nested-virtualization" {
			t.Error("CDI workload affinity lost")
		}
	},
	"node-placement-tolerations.yaml": func(t *testing.T, r rendered) {
		want := corev1.Toleration{Key: "key", Operator: corev1.TolerationOpEqual, Value: "kubevirt", Effect: corev1.TaintEffectNoSchedule}
		for name, got := range map[string][]corev1.Toleration{
			"KubeVirt workloads": r.kv.Spec.Workloads.NodePlacement.Tolerations,
			"CDI workload":       r.cdi.Spec.Workloads.Tolerations,
			"CNAO workloads":     r.nac.Spec.PlacementConfiguration.Workloads.Tolerations,
		} {
			if len(got) != 1 || got[0] != want {
				t.Errorf("%s tolerations = %v, want [%v]", name, got, want)
			}
		}
		if r.kv.Spec.Infra != nil || r.download.Spec.Template.Spec.Tolerations != nil {
			t.Error("the workloads tolerations leaked into infra placement")
		}
	},
	"host-passthrough-cpu.yaml": func(t *testing.T, r rendered) {
		if !slices.Contains(r.kv.Spec.Configuration.DeveloperConfiguration.FeatureGates, featuregates.WithHostPassthroughCPU) {
			t.Errorf("KubeVirt gates %v lack %s", r.kv.Spec.Configuration.DeveloperConfiguration.FeatureGates, featuregates.WithHostPassthroughCPU)
		}
	},
	"live-migration.yaml": func(t *testing.T, r rendered) {
		m := r.kv.Spec.Configuration.MigrationConfiguration
		if m == nil || m.BandwidthPerMigration.String() != "256Mi" || *m.CompletionTimeoutPerGiB != 1200 ||
			*m.ParallelMigrationsPerCluster != 10 || *m.ParallelOutboundMigrationsPerNode != 4 || *m.ProgressTimeout != 300 {
			t.Errorf("KubeVirt migrations = %+v, want 256Mi, 1200, 10, 4, 300", m)
		}
	},
	"permitted-host-devices.yaml": func(t *testing.T, r rendered) {
		p := r.kv.Spec.Configuration.PermittedHostDevices
		if p == nil || len(p.PciHostDevices) != 2 || len(p.MediatedDevices) != 1 {
			t.Fatalf("KubeVirt permittedHostDevices = %+v, want 2 PCI and 1 mediated device", p)
		}
		if d := p.PciHostDevices[0]; d.PCIVendorSelector != "10DE:1EB8" || d.ResourceName != "nvidia.com/TU104GL_Tesla_T4" || !d.ExternalResourceProvider {
			t.Errorf("first PCI device = %+v", d)
		}
		if d := p.PciHostDevices[1]; d.PCIVendorSelector != "8086:6F54" || d.ExternalResourceProvider {
			t.Errorf("second PCI device = %+v", d)
		}
		if d := p.MediatedDevices[0]; d.MDEVNameSelector != "GRID T4-1Q" || d.ResourceName != "nvidia.com/GRID_T4-1Q" {
			t.Errorf("mediated device = %+v", d)
		}
	},
	"deploy-ovs.yaml": func(t *testing.T, r rendered) {
		if r.nac.Spec.Ovs == nil {
			t.Error("NetworkAddonsConfig does not deploy OvS")
		}
	},
	"jsonpatch-allow-post-copy.yaml": func(t *testing.T, r rendered) {
		m := r.kv.Spec.Configuration.MigrationConfiguration
		if m == nil || m.AllowPostCopy == nil || !*m.AllowPostCopy {
			t.Errorf("KubeVirt migrations = %+v, want allowPostCopy true", m)
		} else if m.BandwidthPerMigration == nil || m.BandwidthPerMigration.String() != "64Mi" || *m.ProgressTimeout != 150 {
			t.Errorf("KubeVirt migrations = %+v, want the seed's live migration settings kept beside allowPostCopy", m)
		}
	},
}

func checkSelector(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s nodeSelector = %v, want %v", what, got, want)
		return
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s nodeSelector = %v, want %v", what, got, want)
		}
	}
}

// v1beta1Twin is the v1beta1 form of the v1 example file.
func v1beta1Twin(file string) string { return filepath.Join("v1beta1", file) }

func TestExamples(t *testing.T) {
	files, err := filepath.Glob("*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if examples[f] == nil {
			t.Errorf("%s has no check in this test; add one", f)
		}
	}
	old, err := filepath.Glob(v1beta1Twin("*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range old {
		if examples[filepath.Base(f)] == nil {
			t.Errorf("%s has no v1 form %s", f, filepath.Base(f))
		}
	}
	for name, check := range examples {
		t.Run(name, func(t *testing.T) {
			check(t, renderFile(t, name))
		})
		t.Run(v1beta1Twin(name), func(t *testing.T) {
			check(t, renderFile(t, v1beta1Twin(name)))
		})
	}
}

// decodeFile decodes an example to the hub.
func decodeFile(t *testing.T, file string) *hcov1.HyperConverged {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	hc, _, err := render.Decode(data)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return hc
}

// comparable returns hc with the CRD defaults filled, without what v1beta1
// conversion legitimately adds: the annotation that keeps v1beta1-only
// spellings for the way back, and the gates v1beta1's defaults list as
// false (a gate not listed is off too). Enabled gates are given in their
// canonical form, without a state, sorted by name.
func comparable(hc *hcov1.HyperConverged) *hcov1.HyperConverged {
	hc = hc.DeepCopy()
	hcov1.Default(hc)
	delete(hc.Annotations, v1beta1.FieldsAnnotation)
	if len(hc.Annotations) == 0 {
		hc.Annotations = nil
	}
	var gates hcov1.FeatureGates
	for _, g := range hc.Spec.FeatureGates {
		if g.IsEnabled() {
			gates = append(gates, hcov1.FeatureGate{Name: g.Name})
		}
	}
	slices.SortFunc(gates, func(a, b hcov1.FeatureGate) int { return strings.Compare(a.Name, b.Name) })
	hc.Spec.FeatureGates = gates
	return hc
}

// Each v1 example and its v1beta1 form say the same: they decode to the same
// hub object and render the same operand objects.
func TestV1AndV1beta1ExamplesAgree(t *testing.T) {
	reg, err := hco.NewRegistry(kubevirt.New(), cdi.New(), cnao.New(), ssp.New(), hpp.New(), clidownload.New())
	if err != nil {
		t.Fatal(err)
	}
	env := hco.Environment{Images: map[string]string{clidownload.ImageKey: "example.com/virtctl-download:v1"}}
	for name := range examples {
		t.Run(name, func(t *testing.T) {
			v1, old := decodeFile(t, name), decodeFile(t, v1beta1Twin(name))
			// The v1beta1 CRD defaults every gate to false, the beta ones
			// (on by default in v1) too, as upstream's does: a v1beta1 file
			// says "off" where its v1 twin, listing nothing, says "on".
			for _, g := range old.Spec.FeatureGates {
				if !g.IsEnabled() && featuregates.Default(g.Name) && !slices.ContainsFunc(v1.Spec.FeatureGates, func(x hcov1.FeatureGate) bool { return x.Name == g.Name }) {
					v1.Spec.FeatureGates.Set(g.Name, false)
				}
			}
			if a, b := comparable(v1), comparable(old); !equality.Semantic.DeepEqual(a, b) {
				t.Errorf("%s and %s decode to different hub objects:\nv1:      %s\nv1beta1: %s", name, v1beta1Twin(name), toJSON(t, a), toJSON(t, b))
			}
			a, err := render.Objects(reg, v1, env)
			if err != nil {
				t.Fatal(err)
			}
			b, err := render.Objects(reg, old, env)
			if err != nil {
				t.Fatal(err)
			}
			if len(a) != len(b) {
				t.Fatalf("%d objects from v1, %d from v1beta1", len(a), len(b))
			}
			for i := range a {
				if !equality.Semantic.DeepEqual(a[i], b[i]) {
					t.Errorf("object %d differs:\nv1:      %s\nv1beta1: %s", i, toJSON(t, a[i]), toJSON(t, b[i]))
				}
			}
		})
	}
}

func toJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// Every example but the one about it leaves a jsonpatch annotation out, so
// that only that one taints the configuration.
func TestOnlyTheJSONPatchExampleIsTainted(t *testing.T) {
	for name := range examples {
		for _, file := range []string{name, v1beta1Twin(name)} {
			hc := decodeFile(t, file)
			tainted := jsonpatch.IsSet(hc.GetAnnotations()[kubevirt.New().JSONPatchAnnotation()])
			if tainted != (name == "jsonpatch-allow-post-copy.yaml") {
				t.Errorf("%s: jsonpatch annotation set = %v", file, tainted)
			}
		}
	}
}
