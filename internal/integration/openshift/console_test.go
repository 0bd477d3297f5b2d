package openshift

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/internal/testenv"
	"github.com/hcokit/hcokit/operands/dashboard"
	"github.com/hcokit/hcokit/operands/quickstart"
)

// The test data of the quickstart and dashboard modules: upstream's test
// files in the layout of its CI image (build/Dockerfile.okd), and what
// upstream's handlers build from them at 03da3cf.
const (
	quickStartData = "operands/quickstart/testdata/upstream-03da3cf"
	dashboardData  = "operands/dashboard/testdata/upstream-03da3cf"
)

// consoleOperands are the quickstart and dashboard modules with upstream's
// test files, read as the stock binary reads its directories. It makes the
// namespace the dashboards go in, as OpenShift has it.
func consoleOperands() ([]hco.Operand, error) {
	root, err := testenv.RepoRoot()
	if err != nil {
		return nil, err
	}
	qs, err := quickstart.Load(os.DirFS(filepath.Join(root, quickStartData)), quickstart.Dir)
	if err != nil {
		return nil, err
	}
	cms, err := dashboard.Load(os.DirFS(filepath.Join(root, dashboardData)), dashboard.Dir)
	if err != nil {
		return nil, err
	}
	err = k.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: dashboard.Namespace}})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, err
	}
	return []hco.Operand{quickstart.New(qs...), dashboard.New(cms...)}, nil
}

// upstreamObject reads the one object upstream built, from file under the
// repository root.
func upstreamObject(t *testing.T, file string) *unstructured.Unstructured {
	t.Helper()
	root, err := testenv.RepoRoot()
	require.NoError(t, err)
	raw, err := os.ReadFile(filepath.Join(root, file))
	require.NoError(t, err)
	j, err := yaml.YAMLToJSON(raw)
	require.NoError(t, err)
	u := &unstructured.Unstructured{}
	require.NoError(t, u.UnmarshalJSON(j), "%s: as the API server's objects read (integers int64)", file)
	return u
}

var configMapKind = corev1.SchemeGroupVersion.WithKind("ConfigMap")

