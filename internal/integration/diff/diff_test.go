package diff

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// baseHC is the default HyperConverged, as an admin writes it.
const baseHC = `apiVersion: hco.kubevirt.io/v1
kind: HyperConverged
metadata:
  name: kubevirt-hyperconverged
  namespace: kubevirt-hyperconverged
spec: {}
`

// withSpec is baseHC with another spec (YAML, indented by two spaces).
func withSpec(spec string) string {
	return strings.Replace(baseHC, "spec: {}\n", "spec:\n"+spec, 1)
}

// withAnnotation is baseHC with one annotation.
func withAnnotation(key, value string) string {
	return strings.Replace(baseHC, "  namespace: kubevirt-hyperconverged\n",
		"  namespace: kubevirt-hyperconverged\n  annotations:\n    "+key+": '"+value+"'\n", 1)
}

// fileDiff is the diff of one object in the output: its file name and the
// lines it adds and removes.
type fileDiff struct {
	name           string
	added, removed []string
	created        bool // the live side is empty
	deleted        bool // the merged side is empty
}

var hunkHeader = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@`)

// parseDiff splits `diff -u -N` output of two directories into the
// objects' diffs, in order.
func parseDiff(t *testing.T, out string) []fileDiff {
	t.Helper()
	var files []fileDiff
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		switch {
		case line == "":
		case strings.HasPrefix(line, "diff -u -N "):
			fields := strings.Fields(line)
			files = append(files, fileDiff{name: fields[len(fields)-1][strings.LastIndex(fields[len(fields)-1], "/")+1:]})
		case strings.HasPrefix(line, "# "):
		case len(files) == 0:
			t.Fatalf("output before the first diff: %q", line)
		case strings.HasPrefix(line, "--- "), strings.HasPrefix(line, "+++ "):
		case strings.HasPrefix(line, "@@"):
			m := hunkHeader.FindStringSubmatch(line)
			require.NotNil(t, m, line)
			f := &files[len(files)-1]
			f.created = f.created || (m[1] == "0" && m[2] == "0")
			f.deleted = f.deleted || (m[3] == "0" && m[4] == "0")
		case strings.HasPrefix(line, "+"):
			files[len(files)-1].added = append(files[len(files)-1].added, strings.TrimPrefix(line, "+"))
		case strings.HasPrefix(line, "-"):
			files[len(files)-1].removed = append(files[len(files)-1].removed, strings.TrimPrefix(line, "-"))
		}
	}
	return files
}

func names(files []fileDiff) []string {
	var out []string
	for _, f := range files {
		out = append(out, f.name)
	}
	return out
}

const kubevirtFile = "kubevirt.io.v1.KubeVirt.kubevirt-hyperconverged.kubevirt-kubevirt-hyperconverged"

// With the operator converged, nothing to do is exit status 0 and no
// output, for the live HyperConverged and for the same one in a file.
func TestNoChangeExitsZeroWithNoOutput(t *testing.T) {
	env.Require(t)
	applyHC(t, baseHC)
	for _, args := range [][]string{nil, {"-f", writeFile(t, "hc.yaml", baseHC)}} {
		before := len(reviewerRequests(t))
		start := time.Now()
		r := diff(t, nil, args...)
		took := time.Since(start)
		assert.Equal(t, 0, r.code, "%v: %s", args, r.stderr)
		assert.Empty(t, r.stdout, "%v", args)

		// What one diff costs (docs/diff.md): one list per operand kind,
		// at most one dry run per object, a few reads.
		lists, dryRuns, others := map[string]int{}, map[string]int{}, 0
		for _, req := range reviewerRequests(t)[before:] {
			switch {
			case req.Verb == "list":
				lists[req.Group+"/"+req.Resource]++
			case dryRun(req):
				dryRuns[req.Group+"/"+req.Resource+" "+req.Namespace+"/"+req.Name]++
			default:
				others++
			}
		}
		for what, n := range lists {
			assert.Equal(t, 1, n, "%v: lists of %s", args, what)
		}
		for what, n := range dryRuns {
			assert.Equal(t, 1, n, "%v: dry runs of %s", args, what)
		}
		t.Logf("%v: %d lists, %d dry runs, %d other requests (discovery, gets) in %v", args, len(lists), len(dryRuns), others, took)
	}
	assertOnlyReadsAndDryRuns(t)
}

// A spec change shows exactly its lines in KubeVirt, and nothing elsewhere.
func TestSpecChangeShowsExactlyTheKubeVirtLines(t *testing.T) {
	env.Require(t)
	applyHC(t, baseHC)
	changed := withSpec("  virtualization:\n    liveMigrationConfig:\n      parallelMigrationsPerCluster: 7\n")
	r := diff(t, nil, "-f", writeFile(t, "hc.yaml", changed))
	require.Equal(t, 1, r.code, "differences: exit status 1; stderr: %s", r.stderr)
	files := parseDiff(t, r.stdout)
	require.Equal(t, []string{kubevirtFile}, names(files), r.stdout)
	assert.Equal(t, []string{"      parallelMigrationsPerCluster: 5"}, files[0].removed, r.stdout)
	assert.Equal(t, []string{"      parallelMigrationsPerCluster: 7"}, files[0].added, r.stdout)
	assert.Contains(t, r.stdout, "--- /tmp/LIVE-", "kubectl diff's directories")
	assert.Contains(t, r.stdout, "+++ /tmp/MERGED-")

	// The same change written in v1beta1 goes through the conversion.
	v1beta1Form := strings.Replace(strings.Replace(baseHC, "hco.kubevirt.io/v1\n", "hco.kubevirt.io/v1beta1\n", 1),
		"spec: {}\n", "spec:\n  liveMigrationConfig:\n    parallelMigrationsPerCluster: 7\n", 1)
	old := r.stdout
	r = diff(t, nil, "-f", writeFile(t, "hc.yaml", v1beta1Form))
	require.Equal(t, 1, r.code, r.stderr)
	assert.Equal(t, normalised(old), normalised(r.stdout), "v1beta1 and v1 forms give the same diff")

	// The live HyperConverged is unchanged: the update was a dry run.
	r = diff(t, nil)
	assert.Equal(t, 0, r.code, r.stdout+r.stderr)
	assertOnlyReadsAndDryRuns(t)
}

// A jsonpatch annotation shows its effect, named in a header line.
func TestJSONPatchShowsItsEffect(t *testing.T) {
	env.Require(t)
	applyHC(t, baseHC)
	patched := withAnnotation("kubevirt.kubevirt.io/jsonpatch", `[{"op":"add","path":"/spec/configuration/cpuRequest","value":"200m"}]`)
	r := diff(t, nil, "-f", writeFile(t, "hc.yaml", patched))
	require.Equal(t, 1, r.code, r.stderr)
	files := parseDiff(t, r.stdout)
	require.Equal(t, []string{kubevirtFile}, names(files), r.stdout)
	assert.Equal(t, []string{"    cpuRequest: 200m"}, files[0].added)
	assert.Empty(t, files[0].removed)
	assert.True(t, strings.HasPrefix(r.stdout,
		`# KubeVirt kubevirt-hyperconverged/kubevirt-kubevirt-hyperconverged: jsonpatch annotation "kubevirt.kubevirt.io/jsonpatch" in effect (1 operation)`+"\n"),
		"the header line names the annotation:\n%s", r.stdout)
	assertOnlyReadsAndDryRuns(t)
}

