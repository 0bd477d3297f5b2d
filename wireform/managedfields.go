package wireform

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// OwnManagedFields returns a cache transform (client-go's TransformFunc)
// that drops every managedFields entry but manager's: what Owned reads is
// all a cache of the operator's objects needs. It runs on every event
// before the handlers see it, so an unstructured object's entries are
// filtered as they are (its GetManagedFields and SetManagedFields convert
// each entry and its fieldsV1 tree through JSON, 0.1–0.2 ms per KubeVirt
// event).
func OwnManagedFields(manager string) func(any) (any, error) {
	return func(in any) (any, error) {
		if u, ok := in.(*unstructured.Unstructured); ok {
			keepEntriesOf(manager, u.Object)
			return in, nil
		}
		obj, err := meta.Accessor(in)
		if err != nil {
			return in, nil // a tombstone, say: nothing to trim
		}
		var own []metav1.ManagedFieldsEntry
		for _, e := range obj.GetManagedFields() {
			if e.Manager == manager {
				own = append(own, e)
			}
		}
		obj.SetManagedFields(own)
		return in, nil
	}
}

// keepEntriesOf drops the managedFields entries of an unstructured object's
// content but manager's.
func keepEntriesOf(manager string, obj map[string]any) {
	md, _ := obj["metadata"].(map[string]any)
	entries, _ := md["managedFields"].([]any)
	var own []any
	for _, e := range entries {
		if m, _ := e.(map[string]any); m["manager"] == manager {
			own = append(own, e)
		}
	}
	if own == nil {
		delete(md, "managedFields")
		return
	}
	md["managedFields"] = own
}
