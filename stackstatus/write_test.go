package stackstatus

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	hcov1 "github.com/hcokit/hcokit/api/v1"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// golden compares got with testdata/name, or writes it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))
}

// degraded is a stack whose CDI is Degraded while its operator is ready.
func degraded() *Stack {
	ok := func(t string) Condition { return Condition{Type: t, Status: "True"} }
	no := func(t string) Condition { return Condition{Type: t, Status: "False"} }
	s := &Stack{
		HyperConverged: HyperConverged{Namespace: "kubevirt-hyperconverged", Name: "kubevirt-hyperconverged", SystemHealthStatus: "error",
			Versions: []hcov1.Version{{Name: "operator", Version: "1.20.0"}},
			Conditions: []Condition{ok("ReconcileComplete"), ok("Available"), no("Progressing"),
				{Type: "Degraded", Status: "True", Reason: "CDIDegraded", Message: "CDI is degraded: cdi-deployment is crash looping"}, ok("Upgradeable")}},
		Components: []Component{
			{Operand: "kubevirt", Kind: "KubeVirt", Available: ok("Available"), Progressing: no("Progressing"), Degraded: no("Degraded"), ObservedVersion: "v1.9.0",
				Objects:  []Object{{Kind: "KubeVirt", Namespace: "kubevirt-hyperconverged", Name: "kubevirt-kubevirt-hyperconverged", Conditions: []Condition{ok("Available")}}},
				Operator: &Object{Kind: "Deployment", Namespace: "kubevirt-hyperconverged", Name: "virt-operator", Replicas: &Replicas{Wanted: 2, Ready: 2}}},
			{Operand: "cdi", Kind: "CDI", Available: ok("Available"), Progressing: no("Progressing"),
				Degraded: Condition{Type: "Degraded", Status: "True", Reason: "PodsCrashing", Message: "cdi-deployment is\ncrash looping"},
				Objects:  []Object{{Kind: "CDI", Name: "cdi-kubevirt-hyperconverged", Conditions: []Condition{ok("Available"), {Type: "Degraded", Status: "True", Reason: "PodsCrashing"}}}},
				Operator: &Object{Kind: "Deployment", Namespace: "kubevirt-hyperconverged", Name: "cdi-operator", Replicas: &Replicas{Wanted: 1, Ready: 1}}},
			{Operand: "netresinjector", Kind: "VirtNetworkResourcesInjector", Available: ok("Available"), Progressing: no("Progressing"), Degraded: no("Degraded"),
				Objects: []Object{{Kind: "Deployment", Namespace: "kubevirt-hyperconverged", Name: "virt-network-resources-injector", Replicas: &Replicas{Wanted: 1, Ready: 1}}}},
		},
	}
	for i := range s.Components {
		s.Components[i].Healthy = componentHealthy(s.Components[i])
	}
	s.FirstFailure = firstFailure(s)
	s.Healthy = s.FirstFailure == nil
	return s
}

// The tree names the failing leaf, the CDI's Degraded condition, in words,
// and marks it; no colour unless asked.
func TestWriteDegraded(t *testing.T) {
	s := degraded()
	require.NotNil(t, s.FirstFailure)
	assert.Equal(t, []string{"cdi", "CDI cdi-kubevirt-hyperconverged"}, s.FirstFailure.Path)
	var b bytes.Buffer
	require.NoError(t, Write(&b, s, false))
	assert.NotContains(t, b.String(), "\x1b[")
	golden(t, "degraded.txt", b.Bytes())

	b.Reset()
	require.NoError(t, Write(&b, s, true))
	assert.Contains(t, b.String(), red+"✗"+reset, "on a terminal the failing component is red")
}

// The JSON form is the Stack's, stable for scripts.
func TestJSONDegraded(t *testing.T) {
	raw, err := json.MarshalIndent(degraded(), "", "  ")
	require.NoError(t, err)
	golden(t, "degraded.json", append(raw, '\n'))
}