// On OpenShift the operator makes upstream's test quick start and test
// dashboard exactly as upstream's handlers build them at 03da3cf, which the
// console's CRD and the API server store as sent (nothing pruned or
// defaulted); each records its HyperConverged with the owner annotations
// (the dashboard is in openshift-config-managed: an owner reference there
// would make the garbage collector delete it) and is a related object. An
// edit of the quick start's spec or of the dashboard's data is put back; a
// dashboard recorded for this HyperConverged that is no longer given is
// deleted, another install's is left alone; deleting the HyperConverged
// deletes both.
func TestConsoleQuickStartsAndDashboards(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: ns}}
	testenv.CreateForTest(t, k, hc)

	quickStart := upstreamObject(t, quickStartData+"/quickstarts.yaml")
	board := upstreamObject(t, dashboardData+"/dashboards.yaml")
	require.Equal(t, "ConsoleQuickStart", quickStart.GetKind())
	require.Equal(t, dashboard.Namespace, board.GetNamespace())
	for _, want := range []*unstructured.Unstructured{quickStart, board} {
		got := testenv.Stored(t, k, want)
		what := got.GetKind() + " " + got.GetName()
		for field, v := range want.Object {
			if field != "metadata" {
				assert.Equal(t, v, got.Object[field], "%s: %s as upstream builds it, stored as sent", what, field)
			}
		}
		assert.Equal(t, want.GetNamespace(), got.GetNamespace(), what)
		for key, v := range want.GetLabels() {
			assert.Equal(t, v, got.GetLabels()[key], "%s: upstream's label %s", what, key)
		}
		assert.Equal(t, ns+"/"+hcov1.HyperConvergedName, got.GetAnnotations()[hco.OwnerAnnotation], what)
		assert.Equal(t, string(hc.UID), got.GetAnnotations()[hco.OwnerUIDAnnotation], what)
		assert.Empty(t, got.GetOwnerReferences(), "%s: no owner reference", what)
	}
	testenv.Eventually(t, "the quick start and the dashboard among the related objects", func() error {
		current := &hcov1.HyperConverged{}
		if err := k.Get(ctx, client.ObjectKeyFromObject(hc), current); err != nil {
			return err
		}
		for _, want := range []*unstructured.Unstructured{quickStart, board} {
			if !slices.ContainsFunc(current.Status.RelatedObjects, func(r corev1.ObjectReference) bool {
				return r.Kind == want.GetKind() && r.Namespace == want.GetNamespace() && r.Name == want.GetName()
			}) {
				return fmt.Errorf("no %s %s in %v", want.GetKind(), want.GetName(), current.Status.RelatedObjects)
			}
		}
		return nil
	})

	// Edits are put back.
	edit(t, quickStart, func(u *unstructured.Unstructured) {
		require.NoError(t, unstructured.SetNestedField(u.Object, "Edited", "spec", "displayName"))
	})
	edit(t, board, func(u *unstructured.Unstructured) {
		require.NoError(t, unstructured.SetNestedStringMap(u.Object, map[string]string{"other.json": "{}"}, "data"))
	})
	testenv.Eventually(t, "the quick start's spec put back", func() error { return sameField(ctx, quickStart, "spec") })
	testenv.Eventually(t, "the dashboard's data put back", func() error { return sameField(ctx, board, "data") })

	// A dashboard of this HyperConverged no longer given goes; another
	// install's stays.
	old := dashboardRecordedFor(ns, string(hc.UID), "grafana-dashboard-retired")
	other := dashboardRecordedFor("another-install", "u-other", "grafana-dashboard-of-another-install")
	testenv.CreateForTest(t, k, old)
	testenv.CreateForTest(t, k, other)
	testenv.Eventually(t, "the retired dashboard deleted", func() error {
		err := k.Get(ctx, client.ObjectKeyFromObject(old), &corev1.ConfigMap{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("still there: %v", err)
	})

	// The HyperConverged's deletion takes both with it, and leaves the
	// other install's.
	testenv.DeleteAndWait(t, k, hc)
	for _, want := range []*unstructured.Unstructured{quickStart, board} {
		err := k.Get(ctx, client.ObjectKeyFromObject(want), want.DeepCopy())
		assert.True(t, apierrors.IsNotFound(err), "%s %s after the uninstall: %v", want.GetKind(), want.GetName(), err)
	}
	assert.NoError(t, k.Get(ctx, client.ObjectKeyFromObject(other), &corev1.ConfigMap{}), "another install's dashboard")
}

// edit changes the object the API server holds at want's key with change,
// retrying on a conflict with the operator's writes.
func edit(t *testing.T, want *unstructured.Unstructured, change func(*unstructured.Unstructured)) {
	t.Helper()
	testenv.Eventually(t, "edit "+want.GetKind()+" "+want.GetName(), func() error {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(want.GroupVersionKind())
		if err := k.Get(context.Background(), client.ObjectKeyFromObject(want), u); err != nil {
			return err
		}
		change(u)
		return k.Update(context.Background(), u)
	})
}

// sameField reports how the object at want's key differs from want in
// field, nil when it does not.
func sameField(ctx context.Context, want *unstructured.Unstructured, field string) error {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(want.GroupVersionKind())
	if err := k.Get(ctx, client.ObjectKeyFromObject(want), u); err != nil {
		return err
	}
	if !reflect.DeepEqual(u.Object[field], want.Object[field]) {
		return fmt.Errorf("%s is %.200v", field, u.Object[field])
	}
	return nil
}

// dashboardRecordedFor is a dashboard ConfigMap in openshift-config-managed
// with the operator's labels and the owner record of the HyperConverged of
// namespace, with uid.
func dashboardRecordedFor(namespace, uid, name string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		TypeMeta: metav1.TypeMeta{APIVersion: configMapKind.GroupVersion().String(), Kind: configMapKind.Kind},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: dashboard.Namespace,
			Labels:      map[string]string{hco.LabelApp: hcov1.HyperConvergedName, hco.LabelManagedBy: hco.ManagedByValue, "console.openshift.io/dashboard": "true"},
			Annotations: map[string]string{hco.OwnerAnnotation: namespace + "/" + hcov1.HyperConvergedName, hco.OwnerUIDAnnotation: uid}},
		Data: map[string]string{name + ".json": "{}"},
	}
}
