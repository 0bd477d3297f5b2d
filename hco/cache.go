package hco

import (
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/hcokit/hcokit/hco/internal/served"
)

// ManagedSelector selects the objects the operator manages.
func ManagedSelector() labels.Selector {
	return labels.SelectorFromSet(labels.Set{LabelManagedBy: ManagedByValue})
}

// operandKinds lists the enabled operands' kinds, once each, in registry order.
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
