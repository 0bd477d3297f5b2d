package hco

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
)

// ListMember is an optional capability: an operand that adds items of its
// own to a list in a cluster-scoped object it does not own, which others
// edit too (the console plugin's name in OpenShift's Console operator
// configuration, spec.plugins; the virtctl download's component route in
// the Ingress configuration's status.componentRoutes). The reconciler adds
// each item missing from its list, puts back one of its items that differs,
// and keeps every other item as it is, in its place; when the HyperConverged
// is deleted it takes out the items the operand still lists, and only those.
// Each write is a merge patch of that one list (through the status
// subresource for a list under status) with the object's resourceVersion as
// precondition, so an edit made meanwhile is never overwritten.
//
// The target objects are OpenShift's: they are watched (by name) and
// written on OpenShift only, where their kind is served; elsewhere an
// item is dropped and nothing is requested.
type ListMember interface {
	// ListTargets are the lists the operand may add to, fixed for the
	// process: the reconciler watches their objects.
	ListTargets() []ListTarget
	// ListItems are the operand's items for hc, each in one of
	// ListTargets: wanted, or Absent to be taken out; nil touches none.
	ListItems(hc *hcov1.HyperConverged, facts Facts) []ListItem
}

// ListTarget is a list in a cluster-scoped object: its kind, its name and
// the path of JSON member names to the list.
type ListTarget struct {
	GVK  schema.GroupVersionKind
	Name string
	Path []string
	// Key names the members that tell one item of a list of objects from
	// another (e.g. {"name", "namespace"}); nil for a list of strings.
	Key []string
}

// String names the target: its kind, object and path.
func (t ListTarget) String() string {
	return fmt.Sprintf("%s %s %s", t.GVK.Kind, t.Name, strings.Join(t.Path, "."))
}

// status reports whether the list is under the object's status, written
// through the status subresource.
func (t ListTarget) status() bool { return t.Path[0] == "status" }

