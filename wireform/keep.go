package wireform

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// KeepNot prefixes the last element of a Keep path that names a member of
// a kept map the operator sets all the same: its built value wins (e.g.
// {"data", "!version"} in an editable ConfigMap).
const KeepNot = "!"

// WorkloadKeptFields are the paths others fill in on the objects of a
// workload an operand deploys, for hco.ContentKeeper implementations: the
// caBundles a certificate rotator injects into a webhook configuration, the
// secrets a platform adds to a ServiceAccount. Nil for other kinds.
func WorkloadKeptFields(gvk schema.GroupVersionKind) [][]string {
	switch gvk.GroupKind() {
	case schema.GroupKind{Group: "admissionregistration.k8s.io", Kind: "MutatingWebhookConfiguration"},
		schema.GroupKind{Group: "admissionregistration.k8s.io", Kind: "ValidatingWebhookConfiguration"}:
		return [][]string{{"webhooks", "*", "clientConfig", "caBundle"}}
	case schema.GroupKind{Kind: "ServiceAccount"}:
		return [][]string{{"secrets"}, {"imagePullSecrets"}}
	}
	return nil
}

// Keep copies into want, at each path, the value observed holds
// where want holds none (a missing member, not a null or empty one it sets),
// creating the objects on the way; where both hold a map there, observed's
// members replace want's, and want keeps only the members observed lacks;
// "*" walks every item of a list present in both, matched by position, and
// "*" followed by a member name (ByKey) the items matched by that member's
// value; a path whose last element starts with KeepNot names a member of a
// kept map that stays as want holds it. It reports whether it copied
// anything. observed is not changed.
func Keep(want, observed *unstructured.Unstructured, paths [][]string) bool {
	copied := false
	for _, p := range paths {
		if len(p) == 0 || strings.HasPrefix(p[len(p)-1], KeepNot) {
			continue
		}
		if keepAt(want.Object, observed.Object, p, notKept(paths, p)) {
			copied = true
		}
	}
	return copied
}

// notKept returns the members of the map at path that paths name with
// KeepNot: the operator's even in a kept map.
func notKept(paths [][]string, path []string) map[string]bool {
	var out map[string]bool
	for _, p := range paths {
		if len(p) == len(path)+1 && slices.Equal(p[:len(path)], path) && strings.HasPrefix(p[len(path)], KeepNot) {
			if out == nil {
				out = map[string]bool{}
			}
			out[strings.TrimPrefix(p[len(path)], KeepNot)] = true
		}
	}
	return out
}

func keepAt(want, observed any, path []string, not map[string]bool) bool {
	if key, isList := strings.CutPrefix(path[0], "*"); isList {
		wl, ok := want.([]any)
		ol, ok2 := observed.([]any)
		if !ok || !ok2 || len(path) == 1 {
			return false
		}
		copied := false
		for i := range wl {
			var oi any
			switch {
			case key == "" && i < len(ol):
				oi = ol[i]
			case key != "":
				oi = itemOf(ol, key, wl[i])
			}
			if oi != nil && keepAt(wl[i], oi, path[1:], not) {
				copied = true
			}
		}
		return copied
	}
	wm, ok := want.(map[string]any)
	om, ok2 := observed.(map[string]any)
	if !ok || !ok2 {
		return false
	}
	ov, found := om[path[0]]
	if !found {
		return false
	}
	wv, has := wm[path[0]]
	if len(path) == 1 {
		if !has {
			wm[path[0]] = runtime.DeepCopyJSONValue(ov)
			return true
		}
		wmap, ok := wv.(map[string]any)
		omap, ok2 := ov.(map[string]any)
		if !ok || !ok2 {
			return false
		}
		copied := false
		for k, v := range omap {
			if not[k] {
				continue
			}
			if w, had := wmap[k]; !had || !equality.Semantic.DeepEqual(w, v) {
				wmap[k] = runtime.DeepCopyJSONValue(v)
				copied = true
			}
		}
		return copied
	}
	if !has {
		if _, isMap := ov.(map[string]any); !isMap || strings.HasPrefix(path[1], "*") {
			return false
		}
		wv = map[string]any{}
		if !keepAt(wv, ov, path[1:], not) {
			return false
		}
		wm[path[0]] = wv
		return true
	}
	return keepAt(wv, ov, path[1:], not)
}

// itemOf returns the item of list whose member key equals item's, or nil
// (item has no such member, or list no such item).
func itemOf(list []any, key string, item any) any {
	im, ok := item.(map[string]any)
	if !ok {
		return nil
	}
	v, ok := im[key]
	if !ok {
		return nil
	}
	for _, o := range list {
		if om, ok := o.(map[string]any); ok {
			if ov, ok := om[key]; ok && equality.Semantic.DeepEqual(ov, v) {
				return o
			}
		}
	}
	return nil
}

// ByKey is the element of a ContentKeeper path that walks the items of a
// list matched by the value of their member key, not by position: e.g.
// {"spec", "tags", ByKey("name"), "annotations"}. An item without the
// member, or without a match, keeps nothing; of items with one value, the
// first found matches. ByKey("") is "*": by position.
func ByKey(key string) string { return "*" + key }
