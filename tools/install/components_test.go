package install

import (
	"bufio"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// upstreamDir holds upstream HCO's plain-Kubernetes install at 03da3cf
// (testdata/upstream-03da3cf/README.md).
const upstreamDir = "testdata/upstream-03da3cf"

// notInstalledFromUpstream are the objects of upstream's deploy/ that
// hcokit's component operators leave out, each with the reason.
var notInstalledFromUpstream = map[string]string{
	"Deployment/hyperconverged-cluster-operator":         "hcokit's own operator: config/manager (hco-operator)",
	"ServiceAccount/hyperconverged-cluster-operator":     "hcokit's own operator: config/rbac (hco-operator)",
	"ClusterRole/hyperconverged-cluster-operator":        "hcokit's own operator: config/rbac, by name",
	"ClusterRoleBinding/hyperconverged-cluster-operator": "hcokit's own operator: config/rbac",
	"Deployment/hyperconverged-cluster-webhook":          "hcokit's own webhook: config/webhook (hco-webhook)",
	"Service/hyperconverged-cluster-webhook-service":     "hcokit's own webhook: config/webhook (hco-webhook)",
}

func decodeFile(t *testing.T, path string) []*unstructured.Unstructured {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var out []*unstructured.Unstructured
	for _, doc := range strings.Split(string(data), "\n---\n") {
		// Through JSON, as Render does: numbers are int64.
		raw, err := yaml.YAMLToJSON([]byte(doc))
		require.NoError(t, err, path)
		if strings.TrimSpace(string(raw)) == "null" {
			continue
		}
		u := &unstructured.Unstructured{}
		require.NoError(t, u.UnmarshalJSON(raw), path)
		out = append(out, u)
	}
	return out
}

// The component operators of every install (config/operators, and
// ssp-operator and the virtctl download server of OpenShift's) are upstream's objects at 03da3cf, field for
// field: Deployments (images by digest, args, env, probes, resources,
// security contexts, priority classes, placement), Services, service
// accounts, Roles and ClusterRoles (no rule broader or narrower) and their
// bindings; each namespaced one in the install's namespace. None of
// upstream's is left out but hcokit's own workloads.
func TestComponentOperatorsAreUpstreams(t *testing.T) {
	upstream := map[string]*unstructured.Unstructured{}
	for _, f := range []string{"operator.yaml", "service_account.yaml", "cluster_role.yaml", "cluster_role_binding.yaml"} {
		for _, u := range decodeFile(t, filepath.Join(upstreamDir, f)) {
			upstream[u.GetKind()+"/"+u.GetName()] = u
		}
	}
	ours := render(t, "operators", "")
	for _, openShiftOnly := range []string{"../operands/ssp/operator", "../operands/clidownload/operator"} {
		ours = append(ours, render(t, openShiftOnly, "")...)
	}
	seen := map[string]bool{}
	for _, u := range ours {
		key := u.GetKind() + "/" + u.GetName()
		switch u.GetKind() {
		case "CustomResourceDefinition":
			continue // TestComponentOperatorCRDsAreUpstreams
		case "ValidatingWebhookConfiguration":
			continue // from upstream's CSV: tools/bundle's TestComponentWebhooksAreUpstreams
		}
		up, ok := upstream[key]
		if !assert.True(t, ok, "%s is not in upstream's install", key) {
			continue
		}
		seen[key] = true
		want := up.DeepCopy()
		if want.GetNamespace() == "" && u.GetNamespace() != "" {
			want.SetNamespace(defaultNamespace) // upstream's Deployments and Services are applied with -n
		}
		assert.Equal(t, want.Object, u.Object, "%s differs from upstream's deploy/ at 03da3cf", key)
	}
	var left []string
	for key := range upstream {
		if !seen[key] {
			left = append(left, key)
		}
	}
	sort.Strings(left)
	var want []string
	for key := range notInstalledFromUpstream {
		want = append(want, key)
	}
	sort.Strings(want)
	assert.Equal(t, want, left, "upstream's objects that the install leaves out")
}

// Every CRD the component operators bring is upstream's deploy/crds file at
// 03da3cf, byte for byte (its git blob id), and each of upstream's but the
// HyperConverged's (config/crd) is brought by one.
func TestComponentOperatorCRDsAreUpstreams(t *testing.T) {
	f, err := os.Open(filepath.Join(upstreamDir, "crds.blobs"))
	require.NoError(t, err)
	defer f.Close()
	blobs := map[string]string{}
	s := bufio.NewScanner(f)
	for s.Scan() {
		if id, name, ok := strings.Cut(s.Text(), " "); ok && !strings.HasPrefix(id, "#") {
			blobs[name] = id
		}
	}
	require.NoError(t, s.Err())
	repo := filepath.Dir(configRoot)
	files, err := filepath.Glob(filepath.Join(repo, "operands", "*", "operator", "crds", "*.yaml"))
	require.NoError(t, err)
	more, err := filepath.Glob(filepath.Join(configRoot, "operators", "*", "crds", "*.yaml"))
	require.NoError(t, err)
	found := map[string]bool{}
	for _, path := range append(files, more...) {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		h := sha1.New()
		fmt.Fprintf(h, "blob %d\x00", len(data))
		h.Write(data)
		name := filepath.Base(path)
		assert.Equal(t, blobs[name], hex.EncodeToString(h.Sum(nil)), "%s is not upstream's deploy/crds/%s at 03da3cf", path, name)
		found[name] = true
	}
	for name := range blobs {
		if name != "hco00.crd.yaml" {
			assert.True(t, found[name], "upstream's deploy/crds/%s is brought by no component operator", name)
		}
	}
}
