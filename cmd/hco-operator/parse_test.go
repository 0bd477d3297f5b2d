package main

import (
	"errors"
	"flag"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/operands/stock"
)

func TestHelpIsNotAFailureAndBadFlagsAreUsageErrors(t *testing.T) {
	getenv := func(string) string { return "" }
	for _, args := range [][]string{{"-h"}, {"render", "-h"}, {"webhook", "-h"}} {
		if err := dispatch(args, getenv); !errors.Is(err, flag.ErrHelp) {
			t.Errorf("%v: err = %v, want flag.ErrHelp", args, err)
		}
	}
	for _, args := range [][]string{{"--no-such-flag"}, {"render", "--no-such-flag"}, {"webhook", "--no-such-flag"}} {
		if err := dispatch(args, getenv); !errors.Is(err, errUsage) {
			t.Errorf("%v: err = %v, want a usage error", args, err)
		}
	}
}

func TestStockDefaults(t *testing.T) {
	c, _, _, err := parse(nil, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if c.operands != "" || !c.leaderElect || c.env.Namespace != "kubevirt-hyperconverged" {
		t.Errorf("defaults: operands %q, leader election %v, namespace %q", c.operands, c.leaderElect, c.env.Namespace)
	}
	reg, err := stockRegistry(c.operands)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(enabledNames(reg), ","); got != defaultOperands {
		t.Errorf("no --operands runs %s, want %s", got, defaultOperands)
	}
}

func enabledNames(reg *hco.Registry) []string {
	var out []string
	for _, op := range reg.Operands() {
		out = append(out, op.Name())
	}
	return out
}

// --operands: a list runs exactly those, all required; changes (+a, -b)
// run the defaults changed, only the added ones required; mixing is an error.
func TestSelectOperands(t *testing.T) {
	run, named, err := selectOperands("kubevirt,ssp")
	require.NoError(t, err)
	assert.Equal(t, []string{"kubevirt", "ssp"}, run)
	assert.Equal(t, []string{"kubevirt", "ssp"}, named)

	run, named, err = selectOperands("+hpp,-aie")
	require.NoError(t, err)
	assert.Contains(t, run, "hpp")
	assert.NotContains(t, run, "aie")
	assert.Contains(t, run, "ssp")
	assert.Equal(t, []string{"hpp"}, named, "the defaults stay defaults")

	run, named, err = selectOperands("")
	require.NoError(t, err)
	assert.Empty(t, run, "the registry's defaults")
	assert.Empty(t, named)

	_, _, err = selectOperands("kubevirt,+hpp")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "--operands")
}

// On plain Kubernetes SSP is a platform default unless --operands names
// it; on OpenShift (ClusterVersion served) it is required as the others.
// The Perses dashboards are one on every platform, unless named.
func TestPlatformDefaultsFollowTheClusterAndTheFlag(t *testing.T) {
	plain := meta.NewDefaultRESTMapper(nil)
	openShift := meta.NewDefaultRESTMapper(nil)
	openShift.Add(schema.GroupVersionKind{Group: "config.openshift.io", Version: "v1", Kind: "ClusterVersion"}, meta.RESTScopeRoot)
	for _, tc := range []struct {
		name        string
		mapper      meta.RESTMapper
		operands    string
		ssp, perses bool
	}{
		{"plain Kubernetes, default operands", plain, "", true, true},
		{"plain Kubernetes, +hpp", plain, "+hpp", true, true},
		{"plain Kubernetes, ssp named", plain, stock.DefaultList(), false, false},
		{"OpenShift", openShift, "", false, true},
		{"OpenShift, +perses", openShift, "+perses", false, false},
		{"OpenShift, -ssp", openShift, "-ssp", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg, err := stockRegistry(tc.operands)
			require.NoError(t, err)
			openShift, err := hco.OpenShift(tc.mapper)
			require.NoError(t, err)
			require.NoError(t, applyPlatformDefaults(reg, openShift, tc.operands))
			assert.Equal(t, tc.ssp, reg.WhereServed("ssp"), "ssp")
			assert.Equal(t, tc.perses, reg.WhereServed("perses"), "perses")
		})
	}
}

