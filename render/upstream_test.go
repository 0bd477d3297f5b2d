package render_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kvv1 "kubevirt.io/api/core/v1"
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	sspv1beta3 "kubevirt.io/ssp-operator/api/v1beta3"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/operands/cdi"
	"github.com/hcokit/hcokit/operands/clidownload"
	"github.com/hcokit/hcokit/operands/cnao"
	cnaov1 "github.com/hcokit/hcokit/operands/cnao/api/v1"
	"github.com/hcokit/hcokit/operands/hpp"
	"github.com/hcokit/hcokit/operands/kubevirt"
	"github.com/hcokit/hcokit/operands/netresinjector"
	"github.com/hcokit/hcokit/operands/ssp"
	"github.com/hcokit/hcokit/render"
)

// upstreamEnvironment is the environment of the operator container in
// upstream's deploy/operator.yaml at 03da3cf (render/testdata/upstream-03da3cf
// was produced with it): SMBIOS, the machine types by architecture,
// HCO_KV_IO_VERSION (KubeVirt's productVersion), no KVM emulation.
var upstreamEnvironment = hco.Environment{
	Namespace:    "kubevirt-hyperconverged",
	Version:      "1.20.0",
	SMBIOS:       "Family: KubeVirt\nManufacturer: KubeVirt\nProduct: None",
	MachineTypes: map[string]string{"amd64": "q35", "arm64": "virt", "s390x": "s390-ccw-virtio"},
}

// upstreamCases are the directories of testdata/upstream-03da3cf, each a
// HyperConverged (input.yaml) and the operand CRs upstream builds for it.
var upstreamCases = []string{
	"minimal-v1", "minimal-v1beta1", "nri-ready", "virtualization", "featuregates", "storage", "networking",
	"workloadsources", "security", "security-modern", "security-old", "deployment", "annotations",
}

// Reasons a difference from upstream is kept.
const (
	seed003      = "seed 003_bbf2f7447ec7d982.txt (live migration defaults: 64Mi, 800, 5, 2, 150)"
	seed003Gate  = "seed 003_bbf2f7447ec7d982.txt (withHostPassthroughCPU turns on WithHostPassthroughCPU; upstream ignores the unknown gate)"
	envDependent = "environment-dependent"
)

// upstreamDifference is one place where hcokit's render of a case's
// HyperConverged differs from what upstream builds for it
// (testdata/upstream-03da3cf/<case>). Path is a JSON path under the
// object; "[*]" matches any list index. Values are JSON, "" when the field
// is absent. cases are the cases it is found in, every one of them.
type upstreamDifference struct {
	cases            []string
	kind, path       string
	hcokit, upstream string
	reason           string
}

// except is every case but the ones named.
func except(names ...string) []string {
	var out []string
	for _, c := range upstreamCases {
		if !slices.Contains(names, c) {
			out = append(out, c)
		}
	}
	return out
}

func only(names ...string) []string { return names }

// upstreamDifferences is every difference that remains, each with the seed
// or reason that decides it. docs/compatibility.md
// names each path. A difference not listed here fails the test, and so does
// a listed one that is not found in each of its cases.
var upstreamDifferences = []upstreamDifference{
	{except("virtualization"), "KubeVirt", "spec.configuration.migrations.bandwidthPerMigration", `"64Mi"`, ``, seed003},
	{except("virtualization"), "KubeVirt", "spec.configuration.migrations.completionTimeoutPerGiB", `800`, `20`, seed003},
	{except("virtualization"), "KubeVirt", "spec.configuration.migrations.parallelOutboundMigrationsPerNode", `2`, `1`, seed003},
	{except(), "SSP", "spec.cluster", ``, `{"controlPlaneArchitectures":["amd64"],"workloadArchitectures":["amd64"]}`,
		envDependent + ": the nodes' architectures (status.nodeInfo); render has no nodes"},
	{except(), "SSP", "spec.commonTemplates.dataImportCronTemplates[*].spec.schedule", `"20 2/12 * * *"`, `"0 */12 * * *"`,
		envDependent + ": upstream draws a random schedule once per installation (status.dataImportSchedule); hcokit derives it from the HyperConverged's UID"},
	{except(), "KubeVirt", "spec.configuration.architectureConfiguration.defaultArchitecture", ``, `"amd64"`,
		envDependent + ": the nodes' architectures; render has no nodes (the operator sets it from the node facts, as upstream: " +
			"the control plane's when workload nodes have it, else the workload nodes' most common one)"},
	{only("featuregates"), "KubeVirt", "spec.configuration.developerConfiguration.featureGates",
		`["AlignCPUs","CPUManager","ContainerPathVolumes","DecentralizedLiveMigration","DeclarativeHotplugVolumes","DownwardMetrics","HostDevices","HypervStrictCheck","IncrementalBackup","KubevirtSeccompProfile","ObjectGraph","Snapshot","Template","UtilityVolumes","WithHostPassthroughCPU"]`,
		`["AlignCPUs","CPUManager","ContainerPathVolumes","DecentralizedLiveMigration","DeclarativeHotplugVolumes","DownwardMetrics","HostDevices","HypervStrictCheck","IncrementalBackup","KubevirtSeccompProfile","ObjectGraph","Snapshot","Template","UtilityVolumes"]`,
		seed003Gate},
}

