package wireform

import (
	"encoding/json"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// Keys are label and annotation keys of an object.
type Keys struct{ Labels, Annotations []string }

// Empty reports whether k holds no key.
func (k Keys) Empty() bool { return len(k.Labels)+len(k.Annotations) == 0 }

// Owned returns the keys of obj's labels and annotations that the API
// server records in obj's managedFields as set by the field manager
// manager (sorted; none without managedFields).
func Owned(obj *unstructured.Unstructured, manager string) Keys {
	var out Keys
	for _, e := range obj.GetManagedFields() {
		if e.Manager != manager || e.FieldsV1 == nil {
			continue
		}
		// Only metadata's part of the record is decoded: the spec's, every
		// field the manager sets, is most of it (a KubeVirt's: parsed
		// whole, a third of the work of an update).
		var f struct {
			Metadata struct {
				Labels      map[string]struct{} `json:"f:labels"`
				Annotations map[string]struct{} `json:"f:annotations"`
			} `json:"f:metadata"`
		}
		if err := json.Unmarshal(e.FieldsV1.Raw, &f); err != nil {
			continue
		}
		out.Labels = append(out.Labels, ownedKeys(f.Metadata.Labels, obj.GetLabels())...)
		out.Annotations = append(out.Annotations, ownedKeys(f.Metadata.Annotations, obj.GetAnnotations())...)
	}
	slices.Sort(out.Labels)
	slices.Sort(out.Annotations)
	out.Labels, out.Annotations = slices.Compact(out.Labels), slices.Compact(out.Annotations)
	return out
}

// ownedKeys lists the keys of have that fields, the members of a map in a
// FieldsV1 record ("f:<key>"), hold.
func ownedKeys(fields map[string]struct{}, have map[string]string) []string {
	var out []string
	for k := range have {
		if _, ok := fields["f:"+k]; ok {
			out = append(out, k)
		}
	}
	return out
}

// Stale returns the keys of owned that want does not build: the labels and
// annotations a manager set and no longer sets.
func Stale(owned Keys, want *unstructured.Unstructured) Keys {
	return Keys{Labels: without(owned.Labels, want.GetLabels()), Annotations: without(owned.Annotations, want.GetAnnotations())}
}

// without returns the keys not in m.
func without(keys []string, m map[string]string) []string {
	var out []string
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			out = append(out, k)
		}
	}
	return out
}

// MetadataHolds reports whether observed carries every label and
// annotation of want, with want's values.
func MetadataHolds(observed, want *unstructured.Unstructured) bool {
	holds := func(want, have map[string]string) bool {
		for k, v := range want {
			if hv, ok := have[k]; !ok || hv != v {
				return false
			}
		}
		return true
	}
	return holds(want.GetLabels(), observed.GetLabels()) && holds(want.GetAnnotations(), observed.GetAnnotations())
}

// Merge returns observed with want's content in place of its own, want's
// labels and annotations laid over observed's, and those of drop removed.
// Status, others' metadata and the resourceVersion (an update's
// precondition) stay as observed. managedFields are left out, so that the
// API server keeps its own record. Neither argument is changed.
func Merge(observed, want *unstructured.Unstructured, drop Keys) *unstructured.Unstructured {
	out := &unstructured.Unstructured{Object: make(map[string]any, len(observed.Object))}
	for k, v := range observed.Object {
		if !isContent(k) {
			out.Object[k] = runtime.DeepCopyJSONValue(v)
		}
	}
	for k, v := range want.Object {
		if isContent(k) {
			out.Object[k] = runtime.DeepCopyJSONValue(v)
		}
	}
	out.SetLabels(overlay(observed.GetLabels(), want.GetLabels(), drop.Labels))
	out.SetAnnotations(overlay(observed.GetAnnotations(), want.GetAnnotations(), drop.Annotations))
	out.SetManagedFields(nil)
	return out
}

func overlay(base, top map[string]string, drop []string) map[string]string {
	out := make(map[string]string, len(base)+len(top))
	maps.Copy(out, base)
	for _, k := range drop {
		delete(out, k)
	}
	maps.Copy(out, top)
	if len(out) == 0 {
		return nil
	}
	return out
}
