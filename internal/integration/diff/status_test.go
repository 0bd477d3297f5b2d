package diff

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"

	"github.com/hcokit/hcokit/internal/testenv"
	"github.com/hcokit/hcokit/stackstatus"
)

// onCall is the account the status view runs as in these tests, bound to
// the shipped status roles only.
const onCall = "hco-status-oncall"

// `hco-operator status` as an on-call account holding only the shipped
// roles (config/rbac/status_role.yaml): it prints the stack, not healthy
// while no component operator reports (exit status 1), the same as JSON,
// and exit status 2 where it cannot read a HyperConverged; every request it
// sends is a get or a list, none forbidden in the operator namespace.
func TestStatusAsTheOnCallAccount(t *testing.T) {
	env.Require(t)
	kc := statusAccount(t)
	applyHC(t, baseHC)

	r := runBinary(t, nil, "status", "--kubeconfig", kc, "--namespace", ns)
	require.Equal(t, 1, r.code, "not healthy: %s%s", r.stdout, r.stderr)
	assert.Contains(t, r.stdout, "First failure: kubevirt › KubeVirt kubevirt-kubevirt-hyperconverged: NoStatusReported (Available=Unknown)")
	assert.NotContains(t, r.stdout, "\x1b[", "no colour off a terminal")
	assert.Empty(t, r.stderr)

	r = runBinary(t, nil, "status", "--kubeconfig", kc, "--namespace", ns, "-o", "json")
	require.Equal(t, 1, r.code, r.stderr)
	var s stackstatus.Stack
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &s), r.stdout)
	assert.False(t, s.Healthy)
	require.NotNil(t, s.FirstFailure)
	assert.Equal(t, []string{"kubevirt", "KubeVirt kubevirt-kubevirt-hyperconverged"}, s.FirstFailure.Path)
	assert.Equal(t, "kubevirt-hyperconverged", s.HyperConverged.Name)

	// Another namespace, where the account may read nothing: an error.
	r = runBinary(t, nil, "status", "--kubeconfig", kc, "--namespace", "nowhere")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "read HyperConverged nowhere/kubevirt-hyperconverged")

	evs, err := env.AuditEvents(0)
	require.NoError(t, err)
	reqs := slices.DeleteFunc(evs, func(e request) bool { return e.Username != "system:serviceaccount:"+reviewersNS+":"+onCall })
	require.NotEmpty(t, reqs, "the audit log records the account's requests")
	for _, req := range reqs {
		switch {
		case req.Forbidden && req.Namespace != "nowhere":
			t.Errorf("forbidden by RBAC: %s", req)
		case req.Verb != "get" && req.Verb != "list":
			t.Errorf("not a read: %s", req)
		}
	}
}

// statusAccount makes the on-call ServiceAccount, the shipped status roles
// bound to it (hco-status cluster-wide, hco-status-namespace in the
// operator namespace), and a kubeconfig with its token.
func statusAccount(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	root, err := testenv.RepoRoot()
	require.NoError(t, err)
	raw, err := os.ReadFile(filepath.Join(root, "config", "rbac", "status_role.yaml"))
	require.NoError(t, err)
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(raw), 4096)
	var names []string
	for {
		role := &rbacv1.ClusterRole{}
		if err := dec.Decode(role); errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		testenv.CreateForTest(t, k, role)
		names = append(names, role.Name)
	}
	require.Equal(t, []string{"hco-status", "hco-status-namespace"}, names)
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: onCall, Namespace: reviewersNS}}
	testenv.CreateForTest(t, k, sa)
	subjects := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: onCall, Namespace: reviewersNS}}
	testenv.CreateForTest(t, k, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: onCall}, Subjects: subjects,
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "hco-status"}})
	testenv.CreateForTest(t, k, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: onCall, Namespace: ns}, Subjects: subjects,
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "hco-status-namespace"}})
	tr := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)}}
	require.NoError(t, k.SubResource("token").Create(ctx, sa, tr))
	path := filepath.Join(t.TempDir(), "oncall.kubeconfig")
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["test"] = &clientcmdapi.Cluster{Server: env.Config.Host, CertificateAuthorityData: env.Config.CAData}
	cfg.AuthInfos[onCall] = &clientcmdapi.AuthInfo{Token: tr.Status.Token}
	cfg.Contexts[onCall] = &clientcmdapi.Context{Cluster: "test", AuthInfo: onCall}
	cfg.CurrentContext = onCall
	require.NoError(t, clientcmd.WriteToFile(*cfg, path))
	return path
}
