package hco

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// ManagedSelector selects the objects the operator manages.
func ManagedSelector() labels.Selector {
	return labels.SelectorFromSet(labels.Set{LabelManagedBy: ManagedByValue})
}

// CacheOptions restricts the manager's cache to what the operator manages:
// the operand kinds of the enabled operands, selected by the managed-by
// label and held in their wire form (unstructured, so that no field is lost
// because a Go type lacks it), with only the operator's own managedFields
// entries (they say which labels and annotations it set). The Nodes are
// not in the cache: the reconciler keeps their names and labels in its own
// compact node index. Nothing else (Pods, Secrets, ConfigMaps,
// VirtualMachines, DataVolumes) is cached.
func CacheOptions(reg *Registry, s *runtime.Scheme) (cache.Options, error) {
	kinds, err := operandKinds(reg, s)
	if err != nil {
		return cache.Options{}, err
	}
	byObject := make(map[client.Object]cache.ByObject, len(kinds))
	for _, k := range kinds {
		byObject[k.newObject()] = cache.ByObject{Label: ManagedSelector(), Transform: keepOwnManagedFields}
	}
	return cache.Options{
		Scheme:           s,
		ByObject:         byObject,
		DefaultTransform: cache.TransformStripManagedFields(),
	}, nil
}

// keepOwnManagedFields drops every managedFields entry but FieldOwner's: a
// cache transform (toolscache.TransformFunc).
func keepOwnManagedFields(in any) (any, error) {
	obj, err := meta.Accessor(in)
	if err != nil {
		// A tombstone, say: nothing to trim.
		return in, nil
	}
	var own []metav1.ManagedFieldsEntry
	for _, e := range obj.GetManagedFields() {
		if e.Manager == FieldOwner {
			own = append(own, e)
		}
	}
	obj.SetManagedFields(own)
	return in, nil
}

type operandKind struct {
	gvk schema.GroupVersionKind
	// operands that return this kind, by name, in registry order.
	operands []string
}

// newObject returns an empty object of the kind, as the cache holds it.
func (k *operandKind) newObject() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(k.gvk)
	return u
}

// newList returns an empty list of the kind.
func (k *operandKind) newList() *unstructured.UnstructuredList {
	l := &unstructured.UnstructuredList{}
	l.SetGroupVersionKind(k.gvk.GroupVersion().WithKind(k.gvk.Kind + "List"))
	return l
}

// operandKinds lists the kinds of the enabled operands, once each, in
// registry order.
func operandKinds(reg *Registry, s *runtime.Scheme) ([]*operandKind, error) {
	var out []*operandKind
	index := map[schema.GroupVersionKind]*operandKind{}
	for _, op := range reg.Operands() {
		for _, obj := range op.Kinds() {
			gvk, err := apiutil.GVKForObject(obj, s)
			if err != nil {
				return nil, err
			}
			k := index[gvk]
			if k == nil {
				k = &operandKind{gvk: gvk}
				index[gvk] = k
				out = append(out, k)
			}
			k.operands = append(k.operands, op.Name())
		}
	}
	return out, nil
}
