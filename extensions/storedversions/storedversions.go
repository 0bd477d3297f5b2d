package storedversions

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	ctrl "sigs.k8s.io/controller-runtime"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hcometrics"
)

// HyperConvergedCRDName is the name of the HyperConverged's
// CustomResourceDefinition.
const HyperConvergedCRDName = "hyperconvergeds.hco.kubevirt.io"

// The HyperConverged CRD read at start, and its storedVersions set once
// every HyperConverged is stored as v1 (MigrateStoredVersions, which patches
// the HyperConvergeds: the operator's patch of them, cmd/hco-operator).
// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions,resourceNames=hyperconvergeds.hco.kubevirt.io,verbs=get
// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions/status,resourceNames=hyperconvergeds.hco.kubevirt.io,verbs=patch

// Extension runs MigrateStoredVersions once on the elected replica at
// start (hco.Extension).
type Extension struct{ hco.NoExtension }

var _ hco.Extension = Extension{}

// New returns the extension.
func New() Extension { return Extension{} }

// Setup implements hco.Extension: the migration, with a client that reads
// past the cache and writes as the operator's field owner.
func (Extension) Setup(mgr ctrl.Manager, _ hco.Install, _ *hcometrics.Metrics) ([]hco.Watch, error) {
	direct, err := client.New(mgr.GetConfig(), client.Options{Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper(), HTTPClient: mgr.GetHTTPClient()})
	if err != nil {
		return nil, fmt.Errorf("client for the stored versions: %w", err)
	}
	return nil, mgr.Add(&migration{client: client.WithFieldOwner(direct, hco.FieldOwner), log: mgr.GetLogger().WithName("storedversions")})
}

// MigrateStoredVersions makes the API server hold every HyperConverged in
// the CRD's storage version (v1), then records that in the CRD's
// status.storedVersions, as kube-storage-version-migrator does: each
// object is sent an empty merge patch, which the API server stores anew,
// encoded in the storage version, even though nothing changed. Afterwards
// no stored object needs the conversion webhook to be read as v1: with the
// webhook down, only v1beta1 clients stop, not the operator. It returns
// whether it migrated anything; nothing is sent when storedVersions holds
// the storage version only (one get). c reads past any cache.
//
// Safe against a change meanwhile: the objects are listed after the CRD was
// read with its storage version, every later write is stored in it, and the
// status patch carries the CRD's resourceVersion as its precondition.
func MigrateStoredVersions(ctx context.Context, c client.Client) (bool, error) {
	crd := &unstructured.Unstructured{}
	crd.SetGroupVersionKind(hco.CRDMetadata().GroupVersionKind())
	if err := c.Get(ctx, client.ObjectKey{Name: HyperConvergedCRDName}, crd); err != nil {
		return false, fmt.Errorf("get CustomResourceDefinition %s: %w", HyperConvergedCRDName, err)
	}
	storage := storageVersion(crd)
	stored, _, _ := unstructured.NestedStringSlice(crd.Object, "status", "storedVersions")
	if storage == "" || slices.Equal(stored, []string{storage}) {
		return false, nil
	}
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(schema.GroupVersionKind{Group: hcov1.GroupVersion.Group, Version: storage, Kind: "HyperConvergedList"})
	if err := c.List(ctx, list); err != nil {
		return false, fmt.Errorf("list HyperConvergeds to store them as %s: %w", storage, err)
	}
	for i := range list.Items {
		hc := &list.Items[i]
		err := c.Patch(ctx, hc, client.RawPatch(types.MergePatchType, []byte("{}")))
		if client.IgnoreNotFound(err) != nil {
			return false, fmt.Errorf("store HyperConverged %s/%s as %s: %w", hc.GetNamespace(), hc.GetName(), storage, err)
		}
	}
	patch, err := json.Marshal(map[string]any{
		"metadata": map[string]any{"resourceVersion": crd.GetResourceVersion()},
		"status":   map[string]any{"storedVersions": []string{storage}},
	})
	if err != nil {
		return false, err
	}
	if err := c.Status().Patch(ctx, crd, client.RawPatch(types.MergePatchType, patch)); err != nil {
		return false, fmt.Errorf("record storedVersions [%s] in CustomResourceDefinition %s: %w", storage, HyperConvergedCRDName, err)
	}
	return true, nil
}

// storageVersion is the name of the CRD's version marked storage.
func storageVersion(crd *unstructured.Unstructured) string {
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	for _, v := range versions {
		if m, ok := v.(map[string]any); ok && m["storage"] == true {
			name, _ := m["name"].(string)
			return name
		}
	}
	return ""
}

// migration runs MigrateStoredVersions once on the elected
// replica at start, retried with backoff (1 s doubling to 5 min) while it
// fails (the conversion webhook down, say): a failure is logged, never
// fatal, and the reconciler does not wait for it.
type migration struct {
	client client.Client
	log    logr.Logger
}

func (m *migration) NeedLeaderElection() bool { return true }

func (m *migration) Start(ctx context.Context) error {
	backoff := wait.Backoff{Duration: time.Second, Factor: 2, Steps: 100, Cap: 5 * time.Minute}
	_ = wait.ExponentialBackoffWithContext(ctx, backoff, func(ctx context.Context) (bool, error) {
		migrated, err := MigrateStoredVersions(ctx, m.client)
		switch {
		case ctx.Err() != nil:
			return false, ctx.Err() // stopping
		case err == nil && migrated:
			m.log.Info("HyperConvergeds stored in the CRD's storage version; storedVersions updated", "crd", HyperConvergedCRDName)
		case apierrors.IsForbidden(err):
			m.log.Error(err, "the operator may not migrate the HyperConverged's stored versions; objects stored as v1beta1 stay so until written")
			return true, nil
		case err != nil:
			m.log.Error(err, "migrating the HyperConverged's stored versions; retrying")
			return false, nil
		}
		return true, nil
	})
	return nil
}
