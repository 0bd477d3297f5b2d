package preview

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/render"
)

// Offline returns the operand objects of oldHC and newHC with no cluster,
// as Objects: each rendered as render does (CRD defaults in Go, the
// webhook's checks that need no cluster, hco.OfflineFacts(env)), the
// documents showing the labels and annotations either builds. An object
// only oldHC has is deleted, one only newHC has created. Against a cluster
// whose nodes give the facts render assumes and whose operand CRDs default
// nothing the operator leaves unset, it is what Cluster.Changes shows for
// newHC over a cluster converged on oldHC. An invalid HyperConverged is an
// error naming it ("old" or "new") and the field.
func Offline(reg *hco.Registry, oldHC, newHC *hcov1.HyperConverged, env hco.Environment) ([]Object, error) {
	before, err := rendered(reg, oldHC, env)
	if err != nil {
		return nil, fmt.Errorf("old HyperConverged: %w", err)
	}
	after, err := rendered(reg, newHC, env)
	if err != nil {
		return nil, fmt.Errorf("new HyperConverged: %w", err)
	}
	var out []Object
	for _, a := range after.objs {
		o := Object{GVK: a.obj.GroupVersionKind(), Namespace: a.obj.GetNamespace(), Name: a.obj.GetName(), JSONPatch: a.patch, JSONPatchOps: a.ops}
		b := before.index[a.key]
		keys := keysOf(a.obj)
		if b != nil {
			keys = keys.union(keysOf(b.obj))
			o.Live = document(b.obj, keys)
		}
		o.Merged = document(a.obj, keys)
		out = append(out, o)
	}
	for _, b := range before.objs {
		if after.index[b.key] == nil {
			out = append(out, Object{GVK: b.obj.GroupVersionKind(), Namespace: b.obj.GetNamespace(), Name: b.obj.GetName(), Live: document(b.obj, keysOf(b.obj))})
		}
	}
	return out, nil
}

// renderedObject is one object render builds, with the jsonpatch annotation
// applied to it.
type renderedObject struct {
	key   objectKey
	obj   *unstructured.Unstructured
	patch string
	ops   int
}

type objectKey struct {
	gvk schema.GroupVersionKind
	key client.ObjectKey
}

type renderedSet struct {
	objs  []*renderedObject
	index map[objectKey]*renderedObject
}

// rendered renders hc as render.Objects does, operand by operand.
func rendered(reg *hco.Registry, hc *hcov1.HyperConverged, env hco.Environment) (renderedSet, error) {
	if hc == nil {
		return renderedSet{}, errors.New("none given")
	}
	hc, env, err := render.Prepare(reg, hc, env)
	if err != nil {
		return renderedSet{}, err
	}
	set := renderedSet{index: map[objectKey]*renderedObject{}}
	for _, op := range reg.Operands() {
		objs, err := hco.DesiredObjects(op, hc, hco.OfflineFacts(env))
		if err != nil {
			return renderedSet{}, fmt.Errorf("operand %s: %w", op.Name(), err)
		}
		patch, ops := hco.JSONPatchInEffect(op, hc)
		for i, u := range objs {
			r := &renderedObject{key: objectKey{gvk: u.GroupVersionKind(), key: client.ObjectKeyFromObject(u)}, obj: u}
			if i == 0 {
				r.patch, r.ops = patch, ops
			}
			set.objs = append(set.objs, r)
			set.index[r.key] = r
		}
	}
	return set, nil
}
