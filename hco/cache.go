package hco

import (
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
// label, with managed fields stripped. Nothing else (Pods, Secrets,
// ConfigMaps, VirtualMachines, DataVolumes) is cached.
func CacheOptions(reg *Registry, s *runtime.Scheme) (cache.Options, error) {
	kinds, err := operandKinds(reg, s)
	if err != nil {
		return cache.Options{}, err
	}
	byObject := make(map[client.Object]cache.ByObject, len(kinds))
	for _, k := range kinds {
		byObject[k.object] = cache.ByObject{Label: ManagedSelector()}
	}
	return cache.Options{
		Scheme:           s,
		ByObject:         byObject,
		DefaultTransform: cache.TransformStripManagedFields(),
	}, nil
}

type operandKind struct {
	gvk    schema.GroupVersionKind
	object client.Object
	// operands that return this kind, in registry order.
	operands []Operand
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
				k = &operandKind{gvk: gvk, object: obj}
				index[gvk] = k
				out = append(out, k)
			}
			k.operands = append(k.operands, op)
		}
	}
	return out, nil
}
