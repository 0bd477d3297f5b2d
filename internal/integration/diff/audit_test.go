package diff

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/hcokit/hcokit/internal/testenv"
)

// request is one request of the reviewer, from the audit log.
type request = testenv.AuditEvent

// dryRun reports whether r is a server-side dry run.
func dryRun(r request) bool { return strings.Contains(r.URI, "dryRun=All") }

// reviewerRequests reads the reviewer's requests from the audit log.
func reviewerRequests(t *testing.T) []request {
	t.Helper()
	evs, err := env.AuditEvents(0)
	require.NoError(t, err)
	return slices.DeleteFunc(evs, func(e request) bool { return e.Username != reviewerUser })
}

// assertOnlyReadsAndDryRuns fails t on any request of the reviewer so far
// that is neither a read nor a server-side dry run, and on any the API
// server forbade (the roles lack a grant diff needs).
func assertOnlyReadsAndDryRuns(t *testing.T) {
	t.Helper()
	reqs := reviewerRequests(t)
	require.NotEmpty(t, reqs, "the audit log records the reviewer's requests")
	for _, r := range reqs {
		switch {
		case r.Forbidden:
			t.Errorf("forbidden by RBAC: %s", r)
		case r.Verb == "get" || r.Verb == "list" || r.Verb == "watch":
		case !dryRun(r):
			t.Errorf("a write that is not a dry run: %s", r)
		}
	}
}

// grantHPP adds to the ClusterRole hco-diff what config/components/hpp
// adds to it, as kustomize does (its patch of that ClusterRole), until the
// test ends.
func grantHPP(t *testing.T) {
	t.Helper()
	root, err := testenv.RepoRoot()
	require.NoError(t, err)
	raw, err := os.ReadFile(filepath.Join(root, "config", "components", "hpp", "kustomization.yaml"))
	require.NoError(t, err)
	var component struct {
		Patches []struct {
			Target struct{ Kind, Name string }
			Patch  string
		}
	}
	require.NoError(t, yaml.Unmarshal(raw, &component))
	i := slices.IndexFunc(component.Patches, func(p struct {
		Target struct{ Kind, Name string }
		Patch  string
	}) bool {
		return p.Target.Kind == "ClusterRole" && p.Target.Name == "hco-diff"
	})
	require.GreaterOrEqual(t, i, 0, "config/components/hpp patches the ClusterRole hco-diff")
	ops, err := yaml.YAMLToJSON([]byte(component.Patches[i].Patch))
	require.NoError(t, err)
	patch, err := jsonpatch.DecodePatch(ops)
	require.NoError(t, err)

	ctx := context.Background()
	role := &rbacv1.ClusterRole{}
	require.NoError(t, k.Get(ctx, client.ObjectKey{Name: "hco-diff"}, role))
	original := role.DeepCopy()
	doc, err := json.Marshal(role)
	require.NoError(t, err)
	doc, err = patch.Apply(doc)
	require.NoError(t, err)
	patched := &rbacv1.ClusterRole{}
	require.NoError(t, json.Unmarshal(doc, patched))
	require.NoError(t, k.Update(ctx, patched))
	t.Cleanup(func() {
		current := &rbacv1.ClusterRole{}
		require.NoError(t, k.Get(ctx, client.ObjectKey{Name: "hco-diff"}, current))
		current.Rules = original.Rules
		require.NoError(t, k.Update(ctx, current))
	})
}

// grant is one verb on one resource the diff roles give.
type grant struct {
	role, group, resource, verb string
	names                       []string
}

func (g grant) String() string {
	return fmt.Sprintf("%s: %s %s/%s %v", g.role, g.verb, g.group, g.resource, g.names)
}

// grants expands the diff roles into one grant per group, resource and verb.
func grants(t *testing.T) []grant {
	t.Helper()
	root, err := testenv.RepoRoot()
	require.NoError(t, err)
	roles, err := diffRoles(root)
	require.NoError(t, err)
	var out []grant
	for _, role := range roles {
		for _, r := range role.Rules {
			for _, g := range r.APIGroups {
				for _, res := range r.Resources {
					for _, v := range r.Verbs {
						out = append(out, grant{role: role.Name, group: g, resource: res, verb: v, names: r.ResourceNames})
					}
				}
			}
		}
	}
	return out
}

// usedBy reports whether a request of reqs used g.
func (g grant) usedBy(reqs []request) bool {
	return slices.ContainsFunc(reqs, func(r request) bool {
		return !r.Forbidden && r.Group == g.group && r.Resource == g.resource && r.Verb == g.verb &&
			(len(g.names) == 0 || slices.Contains(g.names, r.Name))
	})
}

