package hco_test

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/value"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	kvoperand "github.com/hcokit/hcokit/operands/kubevirt"
)

// BenchmarkUpdateForKubeVirt is the cost of the write path's update of a
// KubeVirt whose spec changed (the applier's updateOf), and of reading the
// labels and annotations the operator owns from its managedFields.
func BenchmarkUpdateForKubeVirt(b *testing.B) {
	hc := &hcov1.HyperConverged{}
	hc.Name, hc.Namespace = hcov1.HyperConvergedName, "kubevirt-hyperconverged"
	hcov1.Default(hc)
	objs, err := hco.DesiredObjects(kvoperand.New(), hc, hco.Facts{})
	if err != nil {
		b.Fatal(err)
	}
	want := objs[0]
	observed := want.DeepCopy()
	set := fieldpath.SetFromValue(value.NewValueInterface(observed.Object))
	raw, err := set.ToJSON()
	if err != nil {
		b.Fatal(err)
	}
	observed.SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: hco.FieldOwner, Operation: metav1.ManagedFieldsOperationUpdate, FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: raw}}})
	observed.SetResourceVersion("7")
	changed := want.DeepCopy()
	_ = unstructured.SetNestedField(changed.Object, int64(300), "spec", "configuration", "migrations", "progressTimeout")
	b.Logf("managedFields %d bytes", len(raw))
	b.Run("OwnedMetadata", func(b *testing.B) {
		for b.Loop() {
			hco.OwnedMetadata(observed)
		}
	})
	b.Run("UpdateFor", func(b *testing.B) {
		for b.Loop() {
			if _, write := hco.UpdateFor(kvoperand.New(), observed, changed); !write {
				b.Fatal("no write")
			}
		}
	})
}
