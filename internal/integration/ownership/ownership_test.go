package ownership

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hcostatus"
	"github.com/hcokit/hcokit/internal/testenv"
)

// quietWindow is how long both operators run side by side while the test
// counts their writes to each other's objects.
const quietWindow = 60 * time.Second

// An evaluation install of hcokit beside upstream's touches none of
// upstream's objects, with or without a HyperConverged of its own; upstream's
// install switched to hcokit in place adopts them all; the two hcokit
// installs then never write to each other's objects, the evaluation
// install's uninstall deletes only its own, and the switched install's
// uninstall deletes everything it adopted.
func TestInstallsNeverTouchEachOther(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	start := auditOffset(t)

	// Upstream's install: its HyperConverged and what it made for it.
	upstreamHC := createUpstreamHC(t)
	upstream := upstreamObjects(t, upstreamHC)
	t.Cleanup(func() { removeLeftovers(t, upstream) })
	for _, u := range upstream {
		require.NoError(t, k.Create(ctx, u), "create upstream's %s %s", u.GetKind(), u.GetName())
	}
	unchanged := func(why string) {
		t.Helper()
		for _, u := range upstream {
			now := &unstructured.Unstructured{}
			now.SetGroupVersionKind(u.GroupVersionKind())
			require.NoError(t, k.Get(ctx, client.ObjectKeyFromObject(u), now), "%s: upstream's %s %s", why, u.GetKind(), u.GetName())
			assert.Equal(t, u.GetUID(), now.GetUID(), "%s: upstream's %s %s recreated", why, u.GetKind(), u.GetName())
			assert.Equal(t, u.GetResourceVersion(), now.GetResourceVersion(), "%s: upstream's %s %s written", why, u.GetKind(), u.GetName())
		}
	}

	// An evaluation install, no HyperConverged of its own yet: nothing of
	// upstream's is written, let alone deleted.
	startOperator(t, evalNS, evalAgent)
	evalStart := auditOffset(t)
	time.Sleep(10 * time.Second)
	for _, w := range writes(t, evalStart) {
		if w.UserAgent == evalAgent {
			t.Errorf("an operator with no HyperConverged wrote: %s", w)
		}
	}
	unchanged("evaluation install without a HyperConverged")

	// Its own HyperConverged, which upstream's namespace policy refuses
	// outside upstream's namespace: the admin lifts the policy's binding
	// for the create. The conflict is reported, upstream's objects are
	// left as they are.
	i := slices.IndexFunc(upstream, func(u *unstructured.Unstructured) bool { return u.GetKind() == "ValidatingAdmissionPolicyBinding" })
	require.GreaterOrEqual(t, i, 0, "upstream's namespace policy binding")
	require.NoError(t, k.Delete(ctx, upstream[i]))
	evalHC := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: evalNS}}
	testenv.Eventually(t, "create the evaluation install's HyperConverged", func() error {
		return k.Create(ctx, evalHC.DeepCopy())
	})
	t.Cleanup(func() { forceDeleteHC(t, evalNS) })
	binding := upstream[i].DeepCopy()
	binding.SetResourceVersion("")
	binding.SetUID("")
	require.NoError(t, k.Create(ctx, binding))
	upstream[i] = binding
	testenv.Eventually(t, "the evaluation install reports the objects of upstream's", func() error {
		c, err := conditionOf(ctx, evalNS, hcov1.ConditionDegraded)
		if err != nil {
			return err
		}
		if c.Reason != hcostatus.ReasonOwnedElsewhere || !strings.Contains(c.Message, "CDI cdi-kubevirt-hyperconverged belongs to") {
			return fmt.Errorf("Degraded %s: %s", c.Reason, c.Message)
		}
		return nil
	})
	unchanged("evaluation install with a HyperConverged")

	// Upstream's install switched in place: the objects are adopted, none
	// deleted or recreated.
	switchStart := auditOffset(t)
	startOperator(t, upstreamNS, switchedAgent)
	testenv.Eventually(t, "the switched install completes its reconcile", func() error {
		c, err := conditionOf(ctx, upstreamNS, hcov1.ConditionReconcileComplete)
		if err != nil {
			return err
		}
		if c.Status != metav1.ConditionTrue {
			return fmt.Errorf("ReconcileComplete %s %s: %s", c.Status, c.Reason, c.Message)
		}
		return nil
	})
	var adopted []*unstructured.Unstructured
	changed := map[*unstructured.Unstructured]bool{}
	for _, u := range upstream {
		now := &unstructured.Unstructured{}
		now.SetGroupVersionKind(u.GroupVersionKind())
		err := k.Get(ctx, client.ObjectKeyFromObject(u), now)
		if switchReplaces[u.GetKind()+"/"+u.GetName()] {
			assert.True(t, apierrors.IsNotFound(err), "upstream's %s %s, which hcokit replaces, is deleted: %v", u.GetKind(), u.GetName(), err)
			continue
		}
		require.NoError(t, err, "upstream's %s %s", u.GetKind(), u.GetName())
		if switchLeaves[u.GetKind()+"/"+u.GetName()] {
			assert.Equal(t, u.GetResourceVersion(), now.GetResourceVersion(), "upstream's %s %s, which the install ships, is left as it is", u.GetKind(), u.GetName())
			continue
		}
		adopted = append(adopted, u)
		assert.Equal(t, u.GetUID(), now.GetUID(), "upstream's %s %s recreated", u.GetKind(), u.GetName())
		for _, ref := range u.GetOwnerReferences() {
			assert.Contains(t, now.GetOwnerReferences(), ref, "%s %s: upstream's owner reference", u.GetKind(), u.GetName())
		}
		// Only what docs/compatibility.md's rows decide changes; the operator's version
		// (HCO_KV_IO_VERSION, upstream's 1.20.0) stays in the version
		// labels and KubeVirt's productVersion.
		for _, p := range contentDifferences(u, now) {
			if why, listed := switchChanges[u.GetKind()][p]; listed {
				changed[u] = true
				t.Logf("%s %s: %s changed (%s)", u.GetKind(), u.GetName(), p, why)
				continue
			}
			t.Errorf("the switch changed %s of upstream's %s %s; only switchChanges may change", p, u.GetKind(), u.GetName())
		}
	}
	for kind := range switchChanges {
		assert.True(t, slices.ContainsFunc(adopted, func(u *unstructured.Unstructured) bool { return u.GetKind() == kind && changed[u] }),
			"switchChanges lists %s, which the switch did not change: remove the row", kind)
	}
	for _, w := range writes(t, switchStart) {
		if w.UserAgent != switchedAgent {
			continue
		}
		u := upstreamsOf(t, w, upstream)
		switch {
		case u == nil:
		case switchReplaces[u.GetKind()+"/"+u.GetName()] && w.Verb == "delete":
		case w.Verb == "delete" || w.Verb == "create":
			t.Errorf("the switch recreated or deleted one of upstream's objects: %s", w)
		case w.Verb == "update" && !strings.Contains(w.URI, "dryRun=All") && !changed[u]:
			t.Errorf("the switch updated an object already as it wants it: %s", w)
		}
	}
	c, err := conditionOf(ctx, evalNS, hcov1.ConditionDegraded)
	require.NoError(t, err)
	assert.Equal(t, hcostatus.ReasonOwnedElsewhere, c.Reason, "the younger install still reports the conflict: %s", c.Message)

	// Side by side, neither writes to the other's objects, and the
	// conflict is not announced again and again.
	window := auditOffset(t)
	time.Sleep(quietWindow)
	events := 0
	for _, w := range writes(t, window) {
		switch {
		case w.UserAgent == evalAgent && w.Resource == "events":
			events++
		case w.UserAgent == evalAgent:
			t.Errorf("the evaluation install wrote while nothing changed: %s", w)
		case w.UserAgent == switchedAgent && w.Namespace == evalNS:
			t.Errorf("the switched install wrote to the evaluation install's: %s", w)
		}
	}
	assert.LessOrEqual(t, events, 1, "Events of the evaluation install in %s", quietWindow)

	// The evaluation install goes: it deletes its own objects only, and,
	// with no HyperConverged, sweeps nothing of the other install's.
	deleteHC(t, evalNS)
	time.Sleep(5 * time.Second)
	for _, u := range adopted {
		now := &unstructured.Unstructured{}
		now.SetGroupVersionKind(u.GroupVersionKind())
		require.NoError(t, k.Get(ctx, client.ObjectKeyFromObject(u), now), "the evaluation install's uninstall: upstream's %s %s", u.GetKind(), u.GetName())
		assert.Equal(t, u.GetUID(), now.GetUID())
	}
	var left unstructured.UnstructuredList
	left.SetAPIVersion("kubevirt.io/v1")
	left.SetKind("KubeVirtList")
	require.NoError(t, k.List(ctx, &left, client.InNamespace(evalNS)))
	assert.Empty(t, left.Items, "the evaluation install's own KubeVirt is uninstalled")

	for _, w := range writes(t, start) {
		switch {
		case w.UserAgent == evalAgent && w.Namespace != evalNS:
			t.Errorf("the evaluation install wrote outside its namespace: %s", w)
		case w.UserAgent == switchedAgent && w.Namespace == evalNS:
			t.Errorf("the switched install wrote to the evaluation install's: %s", w)
		}
	}

	// The switched install's uninstall deletes what it adopted.
	deleteHC(t, upstreamNS)
	for _, u := range adopted {
		now := &unstructured.Unstructured{}
		now.SetGroupVersionKind(u.GroupVersionKind())
		err := k.Get(ctx, client.ObjectKeyFromObject(u), now)
		assert.True(t, apierrors.IsNotFound(err), "upstream's %s %s, adopted, is uninstalled: %v", u.GetKind(), u.GetName(), err)
	}
}