func TestKubeconfigFlagOnTheSubcommandsThatTalkToTheCluster(t *testing.T) {
	getenv := func(string) string { return "" }
	c, _, _, err := parse([]string{"--kubeconfig=/tmp/op.kubeconfig"}, getenv)
	if err != nil || c.kubeconfig != "/tmp/op.kubeconfig" {
		t.Errorf("operator: kubeconfig %q, err %v", c.kubeconfig, err)
	}
	w, _, err := parseWebhook([]string{"--kubeconfig=/tmp/wh.kubeconfig"}, getenv)
	if err != nil || w.kubeconfig != "/tmp/wh.kubeconfig" {
		t.Errorf("webhook: kubeconfig %q, err %v", w.kubeconfig, err)
	}

	path := filepath.Join(t.TempDir(), "kubeconfig")
	const kubeconfig = `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://192.0.2.10:6443"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`
	if err := os.WriteFile(path, []byte(kubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := restConfigFor(path)
	if err != nil || cfg.Host != "https://192.0.2.10:6443" {
		t.Errorf("restConfigFor: host %v, err %v", cfg, err)
	}
	if _, err := restConfigFor(filepath.Join(t.TempDir(), "missing")); err == nil || !strings.Contains(err.Error(), "--kubeconfig") {
		t.Errorf("a missing kubeconfig: err %v, want one naming --kubeconfig", err)
	}
}

func TestVersionAndUnknownCommands(t *testing.T) {
	getenv := func(string) string { return "" }
	if err := dispatch([]string{"version"}, getenv); err != nil {
		t.Errorf("version: %v", err)
	}
	if got := versionString(); got != "(devel)" {
		t.Errorf("a build without -ldflags: %q", got)
	}
	version = "1.2.3"
	t.Cleanup(func() { version = "" })
	if got := versionString(); got != "1.2.3" {
		t.Errorf("version %q", got)
	}
	err := dispatch([]string{"frobnicate"}, getenv)
	if err == nil || !strings.Contains(err.Error(), "render") || !strings.Contains(err.Error(), "version") {
		t.Errorf("an unknown command lists the commands: %v", err)
	}
}

// SMBIOS and the machine types are read as upstream's deploy/operator.yaml
// passes them; MACHINETYPE wins over AMD64_MACHINETYPE, and a bad SMBIOS
// stops the operator with the variable named.
func TestParseSMBIOSAndMachineTypes(t *testing.T) {
	vars := map[string]string{
		"SMBIOS":            "Family: KubeVirt\nManufacturer: KubeVirt\nProduct: None",
		"MACHINETYPE":       "pc-q35-rhel9.6.0",
		"AMD64_MACHINETYPE": "pc-q35-other",
		"ARM64_MACHINETYPE": "virt-rhel9.6.0",
	}
	c, _, _, err := parse(nil, func(k string) string { return vars[k] })
	if err != nil {
		t.Fatal(err)
	}
	if c.env.SMBIOS != vars["SMBIOS"] {
		t.Errorf("SMBIOS %q", c.env.SMBIOS)
	}
	want := map[string]string{"amd64": "pc-q35-rhel9.6.0", "arm64": "virt-rhel9.6.0", "s390x": ""}
	if !maps.Equal(c.env.MachineTypes, want) {
		t.Errorf("machine types %v, want %v", c.env.MachineTypes, want)
	}
	delete(vars, "MACHINETYPE")
	if c, _, _, _ = parse(nil, func(k string) string { return vars[k] }); c.env.MachineTypes["amd64"] != "pc-q35-other" {
		t.Errorf("AMD64_MACHINETYPE: %v", c.env.MachineTypes)
	}
	vars["SMBIOS"] = "Famly: KubeVirt"
	if _, _, _, err = parse(nil, func(k string) string { return vars[k] }); err == nil || !strings.Contains(err.Error(), "SMBIOS") {
		t.Errorf("bad SMBIOS: err %v, want one naming SMBIOS", err)
	}
}

// The operator's version is upstream's HCO_KV_IO_VERSION; hcokit's
// HCO_VERSION is an alias that counts only without it.
func TestOperatorVersionIsUpstreamsVariable(t *testing.T) {
	for _, tc := range []struct {
		vars map[string]string
		want string
	}{
		{map[string]string{"HCO_KV_IO_VERSION": "1.20.0"}, "1.20.0"},
		{map[string]string{"HCO_VERSION": "0.1.0"}, "0.1.0"},
		{map[string]string{"HCO_KV_IO_VERSION": "1.20.0", "HCO_VERSION": "0.1.0"}, "1.20.0"},
		{nil, ""},
	} {
		c, _, _, err := parse(nil, func(k string) string { return tc.vars[k] })
		require.NoError(t, err)
		assert.Equal(t, tc.want, c.env.Version, "%v", tc.vars)
	}
}
