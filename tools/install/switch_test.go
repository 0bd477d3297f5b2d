package install

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/util/csaupgrade"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The switch in place from upstream's plain-Kubernetes install: upstream's
// deploy/ objects at 03da3cf (testdata/upstream-03da3cf, as kubectl apply
// -n kubevirt-hyperconverged makes them: client-side, their own field
// manager), then hcokit's install applied over them as docs/install.md says
// (server-side, no --force-conflicts). The apply conflicts with nothing, and
// every component operator's Deployment stays the same object at the same
// generation (no delete, no recreate, no rollout); its service account and
// RBAC likewise.
func TestSwitchFromUpstreamsInstall(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	c := env.Client

	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: defaultNamespace}}
	if err := c.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		require.NoError(t, err)
	}
	// What this test makes goes at cleanup (the namespace stays: envtest
	// runs no namespace controller); a CRD the control plane had before
	// stays, as an uninstall leaves CRDs.
	made := map[string]*unstructured.Unstructured{}
	t.Cleanup(func() {
		for _, u := range made {
			if err := c.Delete(context.Background(), u); err != nil && !apierrors.IsNotFound(err) {
				t.Errorf("cleanup: delete %s %s: %v", u.GetKind(), u.GetName(), err)
			}
		}
	})
	remember := func(u *unstructured.Unstructured) {
		made[u.GetKind()+"/"+u.GetNamespace()+"/"+u.GetName()] = u.DeepCopy()
	}

	// Upstream's install, as deploy.sh has kubectl (client-side apply) make
	// it on plain Kubernetes: without ssp-operator and the CLI download
	// (its label selector), and without cert-manager's objects (not served
	// here; their Secrets would be cert-manager's).
	var upstream []*unstructured.Unstructured
	// testCRDs: the test package's operand CRDs (TestMain), there before
	// upstream's; hcokit's apply forces its way over their test manager.
	testCRDs := map[string]bool{}
	for _, f := range []string{"service_account.yaml", "cluster_role.yaml", "cluster_role_binding.yaml", "webhooks.yaml", "operator.yaml"} {
		for _, u := range decodeFile(t, filepath.Join(upstreamDir, f)) {
			switch name := u.GetLabels()["name"]; {
			case name == "ssp-operator" || name == "hyperconverged-cluster-cli-download":
			case u.GroupVersionKind().Group == "cert-manager.io":
			default:
				upstream = append(upstream, u)
			}
		}
	}
	for _, u := range render(t, "operators", "") {
		if u.GetKind() == "CustomResourceDefinition" {
			upstream = append(upstream, u) // byte for byte upstream's deploy/crds (TestComponentOperatorCRDsAreUpstreams)
		}
	}
	for _, u := range upstream {
		u = u.DeepCopy()
		if u.GetNamespace() == "" && namespacedKind(u.GetKind()) {
			u.SetNamespace(defaultNamespace)
		}
		err := c.Create(ctx, u, client.FieldOwner("kubectl-client-side-apply"))
		if apierrors.IsAlreadyExists(err) && u.GetKind() == "CustomResourceDefinition" {
			testCRDs[u.GetName()] = true
			continue
		}
		require.NoError(t, err, "upstream's %s %s", u.GetKind(), u.GetName())
		remember(u)
	}
	before := map[string]appsv1.Deployment{}
	operators := render(t, "operators", "")
	for _, u := range operators {
		if u.GetKind() == "Deployment" {
			var d appsv1.Deployment
			require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: defaultNamespace, Name: u.GetName()}, &d))
			before[d.Name] = d
		}
	}
	require.Len(t, before, 9, "upstream's component operators on plain Kubernetes")

	// hcokit's install over it: kubectl apply --server-side -k config. On an
	// object kubectl applied client-side before, kubectl first hands the
	// client-side apply's fields to its server-side manager
	// (csaupgrade, as kubectl apply --server-side does with the default
	// field manager): without it, three defaulted atomic fields of each
	// Deployment (env fieldRefs) conflict.
	for _, u := range render(t, ".", "") {
		u = u.DeepCopy()
		live := &unstructured.Unstructured{}
		live.SetGroupVersionKind(u.GroupVersionKind())
		if err := c.Get(ctx, client.ObjectKeyFromObject(u), live); err == nil {
			patch, err := csaupgrade.UpgradeManagedFieldsPatch(live, sets.New("kubectl-client-side-apply"), "kubectl")
			require.NoError(t, err)
			if patch != nil {
				require.NoError(t, c.Patch(ctx, live, client.RawPatch(types.JSONPatchType, patch)))
			}
		}
		existed := false
		if u.GetKind() == "CustomResourceDefinition" {
			existed = c.Get(ctx, client.ObjectKeyFromObject(u), u.DeepCopy()) == nil
		}
		opts := []client.PatchOption{client.FieldOwner("kubectl")}
		if u.GetKind() == "CustomResourceDefinition" && testCRDs[u.GetName()] {
			opts = append(opts, client.ForceOwnership)
		}
		err := c.Patch(ctx, u, client.Apply, opts...)
		require.NoError(t, err, "hcokit's %s %s: a conflict with upstream's install", u.GetKind(), u.GetName())
		if u.GetKind() != "Namespace" && !existed {
			remember(u)
		}
	}

	for name, old := range before {
		var d appsv1.Deployment
		require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: defaultNamespace, Name: name}, &d))
		assert.Equal(t, old.UID, d.UID, "%s deleted and created again", name)
		assert.Equal(t, old.Generation, d.Generation, "%s changed: a rollout of upstream's operator", name)
		assert.Equal(t, old.Spec, d.Spec, "%s's spec changed", name)
	}
	// What changes: hostpath-provisioner-operator's webhook, stale in
	// upstream's deploy/webhooks.yaml (a Service in a namespace the install
	// does not make), is upstream's CSV's, at the install's Service.
	var vwc admissionregistrationv1.ValidatingWebhookConfiguration
	require.NoError(t, c.Get(ctx, client.ObjectKey{Name: "hostpathprovisioner.kubevirt.io"}, &vwc))
	require.Len(t, vwc.Webhooks, 1)
	svc := vwc.Webhooks[0].ClientConfig.Service
	assert.Equal(t, defaultNamespace+"/hostpath-provisioner-operator-service", svc.Namespace+"/"+svc.Name)
	assert.Equal(t, []string{"hostpathprovisioners"}, vwc.Webhooks[0].Rules[0].Resources)

	for _, u := range operators {
		switch u.GetKind() {
		case "ServiceAccount", "Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding":
			got := &unstructured.Unstructured{}
			got.SetGroupVersionKind(u.GroupVersionKind())
			require.NoError(t, c.Get(ctx, types.NamespacedName{Namespace: u.GetNamespace(), Name: u.GetName()}, got))
			for _, field := range []string{"rules", "subjects", "roleRef"} {
				assert.Equal(t, u.Object[field], got.Object[field], "%s %s: %s", u.GetKind(), u.GetName(), field)
			}
		}
	}
}

// namespacedKind says whether an object of upstream's deploy/ kinds lives
// in a namespace.
func namespacedKind(kind string) bool {
	switch kind {
	case "ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition":
		return false
	}
	return true
}