// An operator not ready is the leaf, before its CR: nothing else of the
// component can be right.
func TestOperatorNotReadyIsTheLeaf(t *testing.T) {
	s := degraded()
	s.Components[1].Operator.Replicas.Ready = 0
	s.Components[1].Healthy = componentHealthy(s.Components[1])
	f := firstFailure(s)
	require.NotNil(t, f)
	assert.Equal(t, "cdi › operator Deployment cdi-operator: NotReady: 0 of 1 replicas ready", f.String())
}

// With every component healthy, the HyperConverged's own condition is the
// leaf: a jsonpatch annotation tainting its configuration.
func TestTaintedHyperConvergedIsTheLeaf(t *testing.T) {
	s := degraded()
	s.Components = s.Components[:1]
	for i, c := range s.HyperConverged.Conditions {
		if c.Type == "Degraded" {
			s.HyperConverged.Conditions[i] = Condition{Type: "Degraded", Status: "False"}
		}
	}
	s.HyperConverged.Conditions = append(s.HyperConverged.Conditions, Condition{Type: "TaintedConfiguration", Status: "True",
		Reason: "UnsupportedFeatureAnnotation", Message: "Unsupported feature was activated via an HCO annotation"})
	f := firstFailure(s)
	require.NotNil(t, f)
	assert.Equal(t, "HyperConverged kubevirt-hyperconverged: UnsupportedFeatureAnnotation (TaintedConfiguration=True): Unsupported feature was activated via an HCO annotation", f.String())

	s.HyperConverged.Conditions = s.HyperConverged.Conditions[:len(s.HyperConverged.Conditions)-1]
	assert.Nil(t, firstFailure(s), "healthy")
	var b bytes.Buffer
	s.Healthy, s.FirstFailure = true, nil
	require.NoError(t, Write(&b, s, false))
	assert.Contains(t, b.String(), "The virtualization stack is healthy.")
}

// OperatorDeployments are the whole-stack install's: the Deployment of
// each operand's operator/operator.yaml (the CLI download's is its server,
// a workload of its own, not a component operator).
func TestOperatorDeploymentsAreTheInstalls(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "operands", "*", "operator", "operator.yaml"))
	require.NoError(t, err)
	found := map[string]string{}
	for _, f := range files {
		operand := filepath.Base(filepath.Dir(filepath.Dir(f)))
		if operand == "clidownload" {
			continue
		}
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, doc := range bytes.Split(raw, []byte("\n---")) {
			var obj struct {
				Kind     string `json:"kind"`
				Metadata struct {
					Name string `json:"name"`
				} `json:"metadata"`
			}
			require.NoError(t, yaml.Unmarshal(doc, &obj), f)
			if obj.Kind == "Deployment" {
				found[operand] = obj.Metadata.Name
			}
		}
	}
	assert.Equal(t, found, OperatorDeployments)
}

// An operand waiting for its API (a component's CRD not installed) leaves
// the components shown healthy; the HyperConverged's Degraded condition,
// which names the operand and the API, is the leaf.
func TestAPIMissingIsTheLeaf(t *testing.T) {
	s := degraded()
	s.Components = s.Components[:1]
	for i, c := range s.HyperConverged.Conditions {
		if c.Type == "Degraded" {
			s.HyperConverged.Conditions[i] = Condition{Type: "Degraded", Status: "True", Reason: "OperandAPINotServed",
				Message: "operand hpp waits for its API: hostpathprovisioner.kubevirt.io/v1beta1 HostPathProvisioner is not served; install its CRD"}
		}
	}
	f := firstFailure(s)
	require.NotNil(t, f)
	assert.Equal(t, []string{"HyperConverged kubevirt-hyperconverged"}, f.Path)
	assert.Equal(t, "OperandAPINotServed (Degraded=True)", f.Reason)
	assert.Contains(t, f.Message, "install its CRD")
}
