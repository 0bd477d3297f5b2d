package diff

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hcokit/hcokit/internal/testenv"
)

// Upgrade preview: the operand CRs made by one build, and an environment
// change (a new SMBIOS) in the binary that diffs, show as a diff; the same
// when the new environment is the operator Deployment's.
func TestUpgradePreviewShowsAnEnvironmentChange(t *testing.T) {
	env.Require(t)
	applyHC(t, baseHC)
	const smbios = "SMBIOS=Family: NewFamily\nManufacturer: hcokit"

	fromFlags := diff(t, []string{smbios})
	require.Equal(t, 1, fromFlags.code, fromFlags.stderr)
	files := parseDiff(t, fromFlags.stdout)
	require.Equal(t, []string{kubevirtFile}, names(files), fromFlags.stdout)
	assert.Contains(t, files[0].added, "      family: NewFamily", fromFlags.stdout)
	assert.Contains(t, files[0].added, "      manufacturer: hcokit", fromFlags.stdout)
	assert.Empty(t, files[0].removed)
	assert.Contains(t, fromFlags.stderr, "no operator Deployment")

	// The installed operator's Deployment says what its environment is.
	d := operatorDeployment([]corev1.EnvVar{
		{Name: "OPERATOR_NAMESPACE", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}},
		{Name: "SMBIOS", Value: strings.TrimPrefix(smbios, "SMBIOS=")},
		{Name: "NETWORK_RESOURCES_INJECTOR_IMAGE", Value: "example.com/injector:1"},
		{Name: "AIE_WEBHOOK_IMAGE", Value: "example.com/aie:1"},
		{Name: "CLI_DOWNLOAD_IMAGE", Value: "example.com/cli:1"},
	})
	require.NoError(t, k.Create(context.Background(), d))
	t.Cleanup(func() { _ = k.Delete(context.Background(), d) })
	fromDeployment := runBinary(t, nil, "diff", "--kubeconfig", kubeconfig, "--operands", diffOperands)
	require.Equal(t, 1, fromDeployment.code, fromDeployment.stderr)
	assert.Equal(t, normalised(fromFlags.stdout), normalised(fromDeployment.stdout))
	assert.NotContains(t, fromDeployment.stderr, "no operator Deployment")

	// A variable from a Secret is not read: the error says what to do.
	d.Spec.Template.Spec.Containers[0].Env = append(d.Spec.Template.Spec.Containers[0].Env, corev1.EnvVar{Name: "HCO_VERSION",
		ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "s"}, Key: "k"}}})
	require.NoError(t, k.Update(context.Background(), d))
	r := runBinary(t, nil, "diff", "--kubeconfig", kubeconfig)
	assert.Equal(t, 2, r.code, r.stderr)
	assert.Contains(t, r.stderr, "env HCO_VERSION takes its value from a source diff does not read; run it with --operator-deployment=")
	assertOnlyReadsAndDryRuns(t)
}

// operatorDeployment is the installed operator's Deployment, as
// config/manager makes it, with env (no pod runs it here).
func operatorDeployment(vars []corev1.EnvVar) *appsv1.Deployment {
	labels := map[string]string{"app.kubernetes.io/name": "hco-operator"}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "hco-operator", Namespace: ns},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{
					Name: "hco-operator", Image: "quay.io/hcokit/hco-operator:0.1.0",
					Args: []string{"--leader-elect", "--metrics-bind-address=:8443", "--health-probe-bind-address=:8081"},
					Env:  vars,
				}}},
			},
		},
	}
}

var (
	tempDirs   = regexp.MustCompile(`/\S*/(LIVE|MERGED)-\d+/`)
	timestamps = regexp.MustCompile(`\t\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+ [+-]\d{4}`)
)

// normalised is diff output without its temporary directories' names and
// the files' times.
func normalised(out string) string {
	return timestamps.ReplaceAllString(tempDirs.ReplaceAllString(out, "$1/"), "")
}

// render --diff gives what diff gives, for the same two HyperConvergeds,
// on a cluster with the node facts render assumes.
func TestRenderDiffIsDiff(t *testing.T) {
	env.Require(t)
	old := withSpec("  virtualization:\n    liveMigrationConfig:\n      parallelMigrationsPerCluster: 7\n")
	next := strings.Replace(
		withSpec("  virtualization:\n    liveMigrationConfig:\n      parallelMigrationsPerCluster: 9\n"),
		"  namespace: kubevirt-hyperconverged\n",
		"  namespace: kubevirt-hyperconverged\n  annotations:\n"+
			"    kubevirt.kubevirt.io/jsonpatch: '[{\"op\":\"add\",\"path\":\"/spec/configuration/cpuRequest\",\"value\":\"200m\"}]'\n"+
			"    containerizeddataimporter.kubevirt.io/jsonpatch: '[{\"op\":\"add\",\"path\":\"/spec/cloneStrategyOverride\",\"value\":\"copy\"}]'\n", 1)
	applyHC(t, old)
	oldFile, nextFile := writeFile(t, "old.yaml", old), writeFile(t, "new.yaml", next)

	live := diff(t, nil, "-f", nextFile)
	require.Equal(t, 1, live.code, live.stderr)
	offline := runBinary(t, imageVars, "render", "--diff", "--operands", diffOperands, oldFile, nextFile)
	require.Equal(t, 1, offline.code, offline.stderr)
	assert.Equal(t, normalised(live.stdout), normalised(offline.stdout))
	assert.Contains(t, live.stdout, "jsonpatch annotation")
	assert.Equal(t, []string{"cdi.kubevirt.io.v1beta1.CDI..cdi-kubevirt-hyperconverged", kubevirtFile}, names(parseDiff(t, live.stdout)))

	same := runBinary(t, imageVars, "render", "--diff", oldFile, oldFile)
	assert.Equal(t, 0, same.code, same.stderr)
	assert.Empty(t, same.stdout)
	assertOnlyReadsAndDryRuns(t)
}