// ListItem is one item an operand wants in a ListTarget's list: a string,
// or, for a list of objects (ListTarget.Key), the object in its JSON form
// (map[string]any). An item's "conditions" (metav1.Condition in JSON) need
// no lastTransitionTime: the reconciler keeps the one found for a
// condition whose status is unchanged, and stamps the others.
type ListItem struct {
	Target ListTarget
	Value  any
	// Absent: the item is the operand's but not wanted now (its workload
	// is not deployed: an image unset, say): the reconciler takes it out
	// of the list, found by its value or key (Value needs only those).
	Absent bool
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
			if len(t.Path) < 2 || t.Name == "" || (t.Path[0] != "spec" && t.Path[0] != "status") {
				return nil, fmt.Errorf("operand %s: list target %s needs a name and a path under spec or status", op.Name(), t)
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

// ServedListTargets are the targets of reg's ListMembers whose kind the
// cluster serves, on OpenShift only (see ListMember): nothing is asked
// elsewhere.
func ServedListTargets(reg *Registry, mapper meta.RESTMapper, openShift bool) ([]ListTarget, error) {
	if !openShift {
		return nil, nil
	}
	targets, err := listTargets(reg)
	if err != nil {
		return nil, err
	}
	for _, op := range reg.Operands() {
		for _, k := range op.Kinds() {
			for _, t := range targets {
				if k.GetObjectKind().GroupVersionKind() == t.GVK {
					return nil, fmt.Errorf("list target %s is of a kind operand %s builds: the cache holds that kind by the operator's labels, not by name", t, op.Name())
				}
			}
		}
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

// listObject is an empty object of t's kind and name: of its Go type when
// s knows the kind (the cache then holds one informer for it, the one the
// platform facts may read too), else unstructured.
func listObject(s *runtime.Scheme, t ListTarget) client.Object {
	if s != nil {
		if o, err := s.New(t.GVK); err == nil {
			if obj, ok := o.(client.Object); ok {
				obj.GetObjectKind().SetGroupVersionKind(t.GVK)
				obj.SetName(t.Name)
				return obj
			}
		}
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(t.GVK)
	u.SetName(t.Name)
	return u
}

// listCacheEntries adds the cache's entries for the targets to byObject:
// by name, where no entry of the kind is there already.
func listCacheEntries(s *runtime.Scheme, targets []ListTarget, byObject map[client.Object]cache.ByObject, entry func(name string) cache.ByObject) {
	for _, t := range targets {
		obj := listObject(s, t)
		held := false
		for o := range byObject {
			if gvk, err := gvkOf(s, o); err == nil && gvk == t.GVK {
				held = true
			}
		}
		if !held {
			byObject[obj] = entry(t.Name)
		}
	}
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

// ListChange is a shared list the operator changes: the object holding it
// as read (Live), the list there now (Was) and as the operator leaves it
// (List), which it writes as one merge patch of that list.
type ListChange struct {
	Target    ListTarget
	Live      *unstructured.Unstructured
	Was, List []any
}

// ListReader reads a list target's object in its JSON form; false when
// there is none.
type ListReader func(ctx context.Context, t ListTarget) (*unstructured.Unstructured, bool, error)

// ListChanges are the lists of targets (the served ones) that ops' items
// for hc change (remove: taking them out), each read with read: what the
// reconciler patches, and what hco-operator diff shows. A target whose
// object does not exist is not changed; one that cannot be read is an
// error, the others still reported.
func ListChanges(ctx context.Context, ops []Operand, hc *hcov1.HyperConverged, facts Facts, targets []ListTarget, remove bool, now metav1.Time, read ListReader) ([]ListChange, error) {
	var out []ListChange
	var errs []error
	wanted := map[string][]ListItem{}
	var order []string
	for _, op := range ops {
		if m, ok := op.(ListMember); ok {
			for _, item := range m.ListItems(hc, facts) {
				key := item.Target.String()
				if _, seen := wanted[key]; !seen {
					order = append(order, key)
				}
				wanted[key] = append(wanted[key], item)
			}
		}
	}
	for _, key := range order {
		items := wanted[key]
		t := items[0].Target
		if !slices.ContainsFunc(targets, func(o ListTarget) bool { return o.GVK == t.GVK && o.Name == t.Name }) {
			continue
		}
		obj, found, err := read(ctx, t)
		if err != nil {
			errs = append(errs, fmt.Errorf("read %s: %w", key, err))
			continue
		}
		if !found {
			continue
		}
		list, _, err := unstructured.NestedSlice(obj.Object, t.Path...)
		if err != nil {
			errs = append(errs, fmt.Errorf("read %s: %w", key, err))
			continue
		}
		if changed := mergeListItems(t, list, items, remove, now); !equality.Semantic.DeepEqual(changed, list) {
			out = append(out, ListChange{Target: t, Live: obj, Was: list, List: changed})
		}
	}
	return out, errors.Join(errs...)
}

// readList reads t's object from the cache, in its JSON form; false when
// there is none.
func (r *Reconciler) readList(ctx context.Context, t ListTarget) (*unstructured.Unstructured, bool, error) {
	obj := listObject(r.scheme, t)
	if err := r.cache.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, false, nil
		}
		return nil, false, err
	}
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return u, true, nil
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, false, err
	}
	return &unstructured.Unstructured{Object: m}, true, nil
}

// syncLists adds the items the ListMembers want to their lists (remove:
// takes them out), where the target objects are watched (r.lists) and
// exist; one patch per object that changes, none otherwise.
func (r *Reconciler) syncLists(ctx context.Context, hc *hcov1.HyperConverged, facts Facts, remove bool) error {
	if len(r.lists) == 0 {
		return nil
	}
	now := metav1.NewTime(r.now().UTC().Truncate(time.Second))
	changes, err := ListChanges(ctx, r.registry.Operands(), hc, facts, r.lists, remove, now, r.readList)
	errs := []error{err}
	for _, c := range changes {
		t, obj, changed := c.Target, c.Live, c.List
		if _, isUnstructured := listObject(r.scheme, t).(*unstructured.Unstructured); !isUnstructured {
			// The cache holds the object in its Go form, which may lack
			// fields of others' items: the list is written from the object
			// as stored, read past the cache.
			fresh, err := ListChanges(ctx, r.registry.Operands(), hc, facts, []ListTarget{t}, remove, now, r.readStored)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if len(fresh) == 0 {
				continue
			}
			obj, changed = fresh[0].Live, fresh[0].List
		}
		// A conflict: the object changed since the cache read it (or the
		// cache is behind this operator's own patch); its watch event
		// brings the next reconcile, which reads it again. Not so on
		// uninstall, which must not go on without the removal.
		if err := r.patchList(ctx, t, obj.GetResourceVersion(), changed); err != nil && (remove || !apierrors.IsConflict(err)) {
			errs = append(errs, fmt.Errorf("update %s: %w", t, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("lists of shared objects: %w", err)
	}
	return nil
}

// readStored is a ListReader past the cache.
func (r *Reconciler) readStored(ctx context.Context, t ListTarget) (*unstructured.Unstructured, bool, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(t.GVK)
	if err := r.reader.Get(ctx, client.ObjectKey{Name: t.Name}, u); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, false, nil
		}
		return nil, false, err
	}
	return u, true, nil
}

// mergeListItems returns list with items added (or, remove or the item
// Absent, taken out):
// an item is found by its value (a string) or its Key members (an object);
// an object item found but different replaces it in its place, the
// lastTransitionTime of each of its conditions kept from the one found
// when the status is the same, else now.
func mergeListItems(t ListTarget, list []any, items []ListItem, remove bool, now metav1.Time) []any {
	out := runtime.DeepCopyJSONValue(list).([]any)
	if out == nil {
		out = []any{}
	}
	for _, item := range items {
		want := runtime.DeepCopyJSONValue(jsonValue(item.Value))
		i := slices.IndexFunc(out, func(v any) bool { return sameItem(t.Key, v, want) })
		remove := remove || item.Absent
		switch {
		case remove && i >= 0:
			out = slices.Delete(out, i, i+1)
		case remove:
		case i < 0:
			stampConditions(want, nil, now)
			out = append(out, want)
		default:
			stampConditions(want, out[i], now)
			if !equality.Semantic.DeepEqual(out[i], want) {
				out[i] = want
			}
		}
	}
	return out
}

// jsonValue is v in its JSON form as the cache's objects hold it (strings
// stay strings; whole numbers are int64), so that it compares equal to
// what is stored.
func jsonValue(v any) any {
	if s, ok := v.(string); ok {
		return s
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if utiljson.Unmarshal(raw, &out) != nil {
		return v
	}
	return out
}

// sameItem reports whether a and b are the same item of a list: equal
// strings, or objects equal in every key member.
func sameItem(key []string, a, b any) bool {
	if len(key) == 0 {
		return equality.Semantic.DeepEqual(a, b)
	}
	am, ok := a.(map[string]any)
	bm, ok2 := b.(map[string]any)
	if !ok || !ok2 {
		return false
	}
	for _, k := range key {
		if !equality.Semantic.DeepEqual(am[k], bm[k]) {
			return false
		}
	}
	return true
}

// stampConditions sets the lastTransitionTime of want's conditions: the
// found item's for a condition of the same type and status, else now.
func stampConditions(want, found any, now metav1.Time) {
	wm, ok := want.(map[string]any)
	if !ok {
		return
	}
	conds, ok := wm["conditions"].([]any)
	if !ok {
		return
	}
	var old []any
	if fm, ok := found.(map[string]any); ok {
		old, _ = fm["conditions"].([]any)
	}
	stamp, _ := now.MarshalQueryParameter()
	for _, c := range conds {
		cm, ok := c.(map[string]any)
		if !ok {
			continue
		}
		cm["lastTransitionTime"] = stamp
		for _, o := range old {
			if om, ok := o.(map[string]any); ok && om["type"] == cm["type"] && om["status"] == cm["status"] && om["lastTransitionTime"] != nil {
				cm["lastTransitionTime"] = om["lastTransitionTime"]
			}
		}
	}
}

// patchList sets t's list to list with a merge patch of that list alone
// (through the status subresource for a list under status), on condition
// that the object is still at resourceVersion.
func (r *Reconciler) patchList(ctx context.Context, t ListTarget, resourceVersion string, list []any) error {
	var value any = list
	for i := len(t.Path) - 1; i >= 0; i-- {
		value = map[string]any{t.Path[i]: value}
	}
	patch := value.(map[string]any)
	patch["metadata"] = map[string]any{"resourceVersion": resourceVersion}
	body, err := json.Marshal(patch)
	if err != nil {
		return err
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(t.GVK)
	u.SetName(t.Name)
	if t.status() {
		return r.client.Status().Patch(ctx, u, client.RawPatch(types.MergePatchType, body))
	}
	return r.client.Patch(ctx, u, client.RawPatch(types.MergePatchType, body))
}
