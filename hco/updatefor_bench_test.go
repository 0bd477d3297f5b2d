package hco_test

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/value"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	kvoperand "github.com/hcokit/hcokit/operands/kubevirt"
)

// noView is a cluster that serves every kind and holds nothing.
type noView struct{}

func (noView) Served(schema.GroupVersionKind) bool { return true }
func (noView) Live(context.Context, schema.GroupVersionKind, client.ObjectKey) *unstructured.Unstructured {
	return nil
}
func (noView) Managed(context.Context, schema.GroupVersionKind) ([]*unstructured.Unstructured, error) {
	return nil, nil
}

// BenchmarkUpdateForKubeVirt is the cost of planning the write path's
// update of a KubeVirt whose spec was changed (Step.Over: the plan of one
// object, the update built), and of reading the labels and annotations the
// operator owns from its managedFields.
func BenchmarkUpdateForKubeVirt(b *testing.B) {
	hc := &hcov1.HyperConverged{}
	hc.Name, hc.Namespace = hcov1.HyperConvergedName, "kubevirt-hyperconverged"
	hcov1.Default(hc)
	owner := hco.Owner{Namespace: hc.Namespace, Name: hc.Name, AdoptsUnrecorded: true}
	steps, _, err := hco.PlanOperand(context.Background(), kvoperand.New(), hc, hco.Facts{}, noView{}, owner)
	if err != nil {
		b.Fatal(err)
	}
	observed := steps[0].Desired.DeepCopy()
	_ = unstructured.SetNestedField(observed.Object, int64(300), "spec", "configuration", "migrations", "progressTimeout")
	set := fieldpath.SetFromValue(value.NewValueInterface(observed.Object))
	raw, err := set.ToJSON()
	if err != nil {
		b.Fatal(err)
	}
	observed.SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: hco.FieldOwner, Operation: metav1.ManagedFieldsOperationUpdate, FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: raw}}})
	observed.SetResourceVersion("7")
	b.Logf("managedFields %d bytes", len(raw))
	b.Run("OwnedMetadata", func(b *testing.B) {
		for b.Loop() {
			hco.OwnedMetadata(observed)
		}
	})
	b.Run("UpdateFor", func(b *testing.B) {
		for b.Loop() {
			if s, err := steps[0].Over(observed); err != nil || s.Verb != hco.VerbUpdate {
				b.Fatal("no update", err)
			}
		}
	})
}