// forceDeleteHC removes the HyperConverged of namespace, finalizers and all,
// should a failed test have left it.
func forceDeleteHC(t *testing.T, namespace string) {
	ctx := context.Background()
	hc := &hcov1.HyperConverged{}
	if err := k.Get(ctx, types.NamespacedName{Namespace: namespace, Name: hcov1.HyperConvergedName}, hc); err != nil {
		return
	}
	orig := hc.DeepCopy()
	hc.Finalizers = nil
	_ = k.Patch(ctx, hc, client.MergeFrom(orig))
	_ = k.Delete(ctx, hc)
}

// conditionOf reads a condition of the HyperConverged of namespace.
func conditionOf(ctx context.Context, namespace, typ string) (*metav1.Condition, error) {
	hc := &hcov1.HyperConverged{}
	if err := k.Get(ctx, types.NamespacedName{Namespace: namespace, Name: hcov1.HyperConvergedName}, hc); err != nil {
		return nil, err
	}
	c := meta.FindStatusCondition(hc.Status.Conditions, typ)
	if c == nil {
		return nil, fmt.Errorf("no %s condition yet", typ)
	}
	return c, nil
}

// upstreamDir holds what upstream HCO's own operator made at 03da3cf for
// its stored HyperConverged on plain Kubernetes, captured from a run of it
// (its README says how).
const upstreamDir = "internal/integration/ownership/testdata/upstream-03da3cf"