// kubectlPath is the source-built kubectl (hack/build-controlplane.sh):
// in $KUBEBUILDER_ASSETS, else bin/k8s.
func kubectlPath(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("KUBEBUILDER_ASSETS")
	if dir == "" {
		root, err := testenv.RepoRoot()
		require.NoError(t, err)
		dir = filepath.Join(root, "bin", "k8s")
	}
	p := filepath.Join(dir, "kubectl")
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("kubectl not found at %s; CI=true: build it with `make controlplane` (hack/build-controlplane.sh)", p)
		}
		t.Skipf("kubectl not found at %s: run `make controlplane` (hack/build-controlplane.sh builds it from source) to run this test", p)
	}
	return p
}

// The binary installed as kubectl-hco is a kubectl plugin: `kubectl hco
// diff` through a real kubectl.
func TestKubectlPlugin(t *testing.T) {
	env.Require(t)
	kubectl := kubectlPath(t)
	bin, err := binary()
	require.NoError(t, err)
	pluginDir := t.TempDir()
	require.NoError(t, os.Symlink(bin, filepath.Join(pluginDir, "kubectl-hco")))
	path := "PATH=" + pluginDir + string(os.PathListSeparator) + os.Getenv("PATH")
	kubectlRun := func(args ...string) result {
		cmd := exec.Command(kubectl, args...)
		return run(t, cmd, append([]string{path}, imageVars...))
	}

	applyHC(t, baseHC)
	changed := writeFile(t, "hc.yaml", withSpec("  virtualization:\n    liveMigrationConfig:\n      parallelMigrationsPerCluster: 7\n"))
	r := kubectlRun("hco", "diff", "--kubeconfig", kubeconfig, "--operands", diffOperands, "-f", changed)
	require.Equal(t, 1, r.code, r.stderr)
	files := parseDiff(t, r.stdout)
	require.Equal(t, []string{kubevirtFile}, names(files), r.stdout)
	assert.Equal(t, []string{"      parallelMigrationsPerCluster: 7"}, files[0].added)

	r = kubectlRun("hco", "diff", "--kubeconfig", kubeconfig, "--operands", diffOperands)
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Empty(t, r.stdout)

	// A bare `kubectl hco` asks for a command; it does not start an operator.
	r = kubectlRun("hco")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "kubectl hco needs a command")
	assertOnlyReadsAndDryRuns(t)
}

// The diff roles are what diff needs: it runs under them with no request
// forbidden and no write but dry runs, and every grant is used, for a
// first install (no HyperConverged: everything created) and an upgrade (a
// new version label: everything updated), or its one need is named.
func TestDiffRolesAreExactlyWhatDiffNeeds(t *testing.T) {
	env.Require(t)
	full := strings.Replace(
		withSpec("  deployment:\n    applicationAwareConfig:\n      enable: true\n"),
		"  namespace: kubevirt-hyperconverged\n",
		"  namespace: kubevirt-hyperconverged\n  annotations:\n    hco.kubevirt.io/deployAIE: 'true'\n", 1)
	file := writeFile(t, "hc.yaml", full)

	// A first install: the HyperConverged and every object are created.
	r := diff(t, nil, "-f", file)
	require.Equal(t, 1, r.code, r.stderr)
	files := parseDiff(t, r.stdout)
	for _, f := range files {
		assert.True(t, f.created, "%s is created", f.name)
	}
	for _, want := range []string{kubevirtFile, "aaq.kubevirt.io.v1alpha1.AAQ..aaq-kubevirt-hyperconverged",
		"rbac.authorization.k8s.io.v1.ClusterRoleBinding..kubevirt-aie-webhook", "policy.v1.PodDisruptionBudget.kubevirt-hyperconverged.virt-network-resources-injector-pdb"} {
		assert.Contains(t, names(files), want)
	}

	// An upgrade to a new version: every object gets its version label.
	applyHC(t, full)
	r = diff(t, nil, "-f", file, "--operator-version", "v2")
	require.Equal(t, 1, r.code, r.stderr)
	files = parseDiff(t, r.stdout)
	assert.Equal(t, len(names(files)), strings.Count(r.stdout, "+    app.kubernetes.io/version: v2\n"), "each object's change is its version label")
	for _, f := range files {
		assert.False(t, f.created || f.deleted, "%s is updated", f.name)
	}

	assertOnlyReadsAndDryRuns(t)
	reqs := reviewerRequests(t)
	for _, g := range grants(t) {
		if g.usedBy(reqs) {
			continue
		}
		if why := unexercised(g); why != "" {
			t.Logf("%s: not used here: %s", g, why)
			continue
		}
		t.Errorf("%s is granted and never used (least privilege)", g)
	}
}
