package apis

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hcostatus"
	"github.com/hcokit/hcokit/internal/testenv"
	"github.com/hcokit/hcokit/stackstatus"
)

// TestOperandWaitsForItsAPIAndStartsWhenItAppears: without the SSP CRD the
// other operands converge and the HyperConverged says that the SSP
// operand waits for its API; once the CRD is installed the SSP CR is
// created by the same operator process; once it is removed again, the
// operand waits again, without errors in a loop.
func TestOperandWaitsForItsAPIAndStartsWhenItAppears(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	createHC(t)

	// The others converge; the SSP operand waits, and says so.
	for _, obj := range []client.Object{
		object("kubevirt.io/v1", "KubeVirt", ns, "kubevirt-kubevirt-hyperconverged"),
		object("cdi.kubevirt.io/v1beta1", "CDI", "", "cdi-kubevirt-hyperconverged"),
		object("networkaddonsoperator.network.kubevirt.io/v1", "NetworkAddonsConfig", "", "cluster"),
	} {
		testenv.Eventually(t, obj.GetObjectKind().GroupVersionKind().Kind+" created", func() error {
			return k.Get(ctx, client.ObjectKeyFromObject(obj), obj)
		})
	}
	waiting := func() error {
		hc := getHC(t)
		c := meta.FindStatusCondition(hc.Status.Conditions, hcov1.ConditionDegraded)
		if c == nil || c.Status != metav1.ConditionTrue || c.Reason != hcostatus.ReasonOperandAPINotServed {
			return fmt.Errorf("Degraded is %+v, want True/%s", c, hcostatus.ReasonOperandAPINotServed)
		}
		if !strings.Contains(c.Message, "operand ssp waits for its API: ssp.kubevirt.io/v1beta3 SSP") || !strings.Contains(c.Message, "--operands") {
			return fmt.Errorf("Degraded message %q does not name the operand, its API and the fix", c.Message)
		}
		for _, ref := range hc.Status.RelatedObjects {
			if ref.Kind == "SSP" {
				return fmt.Errorf("relatedObjects lists %s %s, which cannot exist", ref.Kind, ref.Name)
			}
		}
		if c := meta.FindStatusCondition(hc.Status.Conditions, hcov1.ConditionReconcileComplete); c == nil || c.Status != metav1.ConditionTrue {
			return fmt.Errorf("ReconcileComplete is %+v, want True: the other operands are reconciled", c)
		}
		return nil
	}
	testenv.Eventually(t, "Degraded names the SSP operand's API", waiting)
	// What `hco-operator status` shows, once the other components report
	// themselves healthy: not healthy, the HyperConverged's Degraded the
	// first failing leaf, naming the API and the fix (no component of SSP:
	// it has no object).
	healthy := []any{
		map[string]any{"type": "Available", "status": "True", "reason": "AsExpected", "message": "", "lastTransitionTime": "2026-08-21T00:00:00Z"},
		map[string]any{"type": "Progressing", "status": "False", "reason": "AsExpected", "message": "", "lastTransitionTime": "2026-08-21T00:00:00Z"},
		map[string]any{"type": "Degraded", "status": "False", "reason": "AsExpected", "message": "", "lastTransitionTime": "2026-08-21T00:00:00Z"},
	}
	for _, obj := range []*unstructured.Unstructured{
		object("kubevirt.io/v1", "KubeVirt", ns, "kubevirt-kubevirt-hyperconverged"),
		object("cdi.kubevirt.io/v1beta1", "CDI", "", "cdi-kubevirt-hyperconverged"),
		object("networkaddonsoperator.network.kubevirt.io/v1", "NetworkAddonsConfig", "", "cluster"),
	} {
		testenv.Eventually(t, obj.GetKind()+" reports itself healthy", func() error {
			if err := k.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
				return err
			}
			if err := unstructured.SetNestedSlice(obj.Object, healthy, "status", "conditions"); err != nil {
				return err
			}
			return k.Status().Update(ctx, obj)
		})
	}
	var s *stackstatus.Stack
	testenv.Eventually(t, "the status view's components healthy", func() error {
		var err error
		if s, err = stackstatus.Read(ctx, k, operatorRegistry, ns); err != nil {
			return err
		}
		if s.FirstFailure != nil && len(s.FirstFailure.Path) > 1 {
			return fmt.Errorf("first failure %+v", s.FirstFailure)
		}
		return nil
	})
	if s.Healthy || s.FirstFailure == nil {
		t.Fatalf("the status view says healthy: %+v", s)
	}
	if f := s.FirstFailure; !slices.Equal(f.Path, []string{"HyperConverged " + hcov1.HyperConvergedName}) ||
		f.Reason != hcostatus.ReasonOperandAPINotServed+" (Degraded=True)" || !strings.Contains(f.Message, "operand ssp waits for its API") {
		t.Errorf("the status view's first failure is %+v, want the HyperConverged's Degraded naming the SSP operand's API", f)
	}
	for _, c := range s.Components {
		if c.Operand == "ssp" {
			t.Errorf("the status view shows an SSP component, which cannot exist: %+v", c)
		}
	}
	testenv.Eventually(t, "an Event says the SSP operand waits", func() error {
		events := &corev1.EventList{}
		if err := k.List(ctx, events, client.InNamespace(ns)); err != nil {
			return err
		}
		for _, e := range events.Items {
			if e.Reason == hco.EventOperandAPINotServed && strings.Contains(e.Message, "operand ssp") {
				return nil
			}
		}
		return fmt.Errorf("no %s event among %d", hco.EventOperandAPINotServed, len(events.Items))
	})

	// The SSP operator's CRD appears: the SSP CR follows, and the condition clears.
	installSSPCRD(t)
	ssp := object("ssp.kubevirt.io/v1beta3", "SSP", ns, "ssp-kubevirt-hyperconverged")
	testenv.Eventually(t, "SSP created once its CRD is installed", func() error {
		return k.Get(ctx, client.ObjectKeyFromObject(ssp), ssp)
	})
	testenv.Eventually(t, "Degraded no longer names the SSP operand", func() error {
		c := meta.FindStatusCondition(getHC(t).Status.Conditions, hcov1.ConditionDegraded)
		if c == nil || c.Reason == hcostatus.ReasonOperandAPINotServed || strings.Contains(c.Message, "waits for its API") {
			return fmt.Errorf("Degraded is %+v", c)
		}
		return nil
	})

	// The CRD goes: the operand waits again, and the operator stays quiet.
	uninstallSSPCRD(t)
	testenv.Eventually(t, "Degraded names the SSP operand's API again", waiting)
	// What remains is the discovery of the group the CRD change marked, again
	// with a growing delay (0.5 s doubling to 8 s) until the change is 30 s
	// old: at most 7 requests in all, and a status write; a list, watch or
	// reconcile in a loop would be hundreds.
	before := requests.Load()
	time.Sleep(30 * time.Second)
	n := requests.Load() - before
	t.Logf("%d requests in 30 s while waiting", n)
	if n > 8 {
		t.Errorf("the operator made %d requests in 30 s with an operand waiting for its API; want at most 8 (no list, watch or reconcile in a loop)", n)
	}

	// And it still reconciles the others.
	kv := object("kubevirt.io/v1", "KubeVirt", ns, "kubevirt-kubevirt-hyperconverged")
	if err := k.Delete(ctx, kv); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, "KubeVirt recreated", func() error {
		fresh := object("kubevirt.io/v1", "KubeVirt", ns, "kubevirt-kubevirt-hyperconverged")
		if err := k.Get(ctx, client.ObjectKeyFromObject(fresh), fresh); err != nil {
			return err
		}
		if fresh.GetUID() == kv.GetUID() {
			return fmt.Errorf("still the deleted one")
		}
		return nil
	})
}

