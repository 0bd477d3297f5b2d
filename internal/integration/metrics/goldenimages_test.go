package metrics

import (
	"context"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/hcokit/hcokit/internal/testenv"
)

// On a cluster of two workload architectures, with the
// enableMultiArchBootImageImport gate, the stock binary (its shipped RBAC)
// reports upstream's golden-image gauges from the status it writes: the
// multi-architecture images enabled, each common image annotated with its
// architectures and supported by the cluster's.
func TestGoldenImageGauges(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	for _, n := range []struct{ name, arch string }{{"worker-amd64", "amd64"}, {"worker-arm64", "arm64"}} {
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n.name, Labels: map[string]string{
			"kubernetes.io/arch": n.arch, "node-role.kubernetes.io/worker": "",
		}}}
		if err := k.Create(ctx, node); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { testenv.DeleteAndWait(t, k, node) })
	}
	s, tokens := startOperator(t)

	hc := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "hco.kubevirt.io/v1", "kind": "HyperConverged",
		"metadata": map[string]any{"name": "kubevirt-hyperconverged", "namespace": operatorNamespace},
		"spec":     map[string]any{"featureGates": []any{map[string]any{"name": "enableMultiArchBootImageImport"}}},
	}}
	if err := k.Create(ctx, hc); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { testenv.DeleteAndWait(t, k, hc) })
	testenv.Eventually(t, "the golden images' gauges", func() error {
		_, body, err := s.get(tokens.allowed)
		if err != nil {
			return err
		}
		for _, want := range []string{
			"kubevirt_hco_multi_arch_boot_images_enabled 1",
			`kubevirt_hco_dataimportcrontemplate_with_architecture_annotation{data_import_cron_name="centos-stream10-image-cron",managed_data_source_name="centos-stream10"} 1`,
			`kubevirt_hco_dataimportcrontemplate_with_supported_architectures{data_import_cron_name="centos-stream10-image-cron",managed_data_source_name="centos-stream10"} 1`,
		} {
			if !strings.Contains(body, want) {
				return fmt.Errorf("metrics lack %q", want)
			}
		}
		return nil
	})
}