// createUpstreamHC creates the HyperConverged as upstream's operator left it
// (hyperconverged.yaml), read through hcokit's CRD; the test's end deletes it.
func createUpstreamHC(t *testing.T) *hcov1.HyperConverged {
	t.Helper()
	root, err := testenv.RepoRoot()
	require.NoError(t, err)
	raw, err := os.ReadFile(filepath.Join(root, upstreamDir, "hyperconverged.yaml"))
	require.NoError(t, err)
	hc := &hcov1.HyperConverged{}
	require.NoError(t, yaml.UnmarshalStrict(raw, hc))
	require.Equal(t, upstreamNS, hc.Namespace)
	require.NoError(t, k.Create(context.Background(), hc))
	t.Cleanup(func() { forceDeleteHC(t, upstreamNS) })
	return hc
}

// upstreamObjects returns the objects upstream HCO's operator made for hc
// (objects.yaml), their owner references pointing at hc and at this
// cluster's HyperConverged CRD, as upstream's do.
func upstreamObjects(t *testing.T, hc *hcov1.HyperConverged) []*unstructured.Unstructured {
	t.Helper()
	root, err := testenv.RepoRoot()
	require.NoError(t, err)
	raw, err := os.ReadFile(filepath.Join(root, upstreamDir, "objects.yaml"))
	require.NoError(t, err)
	crd := &apiextensionsv1.CustomResourceDefinition{}
	require.NoError(t, k.Get(context.Background(), types.NamespacedName{Name: "hyperconvergeds.hco.kubevirt.io"}, crd))
	var out []*unstructured.Unstructured
	for _, doc := range strings.Split(string(raw), "\n---\n") {
		u := &unstructured.Unstructured{}
		require.NoError(t, yaml.Unmarshal([]byte(doc), &u.Object))
		if len(u.Object) == 0 {
			continue
		}
		refs := u.GetOwnerReferences()
		for i := range refs {
			refs[i].UID = map[string]types.UID{"HyperConverged": hc.UID, "CustomResourceDefinition": crd.UID}[refs[i].Kind]
			require.NotEmpty(t, refs[i].UID, "%s %s: owner %s", u.GetKind(), u.GetName(), refs[i].Kind)
		}
		u.SetOwnerReferences(refs)
		_, recorded := u.GetAnnotations()[hco.OwnerAnnotation]
		require.False(t, recorded, "upstream records no owner: %s %s", u.GetKind(), u.GetName())
		out = append(out, u)
	}
	require.Len(t, out, 17, "upstream's objects")
	return out
}

