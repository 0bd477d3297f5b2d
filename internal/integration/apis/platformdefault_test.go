package apis

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hco/manager"
	"github.com/hcokit/hcokit/hcostatus"
	"github.com/hcokit/hcokit/internal/testenv"
	"github.com/hcokit/hcokit/operands"
	"github.com/hcokit/hcokit/operands/consoleplugin"
	"github.com/hcokit/hcokit/operands/kubevirt"
	"github.com/hcokit/hcokit/operands/ssp"
	"github.com/hcokit/hcokit/operands/stock"
	"github.com/hcokit/hcokit/operands/virtiowin"
	"github.com/hcokit/hcokit/preview"
)

// plainNS is the namespace of the install whose SSP is a platform default.
const plainNS = "plain-kubernetes"

// On plain Kubernetes SSP is a platform default (stock.PlatformDefaults):
// without its CRD the HyperConverged is not Degraded, its conditions are
// upstream's (which deploys no SSP there), and a Normal Event says SSP is
// skipped; the CRD installed later, the SSP is created by the
// same operator process. (TestOperandWaitsForItsAPIAndStartsWhenItAppears
// is the other side: an SSP required by name degrades while it waits.)
func TestPlatformDefaultIsSkippedWhereItsAPIIsNotServed(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	if err := k.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: plainNS}}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	// KubeVirt and SSP only: both namespaced, so that this install shares
	// nothing with the package's operator.
	reg, err := hco.NewRegistry(kubevirt.New(), ssp.New())
	if err != nil {
		t.Fatal(err)
	}
	if err := stock.PlatformDefaults(reg, false, nil); err != nil {
		t.Fatal(err)
	}
	scheme, err := hco.NewScheme(operands.AddToScheme)
	if err != nil {
		t.Fatal(err)
	}
	mgr, _, err := manager.New(env.Config, reg, hco.Environment{Namespace: plainNS},
		manager.Options{Manager: testenv.ManagerOptions(scheme), Metrics: prometheus.NewRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(testenv.RunManager(mgr))

	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: plainNS}}
	if err := k.Create(ctx, hc); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := k.Delete(context.Background(), hc); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("delete HyperConverged: %v", err)
		}
		testenv.Eventually(t, "HyperConverged gone", func() error {
			if err := k.Get(context.Background(), client.ObjectKeyFromObject(hc), hc); !apierrors.IsNotFound(err) {
				return fmt.Errorf("still there: %v", err)
			}
			return nil
		})
	})

	testenv.Eventually(t, "KubeVirt created", func() error {
		return k.Get(ctx, client.ObjectKeyFromObject(object("kubevirt.io/v1", "KubeVirt", plainNS, "kubevirt-kubevirt-hyperconverged")),
			object("kubevirt.io/v1", "KubeVirt", plainNS, "kubevirt-kubevirt-hyperconverged"))
	})
	testenv.Eventually(t, "SSP skipped, nothing degraded", func() error {
		if err := k.Get(ctx, client.ObjectKeyFromObject(hc), hc); err != nil {
			return err
		}
		rc := meta.FindStatusCondition(hc.Status.Conditions, hcov1.ConditionReconcileComplete)
		if rc == nil || rc.Status != metav1.ConditionTrue || rc.Message != "Reconcile completed successfully" {
			return fmt.Errorf("ReconcileComplete is %+v, want upstream's True", rc)
		}
		d := meta.FindStatusCondition(hc.Status.Conditions, hcov1.ConditionDegraded)
		if d == nil || d.Status != metav1.ConditionFalse {
			return fmt.Errorf("Degraded is %+v, want False", d)
		}
		if d.Reason == hcostatus.ReasonOperandAPINotServed || strings.Contains(d.Message, "ssp") {
			return fmt.Errorf("Degraded names the SSP: %+v", d)
		}
		return nil
	})
	events := expectSkippedEvent(t, plainNS, "operand ssp skipped: ssp.kubevirt.io/v1beta3 SSP not served")
	for _, e := range events.Items {
		if e.Type == corev1.EventTypeWarning {
			t.Errorf("a platform default skipped is no warning: %s %s", e.Reason, e.Message)
		}
	}

	// The SSP operator's CRD appears: the SSP follows.
	installSSPCRD(t)
	sspObj := object("ssp.kubevirt.io/v1beta3", "SSP", plainNS, "ssp-kubevirt-hyperconverged")
	testenv.Eventually(t, "SSP created once its CRD is installed", func() error {
		return k.Get(ctx, client.ObjectKeyFromObject(sspObj), sspObj)
	})
}

// The webhook's operand check (preview's CheckOperands) takes a
// HyperConverged whose component's API is not served: nothing to ask.
func TestOperandCheckSkipsAnAPINotServed(t *testing.T) {
	env.Require(t)
	reg, err := hco.NewRegistry(ssp.New())
	if err != nil {
		t.Fatal(err)
	}
	c, err := preview.NewCluster(k, reg, hco.Environment{Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: ns}}
	if err := c.CheckOperands(context.Background(), hc); err != nil {
		t.Errorf("SSP's API is not served: want no refusal, got %v", err)
	}
}

// On plain Kubernetes the operands upstream deploys on OpenShift only
// (hco.OpenShiftOnly: the console plugin, virtio-win) are left out when
// the manager is made: their kinds are not even watched.
func TestOpenShiftOnlyOperandsAreLeftOut(t *testing.T) {
	env.Require(t)
	reg, err := hco.NewRegistry(kubevirt.New(), virtiowin.New(), consoleplugin.New())
	if err != nil {
		t.Fatal(err)
	}
	scheme, err := hco.NewScheme(operands.AddToScheme)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := manager.New(env.Config, reg, hco.Environment{Namespace: plainNS},
		manager.Options{Manager: testenv.ManagerOptions(scheme), Metrics: prometheus.NewRegistry()}); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, op := range reg.Operands() {
		names = append(names, op.Name())
	}
	if strings.Join(names, ",") != kubevirt.Name {
		t.Errorf("enabled operands %v, want only %s", names, kubevirt.Name)
	}
}

// expectSkippedEvent waits for the Normal Event OperandSkipped in ns whose
// note holds msg, and returns the namespace's Events.
func expectSkippedEvent(t *testing.T, ns, msg string) *corev1.EventList {
	t.Helper()
	events := &corev1.EventList{}
	testenv.Eventually(t, "the Event saying "+msg, func() error {
		if err := k.List(context.Background(), events, client.InNamespace(ns)); err != nil {
			return err
		}
		for _, e := range events.Items {
			if e.Reason == hco.EventOperandSkipped && e.Type == corev1.EventTypeNormal && strings.Contains(e.Message, msg) {
				return nil
			}
		}
		return fmt.Errorf("no %s Event among %d", hco.EventOperandSkipped, len(events.Items))
	})
	return events
}
