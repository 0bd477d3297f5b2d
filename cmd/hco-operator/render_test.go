package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hcokit/hcokit/hco"
)

const renderHC = `apiVersion: hco.kubevirt.io/v1beta1
kind: HyperConverged
metadata:
  name: kubevirt-hyperconverged
spec:
  infra:
    nodePlacement:
      nodeSelector:
        nodeType: infra
`

func noEnv(string) string { return "" }

func renderToString(t *testing.T, args []string, stdin string, getenv func(string) string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := renderCommand(args, getenv, strings.NewReader(stdin), &out, &errOut)
	return out.String(), errOut.String(), err
}

func kinds(yaml string) []string {
	var out []string
	for _, line := range strings.Split(yaml, "\n") {
		if k, ok := strings.CutPrefix(line, "kind: "); ok {
			out = append(out, k)
		}
	}
	return out
}

func TestRenderFromStdinAndFileAgree(t *testing.T) {
	fromStdin, _, err := renderToString(t, []string{"-f", "-"}, renderHC, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "hc.yaml")
	if err := os.WriteFile(file, []byte(renderHC), 0o600); err != nil {
		t.Fatal(err)
	}
	fromFile, _, err := renderToString(t, []string{"-f", file}, "", noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if fromStdin != fromFile {
		t.Error("stdin and file renderings differ")
	}
	if got := strings.Join(kinds(fromFile), ","); got != "PriorityClass,KubeVirt,CDI,NetworkAddonsConfig,MigController,FileRestoreOperator,SSP,ValidatingAdmissionPolicy,ValidatingAdmissionPolicyBinding" {
		t.Errorf("kinds = %s, want the default operands in registry order", got)
	}
	if !strings.HasPrefix(fromFile, "---\n") || strings.Contains(fromFile, "status:") || strings.Contains(fromFile, "creationTimestamp") {
		t.Errorf("output is not clean YAML documents:\n%s", fromFile)
	}
}

func TestRenderOperandsAndCLIDownloadImage(t *testing.T) {
	out, _, err := renderToString(t, []string{"-f", "-", "--operands", "ssp,clidownload", "--cli-download-image", "example.com/dl:v1"}, renderHC, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(kinds(out), ","); got != "SSP,Deployment,Service" {
		t.Errorf("kinds = %s, want SSP,Deployment,Service", got)
	}
	if !strings.Contains(out, "image: example.com/dl:v1") {
		t.Error("the CLI-download image is not in the Deployment")
	}
	// The image also comes from the environment, as for the operator.
	env := func(k string) string {
		if k == "CLI_DOWNLOAD_IMAGE" {
			return "example.com/from-env:v2"
		}
		return ""
	}
	out, _, err = renderToString(t, []string{"-f", "-", "--operands", "clidownload"}, renderHC, env)
	if err != nil || !strings.Contains(out, "image: example.com/from-env:v2") {
		t.Errorf("image from CLI_DOWNLOAD_IMAGE not used: %v\n%s", err, out)
	}
}

func TestRenderErrorsNameTheProblem(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		stdin string
		want  string
	}{
		{"no -f", nil, "", "-f is required"},
		{"unknown operand", []string{"-f", "-", "--operands", "kubevirt,nope"}, renderHC, `"nope"`},
		{"unknown field", []string{"-f", "-"}, renderHC + "  sepc: 1\n", `unknown field "spec.sepc"`},
		{"invalid value", []string{"-f", "-"}, renderHC + "  liveMigrationConfig:\n    bandwidthPerMigration: x\n", "spec.liveMigrationConfig.bandwidthPerMigration"},
		{"invalid value, no apiVersion, read as v1beta1", []string{"-f", "-"},
			"metadata: {name: kubevirt-hyperconverged, namespace: kubevirt-hyperconverged}\nspec:\n  liveMigrationConfig:\n    bandwidthPerMigration: x\n",
			"spec.liveMigrationConfig.bandwidthPerMigration: Invalid value"},
		{"missing file", []string{"-f", filepath.Join(t.TempDir(), "missing.yaml")}, "", "missing.yaml"},
		{"stray argument", []string{"-f", "-", "extra"}, renderHC, "unexpected arguments"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, _, err := renderToString(t, tc.args, tc.stdin, noEnv)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want one containing %s", err, tc.want)
			}
			if out != "" {
				t.Errorf("wrote output despite the error:\n%s", out)
			}
		})
	}
}

func TestRenderWarnsOnUnknownFeatureGate(t *testing.T) {
	_, stderr, err := renderToString(t, []string{"-f", "-"}, renderHC+"  featureGates:\n    notAGate: true\n", noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr, "warning") || !strings.Contains(stderr, "spec.featureGates.notAGate") {
		t.Errorf("stderr = %q, want a warning naming spec.featureGates.notAGate", stderr)
	}
}

// render reads SMBIOS and the machine types as the operator does.
func TestRenderReadsSMBIOSAndMachineTypes(t *testing.T) {
	vars := map[string]string{"SMBIOS": "Family: KubeVirt\nProduct: None", "ARM64_MACHINETYPE": "virt-rhel9.6.0"}
	out, _, err := renderToString(t, []string{"-f", "-", "-operands", "kubevirt"}, renderHC, func(k string) string { return vars[k] })
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"    smbios:\n      family: KubeVirt\n      product: None\n", "machineType: virt-rhel9.6.0", "- virt*"} {
		if !strings.Contains(out, want) {
			t.Errorf("render output lacks %q:\n%s", want, out)
		}
	}
	vars["SMBIOS"] = "Famly: x"
	if _, _, err := renderToString(t, []string{"-f", "-"}, renderHC, func(k string) string { return vars[k] }); err == nil || !strings.Contains(err.Error(), "SMBIOS") {
		t.Errorf("bad SMBIOS: err %v, want one naming SMBIOS", err)
	}
}

// The injector's image comes from upstream's variable or the flag; without
// it the operand renders nothing, and the operator names it at start.
func TestRenderNetworkResourcesInjectorImage(t *testing.T) {
	env := func(k string) string {
		if k == "NETWORK_RESOURCES_INJECTOR_IMAGE" {
			return "example.com/injector:v1"
		}
		return ""
	}
	out, _, err := renderToString(t, []string{"-f", "-", "--operands", "netresinjector"}, renderHC, env)
	if err != nil {
		t.Fatal(err)
	}
	want := "ClusterRoleBinding,ServiceAccount,Service,Deployment,PodDisruptionBudget,MutatingWebhookConfiguration"
	if got := strings.Join(kinds(out), ","); got != want || !strings.Contains(out, "image: example.com/injector:v1") {
		t.Errorf("kinds = %s, want %s, with the image from the environment:\n%s", got, want, out)
	}
	out, _, err = renderToString(t, []string{"-f", "-", "--operands", "netresinjector", "--network-resources-injector-image", ""}, renderHC, env)
	if err != nil || len(kinds(out)) != 0 {
		t.Errorf("an empty --network-resources-injector-image renders %v (%v), want nothing", kinds(out), err)
	}

	if got := withoutImage([]string{"kubevirt", "netresinjector", "clidownload"}, hco.Environment{Images: map[string]string{"virtctl-download": "x"}}); !slices.Equal(got, []string{"netresinjector", "NETWORK_RESOURCES_INJECTOR_IMAGE"}) {
		t.Errorf("withoutImage = %v", got)
	}
	if got := withoutImage([]string{"kubevirt"}, hco.Environment{}); got != nil {
		t.Errorf("withoutImage of operands needing no image = %v", got)
	}
}