// TestRenderMatchesUpstream compares, path by path, the operand CRs hcokit
// renders for each case's HyperConverged with the ones upstream HCO builds
// for it at 03da3cf (testdata/upstream-03da3cf, produced by running
// upstream's own code; see its README.md).
func TestRenderMatchesUpstream(t *testing.T) {
	reg, err := hco.NewRegistry(kubevirt.New(), cdi.New(), cnao.New(), ssp.New(), hpp.New(), clidownload.New())
	require.NoError(t, err)
	dirs, err := filepath.Glob(filepath.Join("testdata", "upstream-03da3cf", "*", "input.yaml"))
	require.NoError(t, err)
	var found []string
	for _, d := range dirs {
		found = append(found, filepath.Base(filepath.Dir(d)))
	}
	require.ElementsMatch(t, upstreamCases, found, "upstreamCases names every case of testdata/upstream-03da3cf")

	seen := map[int]map[string]bool{}
	for _, name := range upstreamCases {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join("testdata", "upstream-03da3cf", name)
			input, err := os.ReadFile(filepath.Join(dir, "input.yaml"))
			require.NoError(t, err)
			hc, _, err := render.Decode(input)
			require.NoError(t, err)
			prepared, env, err := render.Prepare(reg, hc, upstreamEnvironment)
			require.NoError(t, err)
			facts := hco.OfflineFacts(env)
			if caseFacts(t, dir).NetworkResourcesInjectorReady {
				// The injector's Deployment ready, as the operator observes it.
				facts.Observed = readyInjector
			}
			objs, err := hco.Render(reg, prepared, facts)
			require.NoError(t, err)

			ours := map[string]map[string]any{}
			for _, obj := range objs {
				ours[obj.GetObjectKind().GroupVersionKind().Kind] = comparable(t, obj)
			}
			require.ElementsMatch(t, []string{"KubeVirt", "CDI", "NetworkAddonsConfig", "SSP"}, slices.Collect(maps.Keys(ours)),
				"the operand CRs rendered (no HostPathProvisioner without spec.storage.hostpathProvisioner, as upstream)")

			for file, obj := range map[string]client.Object{
				"kubevirt.yaml": &kvv1.KubeVirt{}, "cdi.yaml": &cdiv1beta1.CDI{},
				"networkaddonsconfig.yaml": &cnaov1.NetworkAddonsConfig{}, "ssp.yaml": &sspv1beta3.SSP{},
			} {
				raw, err := os.ReadFile(filepath.Join(dir, file))
				require.NoError(t, err)
				require.NoError(t, yaml.UnmarshalStrict(raw, obj), file)
				kind := obj.GetObjectKind().GroupVersionKind().Kind
				theirs := comparable(t, obj)
				for _, d := range diff(ours[kind], theirs) {
					i := slices.IndexFunc(upstreamDifferences, func(u upstreamDifference) bool {
						return slices.Contains(u.cases, name) && u.kind == kind && pathMatches(u.path, d.path) &&
							u.hcokit == d.ours && u.upstream == d.theirs
					})
					if i < 0 {
						t.Errorf("%s %s: hcokit %s, upstream %s: fix it, or list it in upstreamDifferences and docs/compatibility.md with its reason",
							kind, d.path, orAbsent(d.ours), orAbsent(d.theirs))
						continue
					}
					if seen[i] == nil {
						seen[i] = map[string]bool{}
					}
					seen[i][name] = true
				}
			}
		})
	}
	for i, u := range upstreamDifferences {
		for _, c := range u.cases {
			if !seen[i][c] {
				t.Errorf("listed difference %s %s (hcokit %s, upstream %s) is not found in case %s: remove it there (and from docs/compatibility.md when no case has it)",
					u.kind, u.path, orAbsent(u.hcokit), orAbsent(u.upstream), c)
			}
		}
	}
}

