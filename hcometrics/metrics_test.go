package hcometrics_test

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hcometrics"
)

// A narrow test of what the collector reports from a reader (the manager's
// cache in the operator; internal/integration/metrics scrapes the real one).
func TestHyperConvergedCollector(t *testing.T) {
	scheme, err := hco.NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	key := types.NamespacedName{Namespace: "kubevirt-hyperconverged", Name: hcov1.HyperConvergedName}
	elected := make(chan struct{})
	c := fake.NewClientBuilder().WithScheme(scheme).Build()
	collector := hcometrics.NewHyperConvergedCollector(c, elected, key)

	if n := testutil.CollectAndCount(collector); n != 0 {
		t.Errorf("before the election: %d samples, want none (a standby does not know)", n)
	}
	close(elected)
	if err := testutil.CollectAndCompare(collector, strings.NewReader(`
# HELP kubevirt_hco_hyperconverged_cr_exists Indicates whether the HyperConverged custom resource exists (1) or not (0).
# TYPE kubevirt_hco_hyperconverged_cr_exists gauge
kubevirt_hco_hyperconverged_cr_exists 0
`)); err != nil {
		t.Errorf("no HyperConverged: %v", err)
	}

	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}}
	hc.Spec.Virtualization.HigherWorkloadDensity = &hcov1.HigherWorkloadDensityConfiguration{MemoryOvercommitPercentage: 150}
	if err := c.Create(t.Context(), hc); err != nil {
		t.Fatal(err)
	}
	if err := testutil.CollectAndCompare(collector, strings.NewReader(`
# HELP kubevirt_hco_hyperconverged_cr_exists Indicates whether the HyperConverged custom resource exists (1) or not (0).
# TYPE kubevirt_hco_hyperconverged_cr_exists gauge
kubevirt_hco_hyperconverged_cr_exists 1
# HELP kubevirt_hco_memory_overcommit_percentage Indicates the cluster-wide configured VM memory overcommit percentage.
# TYPE kubevirt_hco_memory_overcommit_percentage gauge
kubevirt_hco_memory_overcommit_percentage 150
`)); err != nil {
		t.Errorf("HyperConverged with 150%%: %v", err)
	}
}
