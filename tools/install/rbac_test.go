package install

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The RBAC of the default install, applied in a namespace of its own and
// asked of the API server: the operator's namespaced kinds are granted in its
// namespace only, and neither service account can touch what it does not
// manage. (TestInstall runs both under it; this names the boundaries.)
func TestRBACBoundaries(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	const ns = "hco-rbac"
	require.NoError(t, client.IgnoreAlreadyExists(env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})))
	for _, u := range render(t, ".", ns) {
		switch u.GetKind() {
		case "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding":
			if u.GetNamespace() == "" {
				// Cluster-wide objects of the same name belong to TestInstall:
				// leave them alone, and ask only about the namespaced grants.
				continue
			}
			require.NoError(t, env.Client.Patch(ctx, u, client.Apply, client.FieldOwner("rbac-test"), client.ForceOwnership))
			t.Cleanup(func() { _ = env.Client.Delete(ctx, u) })
		}
	}
	operator := "system:serviceaccount:" + ns + ":hco-operator"
	webhook := "system:serviceaccount:" + ns + ":hco-webhook"
	for _, tc := range []struct {
		user, group, resource, verb, namespace, name string
		allowed                                      bool
	}{
		{operator, "apps", "deployments", "create", ns, "", true},
		{operator, "apps", "deployments", "create", "default", "", false},
		{operator, "", "services", "delete", ns, "", true},
		{operator, "", "services", "delete", "default", "", false},
		{operator, "kubevirt.io", "kubevirts", "update", ns, "", true},
		{operator, "kubevirt.io", "kubevirts", "update", "default", "", false},
		{operator, "ssp.kubevirt.io", "ssps", "create", ns, "", true},
		{operator, "events.k8s.io", "events", "create", ns, "", true},
		{operator, "events.k8s.io", "events", "create", "default", "", false},
		{operator, "coordination.k8s.io", "leases", "update", ns, "hyperconverged-cluster-operator-lock", true},
		{operator, "coordination.k8s.io", "leases", "update", ns, "hco-webhook-cert-rotator", false},
		{operator, "coordination.k8s.io", "leases", "update", "default", "hyperconverged-cluster-operator-lock", false},
		{operator, "", "secrets", "list", ns, "", false},
		{operator, "", "pods", "list", ns, "", false},
		{operator, "kubevirt.io", "virtualmachines", "delete", "default", "", false},
		{webhook, "", "secrets", "update", ns, "hco-webhook-cert", true},
		{webhook, "", "secrets", "update", ns, "other", false},
		// Its certificate rotators' caches list and watch their own Secrets
		// only, by name (KubeVirt's CA lives in this namespace too).
		{webhook, "", "secrets", "list", ns, "", false},
		{webhook, "", "secrets", "watch", ns, "", false},
		{webhook, "", "secrets", "list", ns, "hco-metrics-cert", true},
		{webhook, "", "secrets", "list", "default", "", false},
		{webhook, "coordination.k8s.io", "leases", "update", ns, "hco-webhook-cert-rotator", true},
		{webhook, "coordination.k8s.io", "leases", "update", ns, "hyperconverged-cluster-operator-lock", false},
		{webhook, "hco.kubevirt.io", "hyperconvergeds", "update", ns, "", false},
	} {
		sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: tc.user, Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"},
			ResourceAttributes: &authorizationv1.ResourceAttributes{Group: tc.group, Resource: tc.resource, Verb: tc.verb, Namespace: tc.namespace, Name: tc.name},
		}}
		require.NoError(t, env.Client.Create(ctx, sar))
		assert.Equal(t, tc.allowed, sar.Status.Allowed, "%s: %s %s/%s %q in %q: %s", tc.user, tc.verb, tc.group, tc.resource, tc.name, tc.namespace, sar.Status.Reason)
	}
}