// unexercised says why diff needs a grant that the role test's runs do not
// use, or "" when it has no excuse.
func unexercised(g grant) string {
	switch {
	case g.verb == "bind":
		return "checked by the API server on the dry-run create of a ClusterRoleBinding to a ClusterRole that does not exist yet; no request of its own"
	case g.resource == "ingresses":
		return "OpenShift's Ingress configuration, read for the platform facts on OpenShift only (ClusterVersion served), which this control plane is not"
	case g.resource == "consoles":
		return "OpenShift's console configuration, a shared list (spec.plugins) read on OpenShift only, which this control plane is not"
	case g.group == "console.openshift.io" || g.group == "security.openshift.io" || g.group == "route.openshift.io" || g.group == "image.openshift.io" ||
		g.resource == "roles" || g.resource == "rolebindings" || g.resource == "networkpolicies" || g.resource == "daemonsets":
		return "the OpenShift-only operands' kinds (the virtctl download's Route and console link, the console plugin, virtio-win, the wasp agent, the image streams), planned on OpenShift only, which this control plane is not"
	case g.group == "perses.dev":
		return "the Perses dashboards and datasource, planned on OpenShift only where the Perses API is served, which this control plane is neither"
	case g.resource == "configmaps" && g.verb == "patch":
		return "never a request: held so that the dry-run create of the console plugin's config-reader Role, which grants it, passes the API server's escalation check"
	case g.verb == "get" && g.resource != "hyperconvergeds" && g.resource != "deployments" && g.resource != "apiservers":
		return "read by name only for an object whose managed-by labels were edited away (a create finds it exists)"
	}
	return ""
}

// The reviewers' account writes nothing but dry runs: its roles allow
// creating a PriorityClass and a ConfigMap and updating a ConfigMap in the
// operator namespace, and config/diff's admission policy refuses each of
// them unless it is a dry run. (A second account of the same name, in a
// namespace the audit policy leaves out, so that the reviewer's log stays
// reads and dry runs.)
func TestReviewerAccountSendsDryRunsOnly(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	const other = "diff-policy"
	testenv.EnsureNamespace(t, k, other)
	subjects := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: reviewer, Namespace: other}}
	testenv.CreateForTest(t, k, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "hco-diff-policy-test"}, Subjects: subjects,
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "hco-diff"}})
	testenv.CreateForTest(t, k, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "hco-diff-policy-test", Namespace: ns}, Subjects: subjects,
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "hco-diff-namespace"}})
	existing := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "hco-diff-policy-existing", Namespace: ns}}
	testenv.CreateForTest(t, k, existing)

	cfg := rest.CopyConfig(env.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:" + other + ":" + reviewer,
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + other, "system:authenticated"}}
	as, err := client.New(cfg, client.Options{Scheme: env.Scheme})
	require.NoError(t, err)

	writes := map[string]func(...client.CreateOption) error{
		"create PriorityClass": func(o ...client.CreateOption) error {
			return as.Create(ctx, &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "hco-diff-policy-test"}, Value: 1}, o...)
		},
		"create ConfigMap": func(o ...client.CreateOption) error {
			return as.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "hco-diff-policy-test", Namespace: ns}}, o...)
		},
		"update ConfigMap": func(o ...client.CreateOption) error {
			cm := &corev1.ConfigMap{}
			if err := k.Get(ctx, client.ObjectKeyFromObject(existing), cm); err != nil {
				return err
			}
			cm.Data = map[string]string{"changed": "yes"}
			var uo []client.UpdateOption
			if len(o) > 0 {
				uo = append(uo, client.DryRunAll)
			}
			return as.Update(ctx, cm, uo...)
		},
	}
	// The policy in effect (it takes a moment after it is created): an
	// update that changes nothing, harmless should it pass, is refused.
	testenv.Eventually(t, "the policy in effect", func() error {
		cm := &corev1.ConfigMap{}
		if err := k.Get(ctx, client.ObjectKeyFromObject(existing), cm); err != nil {
			return err
		}
		if err := as.Update(ctx, cm); err == nil || !strings.Contains(err.Error(), "sends dry runs only") {
			return fmt.Errorf("an update without dry run: %v", err)
		}
		return nil
	})
	for what, write := range writes {
		err := write()
		require.Error(t, err, "%s without dry run", what)
		assert.Contains(t, err.Error(), "sends dry runs only", what)
		assert.NoError(t, write(client.DryRunAll), "%s as a dry run", what)
	}
	cm := &corev1.ConfigMap{}
	require.NoError(t, k.Get(ctx, client.ObjectKeyFromObject(existing), cm))
	assert.Empty(t, cm.Data, "nothing written")

	// The attack: the API server never passes admission policies and their
	// bindings to an admission policy, so the account may not write them at
	// all, not even as a dry run; a real update of the policy's binding to
	// Audit would switch the policy off (it did, when the role granted it).
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{}
	require.NoError(t, k.Get(ctx, client.ObjectKey{Name: "hco-diff-dry-run-only"}, binding))
	binding.Spec.ValidationActions = []admissionregistrationv1.ValidationAction{admissionregistrationv1.Audit}
	for _, o := range [][]client.UpdateOption{nil, {client.DryRunAll}} {
		err := as.Update(ctx, binding.DeepCopy(), o...)
		assert.True(t, apierrors.IsForbidden(err), "update of the dry-run policy's binding %v: %v", o, err)
	}
	t.Cleanup(func() {
		_ = k.Delete(context.Background(), &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: "hco-diff-attack"}})
	})
	for _, o := range [][]client.CreateOption{nil, {client.DryRunAll}} {
		err := as.Create(ctx, &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: "hco-diff-attack"},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
				MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
					RuleWithOperations: admissionregistrationv1.RuleWithOperations{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
						Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}}}}},
				Validations: []admissionregistrationv1.Validation{{Expression: "false"}}}}, o...)
		assert.True(t, apierrors.IsForbidden(err), "create of an admission policy %v: %v", o, err)
	}
	require.NoError(t, k.Get(ctx, client.ObjectKey{Name: "hco-diff-dry-run-only"}, binding))
	assert.Equal(t, []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}, binding.Spec.ValidationActions, "the policy still denies")
}