// upstreamCaseFacts is a case's environment.yaml: a fact of the cluster
// beyond the default one (README.md there).
type upstreamCaseFacts struct {
	NetworkResourcesInjectorReady bool `json:"networkResourcesInjectorReady"`
}

// readyInjector observes the network-resources-injector's Deployment, all
// of its one replica ready (hco.Facts.Observed).
func readyInjector(gvk schema.GroupVersionKind, key client.ObjectKey) (*unstructured.Unstructured, bool) {
	if gvk.Kind != "Deployment" || key.Name != netresinjector.DeploymentName {
		return nil, false
	}
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": key.Name, "namespace": key.Namespace},
		"spec":     map[string]any{"replicas": int64(1)},
		"status":   map[string]any{"readyReplicas": int64(1)},
	}}
	return u, true
}

func caseFacts(t *testing.T, dir string) upstreamCaseFacts {
	var f upstreamCaseFacts
	raw, err := os.ReadFile(filepath.Join(dir, "environment.yaml"))
	if os.IsNotExist(err) {
		return f
	}
	require.NoError(t, err)
	require.NoError(t, yaml.UnmarshalStrict(raw, &f), "environment.yaml")
	return f
}

// docs/compatibility.md names every path that still differs.
func TestCompatibilityDocListsTheUpstreamDifferences(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "docs", "compatibility.md"))
	require.NoError(t, err)
	doc := string(raw)
	for _, u := range upstreamDifferences {
		if !strings.Contains(doc, "`"+u.path+"`") {
			t.Errorf("docs/compatibility.md does not name %s `%s`", u.kind, u.path)
		}
	}
}

// comparable is what is compared of an operand CR: kind, name, namespace and
// spec, as JSON. Decoding upstream's YAML into the same Go type first means
// only values are compared, not how a type writes an empty field.
func comparable(t *testing.T, obj client.Object) map[string]any {
	t.Helper()
	raw, err := json.Marshal(obj)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(raw, &m))
	return map[string]any{"name": obj.GetName(), "namespace": obj.GetNamespace(), "spec": m["spec"]}
}

type difference struct{ path, ours, theirs string }

// diff returns where a and b differ, by path, sorted: at the leaves where
// both sides have a value, and at the top of a map, list or value one side
// lacks (compared whole, JSON-encoded; "" for absent). Lists of different
// lengths are compared whole.
func diff(a, b map[string]any) []difference {
	var out []difference
	diffValues("", a, b, &out)
	slices.SortFunc(out, func(x, y difference) int { return strings.Compare(x.path, y.path) })
	return out
}

func diffValues(path string, a, b any, out *[]difference) {
	ma, aIsMap := a.(map[string]any)
	mb, bIsMap := b.(map[string]any)
	if aIsMap && bIsMap && len(ma) > 0 && len(mb) > 0 {
		for _, k := range slices.Sorted(maps.Keys(merge(ma, mb))) {
			key := "." + k
			if strings.ContainsAny(k, "./") {
				key = fmt.Sprintf("[%q]", k)
			}
			diffValues(strings.TrimPrefix(path+key, "."), ma[k], mb[k], out)
		}
		return
	}
	la, aIsList := a.([]any)
	lb, bIsList := b.([]any)
	if aIsList && bIsList && len(la) == len(lb) {
		for i := range la {
			diffValues(fmt.Sprintf("%s[%d]", path, i), la[i], lb[i], out)
		}
		return
	}
	if ja, jb := encode(a), encode(b); ja != jb {
		*out = append(*out, difference{path, ja, jb})
	}
}

// encode is v as JSON, "" when absent.
func encode(v any) string {
	if v == nil {
		return ""
	}
	raw, _ := json.Marshal(v)
	return string(raw)
}

func merge(a, b map[string]any) map[string]any {
	out := maps.Clone(a)
	maps.Copy(out, b)
	return out
}

// pathMatches reports whether a listed path (with "[*]" for any index)
// is the path of a difference.
func pathMatches(listed, path string) bool {
	re := "^" + strings.ReplaceAll(regexp.QuoteMeta(listed), `\[\*\]`, `\[[0-9]+\]`) + "$"
	return regexp.MustCompile(re).MatchString(path)
}

func orAbsent(v string) string {
	if v == "" {
		return "absent"
	}
	return v
}
