package openshift

import (
	"context"
	"fmt"
	"maps"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/internal/testenv"
	"github.com/hcokit/hcokit/operands/perses"
)

// On OpenShift with the Perses CRDs served, a default HyperConverged gets
// upstream's six dashboards and its datasource (the module's unit test
// compares them with upstream's own code's output) in its namespace, owned
// by it, each taken by the API server as sent, nothing pruned. An admin's
// edit of a dashboard's content or of the operator's labels is put back
// (the admin's own label kept, as upstream merges labels), a deleted
// datasource is made again, and all are removed with the HyperConverged.
func TestPersesDashboards(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: ns}}
	testenv.CreateForTest(t, k, hc)

	facts := hco.OfflineFacts(operatorEnv)
	facts.Platform = hco.Platform{OpenShift: true}
	built, err := hco.DesiredObjects(perses.New(), hc.DeepCopy(), facts)
	if err != nil || len(built) != 7 {
		t.Fatalf("the Perses objects: %d, %v", len(built), err)
	}
	var dashboard, datasource *unstructured.Unstructured
	for _, want := range built {
		got := testenv.Stored(t, k, want)
		for field, v := range want.Object {
			if field == "metadata" || field == "apiVersion" || field == "kind" {
				continue
			}
			if missing := testenv.NotIn(v, got.Object[field], field); missing != "" {
				t.Errorf("%s %s: the API server pruned or changed %s", got.GetKind(), got.GetName(), missing)
			}
		}
		if !maps.Equal(want.GetLabels(), got.GetLabels()) || got.GetNamespace() != ns {
			t.Errorf("%s %s: namespace %q, labels %v, want %q, %v", got.GetKind(), got.GetName(), got.GetNamespace(), got.GetLabels(), ns, want.GetLabels())
		}
		if refs := got.GetOwnerReferences(); len(refs) != 1 || refs[0].Kind != "HyperConverged" || refs[0].Name != hc.Name {
			t.Errorf("%s %s: owner references %v, want the HyperConverged's", got.GetKind(), got.GetName(), refs)
		}
		switch got.GroupVersionKind() {
		case perses.DashboardKind:
			dashboard = want
		case perses.DatasourceKind:
			datasource = want
		}
	}
	if dashboard == nil || datasource == nil || datasource.GetName() != perses.DatasourceName {
		t.Fatalf("dashboard %v, datasource %v", dashboard, datasource)
	}

	// An admin edits a dashboard: its duration, a panel gone, the
	// component label changed, a label of their own.
	testenv.Eventually(t, "the dashboard edited", func() error {
		u := empty(dashboard)
		if err := k.Get(ctx, client.ObjectKeyFromObject(dashboard), u); err != nil {
			return err
		}
		if err := unstructured.SetNestedField(u.Object, "6h", "spec", "duration"); err != nil {
			return err
		}
		unstructured.RemoveNestedField(u.Object, "spec", "panels", "0_0")
		labels := u.GetLabels()
		labels[hco.LabelComponent] = "mine"
		labels["admin"] = "kept"
		u.SetLabels(labels)
		return k.Update(ctx, u)
	})
	testenv.Eventually(t, "the dashboard put back, the admin's label kept", func() error {
		u := empty(dashboard)
		if err := k.Get(ctx, client.ObjectKeyFromObject(dashboard), u); err != nil {
			return err
		}
		if missing := testenv.NotIn(dashboard.Object["spec"], u.Object["spec"], "spec"); missing != "" {
			return fmt.Errorf("%s not put back", missing)
		}
		want := maps.Clone(dashboard.GetLabels())
		want["admin"] = "kept"
		if !maps.Equal(want, u.GetLabels()) {
			return fmt.Errorf("labels %v, want %v", u.GetLabels(), want)
		}
		return nil
	})

	// An admin deletes the datasource: it is made again.
	old := testenv.Stored(t, k, datasource)
	if err := k.Delete(ctx, old); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, "the datasource made again", func() error {
		u := empty(datasource)
		if err := k.Get(ctx, client.ObjectKeyFromObject(datasource), u); err != nil {
			return err
		}
		if u.GetUID() == old.GetUID() {
			return fmt.Errorf("not deleted yet")
		}
		return nil
	})

	testenv.DeleteAndWait(t, k, hc.DeepCopy())
	for _, o := range built {
		err := k.Get(ctx, client.ObjectKeyFromObject(o), empty(o))
		if !apierrors.IsNotFound(err) {
			t.Errorf("%s %s left after the HyperConverged's deletion: %v", o.GetKind(), o.GetName(), err)
		}
	}
}

// empty returns an empty object of o's kind, to read it into.
func empty(o *unstructured.Unstructured) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(o.GroupVersionKind())
	return u
}
