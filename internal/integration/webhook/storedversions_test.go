package webhook

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/extensions/storedversions"
	"github.com/hcokit/hcokit/internal/testenv"
)

// A HyperConverged written while the CRD stored v1beta1 stays stored so
// (etcd says) after the CRD stores v1 again; storedversions.MigrateStoredVersions,
// which the operator runs at start, stores it anew as v1 and records
// storedVersions [v1]. Then the conversion webhook down stops a v1beta1
// read only: the v1 read the operator makes needs no conversion.
func TestStoredVersionsMigrated(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	const other = "stored-v1beta1"
	testenv.EnsureNamespace(t, k, other)

	editCRD := func(edit func(*apiextensionsv1.CustomResourceDefinition)) { t.Helper(); editHyperConvergedCRD(t, edit) }
	crd := &apiextensionsv1.CustomResourceDefinition{}
	require.NoError(t, k.Get(ctx, client.ObjectKey{Name: storedversions.HyperConvergedCRDName}, crd))
	conversion := crd.Spec.Conversion.DeepCopy()
	require.NotNil(t, conversion.Webhook, "the CRD converts through the webhook")
	t.Cleanup(func() {
		editCRD(func(crd *apiextensionsv1.CustomResourceDefinition) {
			storeAs("v1")(crd)
			crd.Spec.Conversion = conversion
		})
	})

	stored := func(name string) string {
		v, err := env.StoredAPIVersion("hco.kubevirt.io", "hyperconvergeds", other, name)
		require.NoError(t, err)
		return v
	}
	// HyperConvergeds outside the operator namespace, which the operator
	// never writes: the validating webhook, which refuses them, is off
	// meanwhile (the mutating one sets nothing on them).
	vwc := restoreValidationAtEnd(t)
	require.NoError(t, k.Delete(ctx, vwc))
	name := createStoredAsV1beta1(t, other, func(name string) client.Object {
		return &v1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: other}}
	})
	testenv.Eventually(t, "storedVersions lists both", func() error {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := k.Get(ctx, client.ObjectKey{Name: storedversions.HyperConvergedCRDName}, crd); err != nil {
			return err
		}
		if !slices.Contains(crd.Status.StoredVersions, "v1beta1") || !slices.Contains(crd.Status.StoredVersions, "v1") {
			return fmt.Errorf("storedVersions %v", crd.Status.StoredVersions)
		}
		return nil
	})
	assert.Equal(t, "hco.kubevirt.io/v1beta1", stored(name), "a CRD change rewrites nothing")

	migrated, err := storedversions.MigrateStoredVersions(ctx, k)
	require.NoError(t, err)
	assert.True(t, migrated)
	assert.Equal(t, "hco.kubevirt.io/v1", stored(name))
	require.NoError(t, k.Get(ctx, client.ObjectKey{Name: storedversions.HyperConvergedCRDName}, crd))
	assert.Equal(t, []string{"v1"}, crd.Status.StoredVersions)
	migrated, err = storedversions.MigrateStoredVersions(ctx, k)
	require.NoError(t, err)
	assert.False(t, migrated, "nothing left to migrate")

	// The conversion webhook down: a v1beta1 read fails, a v1 read does not.
	editCRD(func(crd *apiextensionsv1.CustomResourceDefinition) {
		u, err := url.Parse(*crd.Spec.Conversion.Webhook.ClientConfig.URL)
		require.NoError(t, err)
		u.Host = "127.0.0.1:1"
		crd.Spec.Conversion.Webhook.ClientConfig.URL = ptr.To(u.String())
	})
	key := client.ObjectKey{Namespace: other, Name: name}
	// Up again before the HyperConvergeds' cleanups, which delete as v1beta1.
	t.Cleanup(func() {
		editCRD(func(crd *apiextensionsv1.CustomResourceDefinition) { crd.Spec.Conversion = conversion })
		testenv.Eventually(t, "the conversion webhook back", func() error { return k.Get(ctx, key, &v1beta1.HyperConverged{}) })
	})
	testenv.Eventually(t, "a v1beta1 read refused with the conversion webhook down", func() error {
		if err := k.Get(ctx, key, &v1beta1.HyperConverged{}); err == nil {
			return fmt.Errorf("read as v1beta1")
		}
		return nil
	})
	assert.NoError(t, k.Get(ctx, key, &hcov1.HyperConverged{}), "read as v1, as stored")
}

// editHyperConvergedCRD applies edit to the HyperConverged CRD, retrying
// on conflicts.
func editHyperConvergedCRD(t *testing.T, edit func(*apiextensionsv1.CustomResourceDefinition)) {
	t.Helper()
	require.NoError(t, retry.RetryOnConflict(retry.DefaultRetry, func() error {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := k.Get(context.Background(), client.ObjectKey{Name: storedversions.HyperConvergedCRDName}, crd); err != nil {
			return err
		}
		edit(crd)
		return k.Update(context.Background(), crd)
	}))
}

// storeAs makes version the CRD's storage version.
func storeAs(version string) func(*apiextensionsv1.CustomResourceDefinition) {
	return func(crd *apiextensionsv1.CustomResourceDefinition) {
		for i := range crd.Spec.Versions {
			crd.Spec.Versions[i].Storage = crd.Spec.Versions[i].Name == version
		}
	}
}

// createStoredAsV1beta1 creates, in namespace ns, the object newHC makes
// for a name, while the CRD stores v1beta1 (the API server takes up the
// CRD's change shortly after it: each try is a HyperConverged of its own,
// deleted at the end of the test), until etcd holds one as v1beta1; it
// returns that one's name, the CRD storing v1 again. The validating
// webhook must be off (a HyperConverged outside the operator's namespace).
func createStoredAsV1beta1(t *testing.T, ns string, newHC func(name string) client.Object) string {
	t.Helper()
	editHyperConvergedCRD(t, storeAs("v1beta1"))
	defer editHyperConvergedCRD(t, storeAs("v1"))
	for i := 0; ; i++ {
		hc := newHC(fmt.Sprintf("hc-%d", i))
		testenv.CreateForTest(t, k, hc)
		v, err := env.StoredAPIVersion("hco.kubevirt.io", "hyperconvergeds", ns, hc.GetName())
		require.NoError(t, err)
		if v == "hco.kubevirt.io/v1beta1" {
			return hc.GetName()
		}
		require.Less(t, i, 50, "the API server never stored the HyperConverged as v1beta1")
	}
}
