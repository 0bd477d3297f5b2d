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
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hcostatus"
	"github.com/hcokit/hcokit/internal/testenv"
	"github.com/hcokit/hcokit/nodefacts"
	"github.com/hcokit/hcokit/operands/stock"
)

// quietWindow is how long both operators run side by side while the test
// counts their writes to each other's objects.
const quietWindow = 60 * time.Second

// upstreamCase holds what upstream HCO's own code built for a HyperConverged
// with `spec: {}` (render/testdata/upstream-03da3cf, commit 03da3cf).
const upstreamCase = "render/testdata/upstream-03da3cf/minimal-v1"

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
	upstreamHC := createHC(t, upstreamNS)
	upstream, captured := upstreamObjects(t, upstreamHC)
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
	for _, w := range writes(t, switchStart) {
		if w.UserAgent != switchedAgent {
			continue
		}
		u := upstreamsOf(t, w, upstream)
		switch {
		case u == nil:
		case w.Verb == "delete" || w.Verb == "create":
			t.Errorf("the switch recreated or deleted one of upstream's objects: %s", w)
		case w.Verb == "update" && !strings.Contains(w.URI, "dryRun=All") && !captured[u]:
			// Built by hcokit's own operands for the same environment: what
			// differs is the API server's defaults only. (The KubeVirt, CDI
			// and NetworkAddonsConfig upstream's code built differ by the
			// seeds' values: render/upstream_test.go lists them.)
			t.Errorf("the switch updated an object already as it wants it: %s", w)
		}
	}
	for _, u := range upstream {
		now := &unstructured.Unstructured{}
		now.SetGroupVersionKind(u.GroupVersionKind())
		require.NoError(t, k.Get(ctx, client.ObjectKeyFromObject(u), now))
		assert.Equal(t, u.GetUID(), now.GetUID(), "upstream's %s %s recreated", u.GetKind(), u.GetName())
		// The operator's version (HCO_KV_IO_VERSION, upstream's 1.20.0)
		// is kept: the version label, and KubeVirt's productVersion.
		if v, ok := u.GetLabels()[hco.LabelVersion]; ok {
			assert.Equal(t, v, now.GetLabels()[hco.LabelVersion], "%s %s: version label", u.GetKind(), u.GetName())
		}
		if u.GetKind() == "KubeVirt" {
			want, _, _ := unstructured.NestedString(u.Object, "spec", "productVersion")
			got, _, _ := unstructured.NestedString(now.Object, "spec", "productVersion")
			assert.Equal(t, want, got, "KubeVirt productVersion")
			assert.NotEmpty(t, got)
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
	for _, u := range upstream {
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
	for _, u := range upstream {
		now := &unstructured.Unstructured{}
		now.SetGroupVersionKind(u.GroupVersionKind())
		err := k.Get(ctx, client.ObjectKeyFromObject(u), now)
		assert.True(t, apierrors.IsNotFound(err), "upstream's %s %s, adopted, is uninstalled: %v", u.GetKind(), u.GetName(), err)
	}
}

// createHC creates a HyperConverged with `spec: {}` in namespace, as the
// API server stores it; the test's end deletes it.
func createHC(t *testing.T, namespace string) *hcov1.HyperConverged {
	t.Helper()
	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: namespace}}
	require.NoError(t, k.Create(context.Background(), hc))
	t.Cleanup(func() { forceDeleteHC(t, namespace) })
	return hc
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

// upstreamObjects returns the objects upstream HCO's operator leaves for hc
// on plain Kubernetes: its KubeVirt (controlled by hc, as upstream sets it),
// CDI and NetworkAddonsConfig as upstream's own code builds them
// (upstreamCase; those are captured), and the rest of what the stock
// operands build, which carries the same labels; no owner record on any of
// them.
func upstreamObjects(t *testing.T, hc *hcov1.HyperConverged) ([]*unstructured.Unstructured, map[*unstructured.Unstructured]bool) {
	t.Helper()
	root, err := testenv.RepoRoot()
	require.NoError(t, err)
	captured := map[string]*unstructured.Unstructured{}
	for _, f := range []string{"kubevirt.yaml", "cdi.yaml", "networkaddonsconfig.yaml"} {
		raw, err := os.ReadFile(filepath.Join(root, upstreamCase, f))
		require.NoError(t, err)
		u := &unstructured.Unstructured{}
		require.NoError(t, yaml.Unmarshal(raw, &u.Object))
		if u.GetKind() == "KubeVirt" {
			u.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "hco.kubevirt.io/v1beta1", Kind: "HyperConverged", Name: hc.Name, UID: hc.UID,
				Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}})
		}
		captured[u.GetKind()] = u
	}
	reg, err := stock.Registry()
	require.NoError(t, err)
	// The facts of this cluster, as the operator gathers them: no Nodes.
	nodes := nodefacts.NewIndex().Facts(hc.Spec.WorkloadPlacement())
	rendered, err := hco.Render(reg, hc, hco.Facts{Environment: environment(upstreamNS), Nodes: &nodes})
	require.NoError(t, err)
	var out []*unstructured.Unstructured
	fromUpstream := map[*unstructured.Unstructured]bool{}
	for _, obj := range rendered {
		u := obj.(*unstructured.Unstructured).DeepCopy()
		if c, ok := captured[u.GetKind()]; ok && c.GetName() == u.GetName() {
			u = c
			fromUpstream[u] = true
		}
		out = append(out, u)
	}
	require.NotEmpty(t, out)
	require.Len(t, fromUpstream, len(captured))
	for _, u := range out {
		_, recorded := u.GetAnnotations()[hco.OwnerAnnotation]
		require.False(t, recorded, "upstream records no owner: %s %s", u.GetKind(), u.GetName())
	}
	return out, fromUpstream
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
