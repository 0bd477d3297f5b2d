package integration

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/hcokit/hcokit/internal/testenv"
)

// manifests reads every object the kustomization in dir renders, following
// its resources (plain files and directories with their own kustomization).
func manifests(t *testing.T, dir string) []*unstructured.Unstructured {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
	require.NoError(t, err)
	var k struct {
		Resources []string `json:"resources"`
	}
	require.NoError(t, yaml.Unmarshal(raw, &k))
	var out []*unstructured.Unstructured
	for _, r := range k.Resources {
		p := filepath.Join(dir, r)
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			out = append(out, manifests(t, p)...)
			continue
		}
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
		for {
			doc, err := reader.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			require.NoError(t, err)
			if len(bytes.TrimSpace(doc)) == 0 || bytes.Equal(bytes.TrimSpace(doc), []byte("---")) {
				continue
			}
			u := &unstructured.Unstructured{}
			require.NoError(t, yaml.Unmarshal(doc, &u.Object), p)
			if len(u.Object) > 0 {
				out = append(out, u)
			}
		}
	}
	return out
}

func configDir(t *testing.T) string {
	root, err := testenv.RepoRoot()
	require.NoError(t, err)
	return filepath.Join(root, "config")
}

// The rendered deployment manifests are accepted by the API server, and the
// RBAC they grant lets the operator do its job.
func TestDeploymentManifestsAreAccepted(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	objs := manifests(t, configDir(t))
	kinds := map[string]bool{}
	for _, u := range objs {
		kinds[u.GetKind()] = true
		// Server-side apply with a dry run leaves the shared control plane
		// as it is for the other tests.
		err := k.Patch(ctx, u, client.Apply, client.FieldOwner("manifest-test"), client.ForceOwnership, client.DryRunAll)
		assert.NoError(t, err, "%s %s", u.GetKind(), u.GetName())
	}
	for _, kind := range []string{"CustomResourceDefinition", "Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding", "Deployment"} {
		assert.True(t, kinds[kind], "the manifests have a %s", kind)
	}

	// Apply the RBAC for real and ask the API server what it allows.
	for _, u := range manifests(t, configDir(t)) {
		switch u.GetKind() {
		case "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding":
			require.NoError(t, k.Patch(ctx, u, client.Apply, client.FieldOwner("manifest-test"), client.ForceOwnership))
		}
	}
	sa := "system:serviceaccount:kubevirt-hyperconverged:hco-operator"
	for _, tc := range []struct {
		group, resource, subresource, verb, namespace string
		allowed                                       bool
	}{
		{"hco.kubevirt.io", "hyperconvergeds", "", "watch", "", true},
		{"hco.kubevirt.io", "hyperconvergeds", "status", "patch", ns, true},
		{"kubevirt.io", "kubevirts", "", "update", ns, true},
		{"cdi.kubevirt.io", "cdis", "", "delete", "", true},
		{"networkaddonsoperator.network.kubevirt.io", "networkaddonsconfigs", "", "create", "", true},
		{"events.k8s.io", "events", "", "create", ns, true},
		{"coordination.k8s.io", "leases", "", "update", ns, true},
		{"coordination.k8s.io", "leases", "", "update", "default", false},
		{"", "secrets", "", "list", "", false},
		{"", "pods", "", "list", "", false},
		{"kubevirt.io", "virtualmachines", "", "delete", "", false},
	} {
		sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: sa, Groups: []string{"system:serviceaccounts", "system:serviceaccounts:kubevirt-hyperconverged"},
			ResourceAttributes: &authorizationv1.ResourceAttributes{Group: tc.group, Resource: tc.resource, Subresource: tc.subresource, Verb: tc.verb, Namespace: tc.namespace},
		}}
		require.NoError(t, k.Create(ctx, sar))
		assert.Equal(t, tc.allowed, sar.Status.Allowed, "%s %s/%s %s in %q: %s", tc.verb, tc.group, tc.resource, tc.subresource, tc.namespace, sar.Status.Reason)
	}
}

// Least privilege: no wildcard verbs, resources or groups.
func TestRBACHasNoWildcards(t *testing.T) {
	for _, u := range manifests(t, filepath.Join(configDir(t), "rbac")) {
		if u.GetKind() != "ClusterRole" && u.GetKind() != "Role" {
			continue
		}
		var role rbacv1.ClusterRole
		b, err := u.MarshalJSON()
		require.NoError(t, err)
		require.NoError(t, yaml.Unmarshal(b, &role))
		require.NotEmpty(t, role.Rules)
		for _, r := range role.Rules {
			for _, field := range [][]string{r.Verbs, r.Resources, r.APIGroups} {
				assert.NotContains(t, field, "*", "%s %s", u.GetKind(), u.GetName())
			}
		}
	}
}
