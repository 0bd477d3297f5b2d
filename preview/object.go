package preview

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Object is one operand object before and after the operator's write, as
// the documents a diff shows: apiVersion, kind, name, namespace, the labels
// and annotations the operator owns, and the content (the spec, or a
// ConfigMap's data), without status or the API server's own metadata
// (managedFields, resourceVersion, generation, uid, timestamps), as kubectl
// diff leaves those out or they change on every write.
type Object struct {
	GVK       schema.GroupVersionKind
	Namespace string
	Name      string
	// Live is the object as it is: as the cluster holds it, or offline as
	// built for the old HyperConverged; nil when it does not exist (the
	// operator would create it).
	Live map[string]any
	// Merged is the object after the operator's write: as the API server
	// answered the dry run, or offline as built for the new HyperConverged;
	// nil when the operator would delete it.
	Merged map[string]any
	// JSONPatch is the jsonpatch annotation applied to Merged ("" when
	// none) and JSONPatchOps its number of operations.
	JSONPatch    string
	JSONPatchOps int
}

// FileName is the name kubectl diff gives the object's files:
// group.version.kind.namespace.name (no group for the core API).
func (o Object) FileName() string {
	group := ""
	if o.GVK.Group != "" {
		group = o.GVK.Group + "."
	}
	return fmt.Sprintf("%s%s.%s.%s.%s", group, o.GVK.Version, o.GVK.Kind, o.Namespace, o.Name)
}

// String is the object's kind and name, with its namespace when it has one.
func (o Object) String() string {
	if o.Namespace == "" {
		return o.GVK.Kind + " " + o.Name
	}
	return o.GVK.Kind + " " + o.Namespace + "/" + o.Name
}

// metadataKeys are the label and annotation keys a document shows.
type metadataKeys struct{ labels, annotations []string }

// union returns the keys of both.
func (k metadataKeys) union(o metadataKeys) metadataKeys {
	merge := func(a, b []string) []string {
		out := slices.Concat(a, b)
		slices.Sort(out)
		return slices.Compact(out)
	}
	return metadataKeys{labels: merge(k.labels, o.labels), annotations: merge(k.annotations, o.annotations)}
}

// keysOf are all the label and annotation keys of u: what an object as
// built sets.
func keysOf(u *unstructured.Unstructured) metadataKeys {
	var k metadataKeys
	for l := range u.GetLabels() {
		k.labels = append(k.labels, l)
	}
	for a := range u.GetAnnotations() {
		k.annotations = append(k.annotations, a)
	}
	return k
}

// document is what a diff shows of u: apiVersion, kind, name, namespace,
// the labels and annotations of keys it has, and every top-level member
// but metadata and status. nil for a nil u.
func document(u *unstructured.Unstructured, keys metadataKeys) map[string]any {
	if u == nil {
		return nil
	}
	meta := map[string]any{"name": u.GetName()}
	if ns := u.GetNamespace(); ns != "" {
		meta["namespace"] = ns
	}
	pick := func(have map[string]string, keys []string) map[string]any {
		out := map[string]any{}
		for _, k := range keys {
			if v, ok := have[k]; ok {
				out[k] = v
			}
		}
		return out
	}
	if l := pick(u.GetLabels(), keys.labels); len(l) > 0 {
		meta["labels"] = l
	}
	if a := pick(u.GetAnnotations(), keys.annotations); len(a) > 0 {
		meta["annotations"] = a
	}
	out := map[string]any{"metadata": meta}
	for k, v := range u.Object {
		switch k {
		case "metadata", "status":
		default:
			out[k] = runtime.DeepCopyJSONValue(v)
		}
	}
	return out
}
