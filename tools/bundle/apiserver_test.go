package bundle_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/operator-framework/api/crds"
	"github.com/operator-framework/api/pkg/manifests"
	"sigs.k8s.io/yaml"

	"github.com/hcokit/hcokit/internal/testenv"
	"github.com/hcokit/hcokit/tools/bundle"
)

var env *testenv.Env

// TestMain installs the CRDs of the committed bundle/manifests, and only
// those, on the shared test control plane.
func TestMain(m *testing.M) {
	testenv.Main(m, testenv.Options{CRDDirectoryPaths: []string{"bundle/manifests"}}, func(e *testenv.Env) { env = e })
}

// TestBundleCRDServesExamples creates every alm-example of the CSV through
// the bundle's own CRD on a real API server, and reads each back in every
// served version (the conversion webhook converts).
func TestBundleCRDServesExamples(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	b, err := manifests.GetBundleFromDir(root + "/bundle")
	if err != nil {
		t.Fatalf("loading bundle/: %v", err)
	}
	var examples []map[string]any
	if err := json.Unmarshal([]byte(b.CSV.Annotations["alm-examples"]), &examples); err != nil {
		t.Fatalf("alm-examples: %v", err)
	}
	if len(examples) == 0 {
		t.Fatal("the CSV has no alm-examples")
	}
	for _, ex := range examples {
		obj := &unstructured.Unstructured{Object: ex}
		gvk := obj.GroupVersionKind()
		t.Run(gvk.Version, func(t *testing.T) {
			crd := &apiextensionsv1.CustomResourceDefinition{}
			crdName := ""
			for _, owned := range b.CSV.Spec.CustomResourceDefinitions.Owned {
				if owned.Kind == gvk.Kind && owned.Version == gvk.Version {
					crdName = owned.Name
				}
			}
			if crdName == "" {
				t.Fatalf("alm-example %s is of no owned CRD", gvk)
			}
			if err := env.Client.Get(ctx, client.ObjectKey{Name: crdName}, crd); err != nil {
				t.Fatalf("the bundle's CRD %s is not on the API server: %v", crdName, err)
			}
			ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: obj.GetNamespace()}}
			if err := env.Client.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
				t.Fatal(err)
			}
			obj = obj.DeepCopy()
			if err := env.Client.Create(ctx, obj); err != nil {
				t.Fatalf("creating the alm-example %s %s: %v", gvk, obj.GetName(), err)
			}
			t.Cleanup(func() {
				if err := env.Client.Delete(ctx, obj); err != nil && !apierrors.IsNotFound(err) {
					t.Error(err)
				}
				testenv.Eventually(t, "alm-example deleted", func() error {
					err := env.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj.DeepCopy())
					if apierrors.IsNotFound(err) {
						return nil
					}
					if err == nil {
						return apierrors.NewAlreadyExists(schema.GroupResource{}, obj.GetName())
					}
					return err
				})
			})
			for _, v := range crd.Spec.Versions {
				got := &unstructured.Unstructured{}
				got.SetGroupVersionKind(gvk.GroupKind().WithVersion(v.Name))
				if err := env.Client.Get(ctx, client.ObjectKeyFromObject(obj), got); err != nil {
					t.Errorf("reading the alm-example back as %s: %v", v.Name, err)
				}
			}
		})
	}
}

// TestCSVAcceptedByOLMSchema creates the committed CSV, with strict field
// validation, through the ClusterServiceVersion CRD that OLM installs (from
// operator-framework/api), so that a misspelt or misplaced field fails here
// rather than on a cluster.
func TestCSVAcceptedByOLMSchema(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	crd := crds.ClusterServiceVersion()
	// A CRD of an earlier run (-count) may still be going away.
	testenv.Eventually(t, "OLM's ClusterServiceVersion CRD created", func() error {
		err := env.Client.Create(ctx, crd.DeepCopy())
		if apierrors.IsAlreadyExists(err) {
			return err
		}
		if err != nil {
			t.Fatal(err)
		}
		return nil
	})
	t.Cleanup(func() {
		if err := env.Client.Delete(ctx, crd); err != nil && !apierrors.IsNotFound(err) {
			t.Error(err)
		}
	})
	data, err := os.ReadFile(filepath.Join(root, bundle.ManifestsDir, "hcokit-operator.clusterserviceversion.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	csv := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(data, &csv.Object); err != nil {
		t.Fatal(err)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: csv.GetAnnotations()["operatorframework.io/suggested-namespace"]}}
	if err := env.Client.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	csv.SetNamespace(ns.Name)
	testenv.Eventually(t, "the CSV created through OLM's CRD", func() error {
		err := env.Client.Create(ctx, csv.DeepCopy(), client.FieldValidation(metav1.FieldValidationStrict))
		if apierrors.IsNotFound(err) || meta.IsNoMatchError(err) {
			return err // the CRD is not served yet
		}
		if err != nil {
			t.Fatalf("creating the CSV: %v", err)
		}
		return nil
	})
	t.Cleanup(func() {
		if err := env.Client.Delete(ctx, csv); err != nil && !apierrors.IsNotFound(err) {
			t.Error(err)
		}
	})
}
