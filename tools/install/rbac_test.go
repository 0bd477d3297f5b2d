package install

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/hcokit/hcokit/operands/dashboard"
	"github.com/hcokit/hcokit/tools/install/internal/installtest"
)

// The RBAC of the default install, applied in a namespace of its own and
// asked of the API server: the operator's namespaced kinds are granted in its
// namespace only, and neither service account can touch what it does not
// manage; the cluster-wide grants (applied renamed for that namespace) reach
// the shared and cluster-scoped objects by name only. (TestInstall runs both
// under it; this names the boundaries.)
func TestRBACBoundaries(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	const ns = "hco-rbac"
	require.NoError(t, client.IgnoreAlreadyExists(env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})))
	objs := render(t, "default", ns)
	roles := map[string]bool{}
	for _, u := range objs {
		if u.GetKind() == "ClusterRole" {
			roles[u.GetName()] = true
		}
	}
	for _, u := range objs {
		switch u.GetKind() {
		case "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding":
			if u.GetNamespace() == "" {
				// Cluster-wide objects of the same name belong to
				// TestInstall: these are renamed for this namespace.
				u.SetName(u.GetName() + "-" + ns)
				if ref, _, _ := unstructured.NestedString(u.Object, "roleRef", "name"); u.GetKind() == "ClusterRoleBinding" && roles[ref] {
					require.NoError(t, unstructured.SetNestedField(u.Object, ref+"-"+ns, "roleRef", "name"))
				}
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
		subresource                                  string
	}{
		{operator, "apps", "deployments", "create", ns, "", true, ""},
		{operator, "apps", "deployments", "create", "default", "", false, ""},
		{operator, "", "services", "delete", ns, "", true, ""},
		{operator, "", "services", "delete", "default", "", false, ""},
		{operator, "kubevirt.io", "kubevirts", "update", ns, "", true, ""},
		{operator, "kubevirt.io", "kubevirts", "update", "default", "", false, ""},
		{operator, "ssp.kubevirt.io", "ssps", "create", ns, "", true, ""},
		{operator, "events.k8s.io", "events", "create", ns, "", true, ""},
		{operator, "events.k8s.io", "events", "create", "default", "", false, ""},
		{operator, "coordination.k8s.io", "leases", "update", ns, "hyperconverged-cluster-operator-lock", true, ""},
		{operator, "coordination.k8s.io", "leases", "update", ns, "hco-webhook-cert-rotator", false, ""},
		{operator, "coordination.k8s.io", "leases", "update", "default", "hyperconverged-cluster-operator-lock", false, ""},
		{operator, "", "secrets", "list", ns, "", false, ""},
		{operator, "", "pods", "list", ns, "", false, ""},
		{operator, "kubevirt.io", "virtualmachines", "delete", "default", "", false, ""},
		{webhook, "", "secrets", "update", ns, "hco-webhook-cert", true, ""},
		{webhook, "", "secrets", "update", ns, "other", false, ""},
		// Its certificate rotators' caches list and watch their own Secrets
		// only, by name (KubeVirt's CA lives in this namespace too).
		{webhook, "", "secrets", "list", ns, "", false, ""},
		{webhook, "", "secrets", "watch", ns, "", false, ""},
		{webhook, "", "secrets", "list", ns, "hco-metrics-cert", true, ""},
		{webhook, "", "secrets", "list", "default", "", false, ""},
		{webhook, "coordination.k8s.io", "leases", "update", ns, "hco-webhook-cert-rotator", true, ""},
		{webhook, "coordination.k8s.io", "leases", "update", ns, "hyperconverged-cluster-operator-lock", false, ""},
		{webhook, "hco.kubevirt.io", "hyperconvergeds", "update", ns, "", false, ""},
		// OpenShift's objects, by name where they are shared or
		// cluster-scoped: the console plugin's, the Console and Ingress
		// configurations' lists (hco.ListMember), the wasp agent's
		// SecurityContextConstraints and binding, the UI's and virtio-win's
		// Roles in the operator's namespace.
		{operator, "console.openshift.io", "consoleplugins", "update", "", "kubevirt-plugin", true, ""},
		{operator, "console.openshift.io", "consoleplugins", "update", "", "another-plugin", false, ""},
		{operator, "console.openshift.io", "consoleplugins", "delete", "", "another-plugin", false, ""},
		{operator, "operator.openshift.io", "consoles", "patch", "", "cluster", true, ""},
		{operator, "operator.openshift.io", "consoles", "update", "", "cluster", false, ""},
		{operator, "operator.openshift.io", "consoles", "patch", "", "other", false, ""},
		{operator, "config.openshift.io", "ingresses", "patch", "", "cluster", true, "status"},
		{operator, "config.openshift.io", "ingresses", "patch", "", "cluster", false, ""},
		{operator, "config.openshift.io", "ingresses", "update", "", "cluster", false, ""},
		{operator, "security.openshift.io", "securitycontextconstraints", "update", "", "wasp", true, ""},
		{operator, "security.openshift.io", "securitycontextconstraints", "update", "", "privileged", false, ""},
		{operator, "security.openshift.io", "securitycontextconstraints", "use", "", "privileged", false, ""},
		{operator, "rbac.authorization.k8s.io", "clusterroles", "bind", "", "wasp-cluster", true, ""},
		{operator, "rbac.authorization.k8s.io", "clusterroles", "bind", "", "cluster-admin", false, ""},
		{operator, "rbac.authorization.k8s.io", "clusterroles", "escalate", "", "wasp-cluster", false, ""},
		{operator, "rbac.authorization.k8s.io", "roles", "update", ns, "virtio-win", true, ""},
		{operator, "rbac.authorization.k8s.io", "roles", "update", ns, "kubevirt-ui-config-reader", true, ""},
		{operator, "rbac.authorization.k8s.io", "roles", "update", ns, "another-role", false, ""},
		{operator, "rbac.authorization.k8s.io", "roles", "create", "default", "", false, ""},
		{operator, "rbac.authorization.k8s.io", "roles", "escalate", ns, "", false, ""},
		{operator, "rbac.authorization.k8s.io", "roles", "bind", ns, "", false, ""},
		{operator, "", "configmaps", "patch", ns, "kubevirt-user-settings", true, ""},
		{operator, "", "configmaps", "patch", ns, "kubevirt-ui-features", false, ""},
		{operator, "networking.k8s.io", "networkpolicies", "create", ns, "", true, ""},
		{operator, "networking.k8s.io", "networkpolicies", "create", "default", "", false, ""},
		{operator, "apps", "daemonsets", "create", ns, "", true, ""},
		{operator, "apps", "daemonsets", "create", "default", "", false, ""},
		{operator, "", "secrets", "get", "openshift-config", "virtctl-cert", false, ""},
		// The Perses dashboards and datasource (operands/perses): in the
		// operator's namespace only (upstream grants them everywhere).
		{operator, "perses.dev", "persesdashboards", "create", ns, "", true, ""},
		{operator, "perses.dev", "persesdashboards", "update", ns, "cnv-node-memory-overview", true, ""},
		{operator, "perses.dev", "persesdashboards", "update", "default", "", false, ""},
		{operator, "perses.dev", "persesdatasources", "delete", ns, "perses-thanos-datasource", true, ""},
		{operator, "perses.dev", "persesdatasources", "create", "default", "", false, ""},
		{webhook, "perses.dev", "persesdashboards", "create", ns, "", false, ""},
	} {
		sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: tc.user, Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"},
			ResourceAttributes: &authorizationv1.ResourceAttributes{Group: tc.group, Resource: tc.resource, Subresource: tc.subresource, Verb: tc.verb, Namespace: tc.namespace, Name: tc.name},
		}}
		require.NoError(t, env.Client.Create(ctx, sar))
		assert.Equal(t, tc.allowed, sar.Status.Allowed, "%s: %s %s/%s%s %q in %q: %s", tc.user, tc.verb, tc.group, tc.resource, "/"+tc.subresource, tc.name, tc.namespace, sar.Status.Reason)
	}
}

