package hco

import (
	"fmt"

	ocpconfigv1 "github.com/openshift/api/config/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco/internal/served"
	"github.com/hcokit/hcokit/wireform"
)

// ManagedSelector selects the objects the operator manages.
func ManagedSelector() labels.Selector {
	return labels.SelectorFromSet(labels.Set{LabelManagedBy: ManagedByValue})
}

// CacheScope names the optional objects the cache holds besides the
// operator's own.
type CacheScope struct {
	// ClusterTLS: the cluster serves OpenShift's APIServer configuration,
	// whose TLS profile is the operands' when the HyperConverged has none.
	ClusterTLS bool
	// Extra are what the extensions hold (Extension.Cached).
	Extra map[client.Object]cache.ByObject
	// OtherNamespaces are, for namespaced operand kinds, the namespaces
	// besides the operator's where the cache holds the operator's objects
	// of that kind too (Registry.OtherNamespaces; the OtherNamespacer
	// operands'); AnyNamespace: in every namespace.
	OtherNamespaces map[schema.GroupVersionKind][]string
}

// CacheOptions restricts the manager's cache to what the operator manages:
// objects carrying the managed-by label (the operand kinds, whichever are
// served, now or later: see notServed), namespaced ones in namespace only,
// held in their wire form (unstructured, so that no field is lost because a
// Go type lacks it) with only the operator's own managedFields entries
// (they say which labels and annotations it set); the HyperConverged, from
// every namespace (one outside namespace is marked as ignored); the names
// of the CustomResourceDefinitions (an operand API comes or goes); and,
// what scope names of the cluster's optional objects (CacheScope), and
// the operator's objects of the kinds scope names in the namespaces it
// names for them. The Nodes are not in the cache: the reconciler keeps
// their names and labels in its own compact node index. Nothing else (Pods,
// Secrets, VirtualMachines, DataVolumes, unlabelled ConfigMaps) is cached,
// and reading a kind the cache does not hold is an error, not a new
// informer (a kind whose API is gone would block the reader on its first
// list).
//
// Objects of the operand kinds are not copied on read
// (UnsafeDisableDeepCopy): every reconcile reads all of them, and copying
// them was a tenth of its CPU. Whoever reads one through the manager's
// client or cache must DeepCopy it before changing it. The HyperConverged,
// the CRDs and the APIServer configuration are copied as usual.
func CacheOptions(s *runtime.Scheme, namespace string, scope CacheScope) cache.Options {
	everything := labels.Everything()
	copied := ptr.To(false)
	byObject := map[client.Object]cache.ByObject{
		&hcov1.HyperConverged{}: {Label: everything, Namespaces: map[string]cache.Config{cache.AllNamespaces: {}},
			Transform: cache.TransformStripManagedFields(), UnsafeDisableDeepCopy: copied},
		CRDMetadata(): {Label: everything, Transform: served.KeepCRDName, UnsafeDisableDeepCopy: copied},
	}
	if scope.ClusterTLS {
		byObject[&ocpconfigv1.APIServer{}] = cache.ByObject{Label: everything, Transform: cache.TransformStripManagedFields(), UnsafeDisableDeepCopy: copied}
	}
	// One entry per kind: two extensions that hold one (the Ingress
	// configuration, by name, for the platform facts and the shared lists)
	// hold it alike: either entry will do.
	held := map[schema.GroupVersionKind]bool{}
	for obj, entry := range scope.Extra {
		gvk, err := gvkOf(s, obj)
		if err != nil || held[gvk] {
			continue
		}
		held[gvk] = true
		byObject[obj] = entry
	}
	for gvk, others := range scope.OtherNamespaces {
		namespaces := map[string]cache.Config{}
		for _, ns := range ListNamespaces(true, namespace, others) {
			namespaces[ns] = cache.Config{}
		}
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		// The managed-by selector, transform and no-copy of the defaults.
		byObject[u] = cache.ByObject{Namespaces: namespaces}
	}
	return cache.Options{
		Scheme:                       s,
		DefaultNamespaces:            map[string]cache.Config{namespace: {}},
		DefaultLabelSelector:         ManagedSelector(),
		DefaultTransform:             wireform.OwnManagedFields(FieldOwner),
		DefaultUnsafeDisableDeepCopy: ptr.To(true),
		ByObject:                     byObject,
		ReaderFailOnMissingInformer:  true,
	}
}

// operandKinds lists the kinds of the enabled operands, once each, in
// registry order.
func operandKinds(reg *Registry, s *runtime.Scheme) ([]*served.Kind, error) {
	var out []*served.Kind
	index := map[schema.GroupVersionKind]*served.Kind{}
	for _, op := range reg.Operands() {
		for _, obj := range op.Kinds() {
			gvk, err := apiutil.GVKForObject(obj, s)
			if err != nil {
				return nil, err
			}
			k := index[gvk]
			if k == nil {
				k = &served.Kind{GVK: gvk}
				index[gvk] = k
				out = append(out, k)
			}
			k.Operands = append(k.Operands, op.Name())
		}
	}
	return out, nil
}

// gvkOf is obj's kind, from the object or else from the scheme.
func gvkOf(s *runtime.Scheme, obj client.Object) (schema.GroupVersionKind, error) {
	if gvk := obj.GetObjectKind().GroupVersionKind(); !gvk.Empty() {
		return gvk, nil
	}
	gvks, _, err := s.ObjectKinds(obj)
	if err != nil || len(gvks) == 0 {
		return schema.GroupVersionKind{}, fmt.Errorf("kind of %T: %w", obj, err)
	}
	return gvks[0], nil
}