// switchReplaces are upstream's objects the switched install deletes:
// cert-manager's Issuer and Certificate of the network-resources-injector's
// serving certificate, which hcokit's webhook writes itself
// (docs/install.md, "From upstream HCO").
var switchReplaces = map[string]bool{"Issuer/selfsigned": true, "Certificate/virt-network-resources-injector-cert": true}

// switchLeaves are upstream's objects that hcokit's install ships itself
// (config/rbac/operand_roles.yaml: the operator writes no ClusterRole):
// the operator neither adopts nor changes nor deletes them; applying
// hcokit's manifests takes them over.
var switchLeaves = map[string]bool{"ClusterRole/virt-network-resources-injector": true}

// switchChanges are the fields of upstream's objects the switch changes,
// by kind and path, each with the row of docs/compatibility.md that decides
// it. Upstream's HyperConverged sets every migration
// default but bandwidthPerMigration, which hcokit's CRD defaults.
var switchChanges = map[string]map[string]string{
	"KubeVirt": {"spec.configuration.migrations.bandwidthPerMigration": "seed 003: 64Mi (upstream: unset)"},
}

// contentDifferences lists the paths where two objects differ, but for the
// server's fields and the owner record (which the switch adds with the
// first write an object needs anyway).
func contentDifferences(before, after *unstructured.Unstructured) []string {
	clean := func(u *unstructured.Unstructured) map[string]any {
		c := u.DeepCopy()
		for _, f := range []string{"uid", "resourceVersion", "creationTimestamp", "generation", "managedFields", "ownerReferences"} {
			unstructured.RemoveNestedField(c.Object, "metadata", f)
		}
		annotations := c.GetAnnotations()
		delete(annotations, hco.OwnerAnnotation)
		delete(annotations, hco.OwnerUIDAnnotation)
		if len(annotations) == 0 {
			annotations = nil
		}
		c.SetAnnotations(annotations)
		delete(c.Object, "status")
		return c.Object
	}
	g, w := map[string]string{}, map[string]string{}
	leaves("", clean(after), g)
	leaves("", clean(before), w)
	var out []string
	for p, v := range g {
		if wv, ok := w[p]; !ok || wv != v {
			out = append(out, p)
		}
	}
	for p := range w {
		if _, ok := g[p]; !ok {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// leaves flattens v into its leaf values by path.
func leaves(prefix string, v any, out map[string]string) {
	join := func(k string) string {
		if prefix == "" {
			return k
		}
		return prefix + "." + k
	}
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 {
			out[prefix] = "{}"
		}
		for k, e := range x {
			leaves(join(k), e, out)
		}
	case []any:
		if len(x) == 0 {
			out[prefix] = "[]"
		}
		for i, e := range x {
			leaves(fmt.Sprintf("%s[%d]", prefix, i), e, out)
		}
	default:
		out[prefix] = fmt.Sprint(v)
	}
}

// upstreamsOf returns the one of upstream's objects that w requests, or nil.
func upstreamsOf(t *testing.T, w testenv.AuditEvent, upstream []*unstructured.Unstructured) *unstructured.Unstructured {
	for _, u := range upstream {
		gvk := u.GroupVersionKind()
		m, err := k.RESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version)
		require.NoError(t, err)
		if u.GetNamespace() == w.Namespace && u.GetName() == w.Name && m.Resource.Resource == w.Resource && gvk.Group == w.Group {
			return u
		}
	}
	return nil
}

// removeLeftovers deletes what a failed test left of upstream's objects.
func removeLeftovers(t *testing.T, upstream []*unstructured.Unstructured) {
	for _, u := range upstream {
		left := u.DeepCopy()
		left.SetResourceVersion("")
		if err := k.Delete(context.Background(), left); err != nil && !apierrors.IsNotFound(err) {
			t.Logf("remove %s %s: %v", u.GetKind(), u.GetName(), err)
		}
	}
}
