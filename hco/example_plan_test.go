package hco_test

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	kubevirtop "github.com/hcokit/hcokit/operands/kubevirt"
)

// storedView is a cluster that serves every kind and holds one object.
type storedView struct{ obj *unstructured.Unstructured }

func (storedView) Served(schema.GroupVersionKind) bool { return true }
func (v storedView) Live(_ context.Context, gvk schema.GroupVersionKind, key client.ObjectKey) *unstructured.Unstructured {
	if v.obj.GroupVersionKind() == gvk && client.ObjectKeyFromObject(v.obj) == key {
		return v.obj
	}
	return nil
}
func (storedView) Managed(context.Context, schema.GroupVersionKind) ([]*unstructured.Unstructured, error) {
	return nil, nil
}

// Follow one field (hco/doc.go): the admin sets
// spec.virtualization.liveMigrationConfig.parallelMigrationsPerCluster, and
// the update the operator plans over the stored KubeVirt carries it in
// spec.configuration.migrations, as the reconciler, hco-operator diff and
// the webhook's operand check all plan it.
func ExamplePlanOperand() {
	ctx := context.Background()
	hc := &hcov1.HyperConverged{}
	hc.Name, hc.Namespace, hc.UID = hcov1.HyperConvergedName, "kubevirt-hyperconverged", "uid-1"
	hcov1.Default(hc)
	owner := hco.Owner{Namespace: hc.Namespace, Name: hc.Name, UID: hc.UID, AdoptsUnrecorded: true}

	// The first reconcile creates the KubeVirt; the API server stores it.
	steps, _, err := hco.PlanOperand(ctx, kubevirtop.New(), hc, hco.Facts{}, storedView{obj: &unstructured.Unstructured{}}, owner)
	if err != nil {
		panic(err)
	}
	stored := steps[0].Send.DeepCopy()
	stored.SetResourceVersion("1")
	fmt.Println(steps[0].Verb, steps[0].GVK.Kind)

	// The admin's change: the next plan updates the stored KubeVirt.
	hc.Spec.Virtualization.LiveMigrationConfig.ParallelMigrationsPerCluster = ptr.To(uint32(9))
	steps, _, err = hco.PlanOperand(ctx, kubevirtop.New(), hc, hco.Facts{}, storedView{obj: stored}, owner)
	if err != nil {
		panic(err)
	}
	n, _, _ := unstructured.NestedInt64(steps[0].Send.Object, "spec", "configuration", "migrations", "parallelMigrationsPerCluster")
	fmt.Println(steps[0].Verb, steps[0].GVK.Kind, n, "at resourceVersion", steps[0].Send.GetResourceVersion())
	// Output:
	// create KubeVirt
	// update KubeVirt 9 at resourceVersion 1
}
