package hcometrics_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
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

// Upstream's golden-image architecture gauges, from the status the operator
// stored (03da3cf: reported on a multi-architecture cluster with golden
// images; per image only while the multi-architecture import is on).
func TestGoldenImageArchitectures(t *testing.T) {
	image := func(name, archs string, deployed metav1.ConditionStatus) hcov1.DataImportCronTemplateStatus {
		d := hcov1.DataImportCronTemplateStatus{}
		d.Name = name
		d.Spec = &cdiv1beta1.DataImportCronSpec{ManagedDataSource: name + "-ds"}
		d.Status.OriginalSupportedArchitectures = archs
		if deployed != "" {
			d.Status.Conditions = []metav1.Condition{{Type: "Deployed", Status: deployed}}
		}
		return d
	}
	hc := func(multiArch bool, archs []string, images ...hcov1.DataImportCronTemplateStatus) *hcov1.HyperConverged {
		h := &hcov1.HyperConverged{}
		h.Spec.WorkloadSources.EnableMultiArchBootImageImport = &multiArch
		h.Status.NodeInfo.WorkloadsArchitectures = archs
		h.Status.DataImportCronTemplates = images
		return h
	}
	tests := []struct {
		name string
		hc   *hcov1.HyperConverged
		want hcometrics.GoldenImageArchitectures
	}{
		{"one architecture, import off: nothing", hc(false, []string{"amd64"}, image("a", "", "")), hcometrics.GoldenImageArchitectures{}},
		{"two architectures, import off: disabled reported", hc(false, []string{"amd64", "arm64"}, image("a", "", "")),
			hcometrics.GoldenImageArchitectures{MultiArchReported: true}},
		{"two architectures, no golden image: nothing", hc(false, []string{"amd64", "arm64"}), hcometrics.GoldenImageArchitectures{}},
		{"import on: each image", hc(true, []string{"amd64", "arm64"},
			image("annotated", "amd64,arm64", ""), image("unsupported", "s390x", metav1.ConditionFalse), image("bare", "", "")),
			hcometrics.GoldenImageArchitectures{MultiArch: true, MultiArchReported: true, Images: []hcometrics.GoldenImageArchitecture{
				{Name: "annotated", DataSource: "annotated-ds", Annotated: true, Supported: true},
				{Name: "unsupported", DataSource: "unsupported-ds", Annotated: true},
				{Name: "bare", DataSource: "bare-ds"},
			}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := hcometrics.GoldenImageArchitecturesOf(tc.hc); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// The collector reports the golden-image gauges with upstream's names and labels.
func TestHyperConvergedCollectorReportsGoldenImages(t *testing.T) {
	scheme, err := hco.NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	key := types.NamespacedName{Namespace: "kubevirt-hyperconverged", Name: hcov1.HyperConvergedName}
	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}}
	hc.Spec.WorkloadSources.EnableMultiArchBootImageImport = new(true)
	hc.Status.NodeInfo.WorkloadsArchitectures = []string{"amd64", "arm64"}
	d := hcov1.DataImportCronTemplateStatus{}
	d.Name = "fedora-image-cron"
	d.Spec = &cdiv1beta1.DataImportCronSpec{ManagedDataSource: "fedora"}
	d.Status.OriginalSupportedArchitectures = "s390x"
	d.Status.Conditions = []metav1.Condition{{Type: "Deployed", Status: metav1.ConditionFalse}}
	hc.Status.DataImportCronTemplates = []hcov1.DataImportCronTemplateStatus{d}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(hc).WithStatusSubresource(hc).Build()
	elected := make(chan struct{})
	close(elected)
	collector := hcometrics.NewHyperConvergedCollector(c, elected, key)
	if err := testutil.CollectAndCompare(collector, strings.NewReader(`
# HELP kubevirt_hco_dataimportcrontemplate_with_architecture_annotation Indicates whether the DataImportCronTemplate has the ssp.kubevirt.io/dict.architectures annotation (1) or not (0)
# TYPE kubevirt_hco_dataimportcrontemplate_with_architecture_annotation gauge
kubevirt_hco_dataimportcrontemplate_with_architecture_annotation{data_import_cron_name="fedora-image-cron",managed_data_source_name="fedora"} 1
# HELP kubevirt_hco_dataimportcrontemplate_with_supported_architectures Indicates whether the DataImportCronTemplate has supported architectures (1) or not (0)
# TYPE kubevirt_hco_dataimportcrontemplate_with_supported_architectures gauge
kubevirt_hco_dataimportcrontemplate_with_supported_architectures{data_import_cron_name="fedora-image-cron",managed_data_source_name="fedora"} 0
# HELP kubevirt_hco_multi_arch_boot_images_enabled indicates if the Multi-Arch Boot Images feature is enabled (1) or not (0)
# TYPE kubevirt_hco_multi_arch_boot_images_enabled gauge
kubevirt_hco_multi_arch_boot_images_enabled 1
`), "kubevirt_hco_multi_arch_boot_images_enabled", "kubevirt_hco_dataimportcrontemplate_with_supported_architectures",
		"kubevirt_hco_dataimportcrontemplate_with_architecture_annotation"); err != nil {
		t.Error(err)
	}
}
