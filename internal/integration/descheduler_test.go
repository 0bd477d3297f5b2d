package integration

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/hcokit/hcokit/internal/testenv"
)

// The running operator reports in kubevirt_hco_misconfigured_descheduler
// whether OpenShift's descheduler runs a profile that knows KubeVirt, as
// upstream's does: 0 while its API is not served or its KubeDescheduler
// does not exist, then following the KubeDescheduler's profiles, without a
// restart when the descheduler is installed or removed.
func TestMisconfiguredDeschedulerIsReported(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	gaugeIs := func(what string, want float64) {
		t.Helper()
		testenv.Eventually(t, what, func() error {
			families, err := metrics.Gather()
			if err != nil {
				return err
			}
			for _, f := range families {
				if f.GetName() == "kubevirt_hco_misconfigured_descheduler" {
					if got := f.GetMetric()[0].GetGauge().GetValue(); got != want {
						return fmt.Errorf("kubevirt_hco_misconfigured_descheduler %v, want %v", got, want)
					}
					return nil
				}
			}
			return fmt.Errorf("kubevirt_hco_misconfigured_descheduler not gathered")
		})
	}
	gaugeIs("no descheduler", 0)

	root, err := testenv.RepoRoot()
	require.NoError(t, err)
	_, err = envtest.InstallCRDs(env.Config, envtest.CRDInstallOptions{Paths: []string{filepath.Join(root, "internal/integration/testdata/descheduler")}})
	require.NoError(t, err)
	crd := &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: "kubedeschedulers.operator.openshift.io"}}
	t.Cleanup(func() { testenv.DeleteAndWait(t, k, crd.DeepCopy()) })
	namespace := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "openshift-kube-descheduler-operator"}}
	if err := k.Create(ctx, namespace); err != nil && !apierrors.IsAlreadyExists(err) {
		require.NoError(t, err)
	}
	gaugeIs("the descheduler's API served, no KubeDescheduler", 0)

	kd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "operator.openshift.io/v1", "kind": "KubeDescheduler",
		"metadata": map[string]any{"name": "cluster", "namespace": namespace.Name},
		"spec":     map[string]any{"profiles": []any{"AffinityAndTaints"}},
	}}
	require.NoError(t, k.Create(ctx, kd))
	t.Cleanup(func() { _ = k.Delete(ctx, kd) })
	gaugeIs("a KubeDescheduler without a KubeVirt profile", 1)

	require.NoError(t, unstructured.SetNestedStringSlice(kd.Object, []string{"AffinityAndTaints", "KubeVirtRelieveAndMigrate"}, "spec", "profiles"))
	require.NoError(t, k.Update(ctx, kd))
	gaugeIs("KubeVirtRelieveAndMigrate", 0)

	require.NoError(t, unstructured.SetNestedStringSlice(kd.Object, []string{"LongLifecycle"}, "spec", "profiles"))
	require.NoError(t, k.Update(ctx, kd))
	gaugeIs("LongLifecycle", 0)

	require.NoError(t, unstructured.SetNestedStringSlice(kd.Object, []string{"EvictPodsWithPVC"}, "spec", "profiles"))
	require.NoError(t, k.Update(ctx, kd))
	gaugeIs("a profile that does not know KubeVirt", 1)

	// The descheduler uninstalled: its API goes, and so does the report.
	require.NoError(t, k.Delete(ctx, crd))
	gaugeIs("the descheduler uninstalled", 0)
}