// A change the webhook refuses is an error (exit status above 1) with the
// webhook's message, and nothing is written; its warnings are printed.
func TestRefusedChangeExitsWithTheWebhooksMessageAndWarningsArePrinted(t *testing.T) {
	env.Require(t)
	applyHC(t, baseHC)
	refused := withAnnotation("kubevirt.kubevirt.io/jsonpatch", `[{"op":"add","path":"/metadata/labels/x","value":"y"}]`)
	r := diff(t, nil, "-f", writeFile(t, "hc.yaml", refused))
	assert.Greater(t, r.code, 1, "an error: %s", r.stderr)
	assert.Empty(t, r.stdout)
	assert.Contains(t, r.stderr, `admission webhook "validate-hyperconverged.hco.kubevirt.io" denied the request`)
	assert.Contains(t, r.stderr, "only paths under /spec may be patched")

	// A warning is printed as the API server gives it; the change itself
	// does nothing to the operands.
	warned := strings.Replace(strings.Replace(baseHC, "hco.kubevirt.io/v1\n", "hco.kubevirt.io/v1beta1\n", 1),
		"spec: {}\n", "spec:\n  localStorageClassName: local\n", 1)
	r = diff(t, nil, "-f", writeFile(t, "hc.yaml", warned))
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Empty(t, r.stdout)
	assert.Contains(t, r.stderr, "Warning: spec.localStorageClassName is deprecated and ignored")

	// An unknown field is refused by the API server's strict validation.
	r = diff(t, nil, "-f", writeFile(t, "hc.yaml", withSpec("  noSuchField: 1\n")))
	assert.Greater(t, r.code, 1, r.stderr)
	assert.Contains(t, r.stderr, `unknown field "spec.noSuchField"`)
	assertOnlyReadsAndDryRuns(t)
}

// Enabling the HPP shows a HostPathProvisioner created, as a whole file;
// disabling it, deleted.
func TestHPPCreatedAndDeleted(t *testing.T) {
	env.Require(t)
	grantHPP(t)
	withHPP := withSpec("  storage:\n    hostpathProvisioner:\n      storagePools:\n      - name: local\n        path: /var/hpvolumes\n")
	const hppFile = "hostpathprovisioner.kubevirt.io.v1beta1.HostPathProvisioner..hostpath-provisioner"
	operands := []string{"--operands", diffOperands + ",hpp"}

	applyHC(t, baseHC)
	r := diff(t, nil, append(operands, "-f", writeFile(t, "hc.yaml", withHPP))...)
	require.Equal(t, 1, r.code, r.stderr)
	files := parseDiff(t, r.stdout)
	require.Equal(t, []string{hppFile}, names(files), r.stdout)
	assert.True(t, files[0].created, "a whole file: %s", r.stdout)
	assert.Contains(t, files[0].added, "kind: HostPathProvisioner")
	assert.Contains(t, files[0].added, "  - name: local")
	assert.Empty(t, files[0].removed)

	applyHC(t, withHPP)
	r = diff(t, nil, append(operands, "-f", writeFile(t, "hc.yaml", baseHC))...)
	require.Equal(t, 1, r.code, r.stderr)
	files = parseDiff(t, r.stdout)
	require.Equal(t, []string{hppFile}, names(files), r.stdout)
	assert.True(t, files[0].deleted, "a whole file: %s", r.stdout)
	assert.Contains(t, files[0].removed, "kind: HostPathProvisioner")
	assert.Empty(t, files[0].added)
	assertOnlyReadsAndDryRuns(t)
}
