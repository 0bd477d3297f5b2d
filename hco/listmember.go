package hco

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
)

// ListMember is an optional capability: an operand that adds items of its
// own to a list of strings in a cluster-scoped object it does not own,
// which others edit too (the console plugin's name in OpenShift's Console
// operator configuration, spec.plugins). The reconciler adds each item
// missing from its list and keeps every other item as it is, in its place;
// when the HyperConverged is deleted it takes out the items the operand
// still lists, and only those. Each write is a merge patch of that one list
// with the object's resourceVersion as precondition, so an edit made
// meanwhile is never overwritten.
//
// The target objects are OpenShift's: they are watched (by name) and
// written on OpenShift only, where their kind is served; elsewhere an
// item is dropped and nothing is requested.
type ListMember interface {
	// ListTargets are the lists the operand may add to, fixed for the
	// process: the reconciler watches their objects.
	ListTargets() []ListTarget
	// ListItems are the items the operand wants for hc, each in one of
	// ListTargets; nil wants none (and removes none).
	ListItems(hc *hcov1.HyperConverged, facts Facts) []ListItem
}

// ListTarget is a list of strings in a cluster-scoped object: its kind,
// its name and the path of JSON member names to the list.
type ListTarget struct {
	GVK  schema.GroupVersionKind
	Name string
	Path []string
}

func (t ListTarget) String() string {
	return fmt.Sprintf("%s %s %s", t.GVK.Kind, t.Name, strings.Join(t.Path, "."))
}

// ListItem is one string an operand wants in a ListTarget's list.
type ListItem struct {
	Target ListTarget
	Value  string
}

// listTargets returns the targets of reg's enabled ListMembers, one per
// kind (the cache holds one object of each, by name); two names of one
// kind are an error.
func listTargets(reg *Registry) ([]ListTarget, error) {
	var out []ListTarget
	for _, op := range reg.Operands() {
		m, ok := op.(ListMember)
		if !ok {
			continue
		}
		for _, t := range m.ListTargets() {
			if len(t.Path) == 0 || t.Name == "" {
				return nil, fmt.Errorf("operand %s: list target %s needs a name and a path", op.Name(), t)
			}
			i := slices.IndexFunc(out, func(o ListTarget) bool { return o.GVK == t.GVK })
			switch {
			case i < 0:
				out = append(out, t)
			case out[i].Name != t.Name:
				return nil, fmt.Errorf("operand %s adds to %s %q, another operand to %q: list targets of one kind must be one object", op.Name(), t.GVK.Kind, t.Name, out[i].Name)
			}
		}
	}
	return out, nil
}

// listObject is an empty object of t's kind and name, for the cache and
// for reads.
func listObject(t ListTarget) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(t.GVK)
	u.SetName(t.Name)
	return u
}

// wantedListItems are the items the enabled ListMembers want for hc, by
// target (its String), in registry order.
func (r *Reconciler) wantedListItems(hc *hcov1.HyperConverged, facts Facts) map[string][]ListItem {
	out := map[string][]ListItem{}
	for _, op := range r.registry.Operands() {
		if m, ok := op.(ListMember); ok {
			for _, item := range m.ListItems(hc, facts) {
				out[item.Target.String()] = append(out[item.Target.String()], item)
			}
		}
	}
	return out
}

// syncLists adds the items the ListMembers want to their lists (remove:
// takes them out), where the target objects are watched (r.lists) and
// exist; one patch per object that changes, none otherwise.
func (r *Reconciler) syncLists(ctx context.Context, hc *hcov1.HyperConverged, facts Facts, remove bool) error {
	if len(r.lists) == 0 {
		return nil
	}
	var errs []error
	for key, items := range r.wantedListItems(hc, facts) {
		t := items[0].Target
		if !slices.ContainsFunc(r.lists, func(o ListTarget) bool { return o.GVK == t.GVK && o.Name == t.Name }) {
			continue
		}
		obj := listObject(t)
		if err := r.cache.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
			if apierrors.IsNotFound(err) {
				continue
			}
			errs = append(errs, fmt.Errorf("read %s: %w", key, err))
			continue
		}
		list, _, err := unstructured.NestedStringSlice(obj.Object, t.Path...)
		if err != nil {
			errs = append(errs, fmt.Errorf("read %s: %w", key, err))
			continue
		}
		changed := slices.Clone(list)
		for _, item := range items {
			has := slices.Contains(changed, item.Value)
			switch {
			case remove && has:
				changed = slices.DeleteFunc(changed, func(v string) bool { return v == item.Value })
			case !remove && !has:
				changed = append(changed, item.Value)
			}
		}
		if slices.Equal(changed, list) {
			continue
		}
		// A conflict: the object changed since the cache read it (or the
		// cache is behind this operator's own patch); its watch event
		// brings the next reconcile, which reads it again. Not so on
		// uninstall, which must not go on without the removal.
		if err := r.patchList(ctx, t, obj.GetResourceVersion(), changed); err != nil && (remove || !apierrors.IsConflict(err)) {
			errs = append(errs, fmt.Errorf("update %s: %w", key, err))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("lists of shared objects: %v", errs)
	}
	return nil
}

// patchList sets t's list to list with a merge patch of that list alone,
// on condition that the object is still at resourceVersion.
func (r *Reconciler) patchList(ctx context.Context, t ListTarget, resourceVersion string, list []string) error {
	var value any = list
	if list == nil {
		value = []string{}
	}
	for i := len(t.Path) - 1; i >= 0; i-- {
		value = map[string]any{t.Path[i]: value}
	}
	patch := value.(map[string]any)
	patch["metadata"] = map[string]any{"resourceVersion": resourceVersion}
	body, err := json.Marshal(patch)
	if err != nil {
		return err
	}
	return r.client.Patch(ctx, listObject(t), client.RawPatch(types.MergePatchType, body))
}

// servedListTargets are the targets of reg's ListMembers whose kind the
// cluster serves, on OpenShift only (see ListMember): nothing is asked
// elsewhere.
func servedListTargets(reg *Registry, mapper meta.RESTMapper, openShift bool) ([]ListTarget, error) {
	if !openShift {
		return nil, nil
	}
	targets, err := listTargets(reg)
	if err != nil {
		return nil, err
	}
	var out []ListTarget
	for _, t := range targets {
		served, namespaced, err := kindServed(mapper, t.GVK)
		if err != nil {
			return nil, err
		}
		if served && !namespaced {
			out = append(out, t)
		}
	}
	return out, nil
}