func object(apiVersion, kind, namespace, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	u.SetNamespace(namespace)
	u.SetName(name)
	return u
}

func sspCRDPath(t *testing.T) string {
	t.Helper()
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, sspCRD)
}

// installSSPCRD installs the SSP CRD and waits until it is served; it is
// removed when the test ends.
func installSSPCRD(t *testing.T) {
	t.Helper()
	if _, err := envtest.InstallCRDs(env.Config, envtest.CRDInstallOptions{Paths: []string{sspCRDPath(t)}}); err != nil {
		t.Fatalf("install the SSP CRD: %v", err)
	}
	t.Cleanup(func() { uninstallSSPCRD(t) })
}

// uninstallSSPCRD removes the SSP CRD and waits until it is gone.
func uninstallSSPCRD(t *testing.T) {
	t.Helper()
	testenv.DeleteAndWait(t, k, &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: "ssps.ssp.kubevirt.io"}})
}

// createHC creates the HyperConverged and deletes it, waiting until it is
// gone, when the test ends.
func createHC(t *testing.T) {
	t.Helper()
	testenv.CreateForTest(t, k, &v1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: v1beta1.HyperConvergedName, Namespace: ns}})
}

func getHC(t *testing.T) *hcov1.HyperConverged {
	t.Helper()
	hc := &hcov1.HyperConverged{}
	if err := k.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: hcov1.HyperConvergedName}, hc); err != nil {
		t.Fatalf("get HyperConverged: %v", err)
	}
	return hc
}