// config/openshift's Roles, applied as they are and asked of the API server
// as the default install's operator account: the dashboards' ConfigMaps in
// openshift-config-managed; in openshift-monitoring, only listing (get) and
// making (create) silences through the Alertmanager "main"'s proxy, which
// asks exactly these (alertsilence.OpenShiftURL), not deleting them, not
// another Alertmanager's, not elsewhere.
func TestOpenShiftRBACBoundaries(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	for _, u := range render(t, "openshift", "") {
		switch u.GetKind() {
		case "Role", "RoleBinding":
			// The namespaces stay: a namespace is never gone on this
			// control plane, which runs no namespace controller.
			ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: u.GetNamespace()}}
			require.NoError(t, client.IgnoreAlreadyExists(env.Client.Create(ctx, ns)))
			require.NoError(t, env.Client.Patch(ctx, u, client.Apply, client.FieldOwner("rbac-test"), client.ForceOwnership))
			t.Cleanup(func() { _ = env.Client.Delete(ctx, u) })
		}
	}
	operator := "system:serviceaccount:" + defaultNamespace + ":hco-operator"
	const group, resource, sub, ns = "monitoring.coreos.com", "alertmanagers", "api", "openshift-monitoring"
	for _, tc := range []struct {
		group, resource, subresource, verb, namespace, name string
		allowed                                             bool
	}{
		{group, resource, sub, "get", ns, "main", true},
		{group, resource, sub, "create", ns, "main", true},
		{group, resource, sub, "delete", ns, "main", false},
		{group, resource, sub, "update", ns, "main", false},
		{group, resource, sub, "get", ns, "user-workload", false},
		{group, resource, sub, "create", "openshift-user-workload-monitoring", "main", false},
		{group, resource, "", "get", ns, "main", false},
		{"", "configmaps", "", "update", dashboard.Namespace, "grafana-dashboard-kubevirt-top-consumers", true},
		{"", "configmaps", "", "list", dashboard.Namespace, "", true},
		{"", "configmaps", "", "list", ns, "", false},
		{"", "secrets", "", "get", dashboard.Namespace, "", false},
	} {
		sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: operator, Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + defaultNamespace, "system:authenticated"},
			ResourceAttributes: &authorizationv1.ResourceAttributes{Group: tc.group, Resource: tc.resource, Subresource: tc.subresource, Verb: tc.verb, Namespace: tc.namespace, Name: tc.name},
		}}
		// The authorizer learns of the Roles just applied through its
		// informers: what they allow is awaited (a Role deleted and applied
		// again, as with go test -count=2, may not be seen at once); what
		// they must not allow is asked once that is seen.
		if tc.allowed {
			installtest.WaitFor(t, fmt.Sprintf("%s %s/%s allowed", tc.verb, tc.resource, tc.subresource), func() error {
				sar := sar.DeepCopy()
				if err := env.Client.Create(ctx, sar); err != nil {
					return err
				}
				if !sar.Status.Allowed {
					return fmt.Errorf("not allowed (yet): %s", sar.Status.Reason)
				}
				return nil
			})
			continue
		}
		require.NoError(t, env.Client.Create(ctx, sar))
		assert.False(t, sar.Status.Allowed, "%s %s/%s/%s %q in %q: %s", tc.verb, tc.group, tc.resource, tc.subresource, tc.name, tc.namespace, sar.Status.Reason)
	}
}
