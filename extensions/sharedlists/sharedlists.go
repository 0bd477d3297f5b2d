package sharedlists

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hcometrics"
)

// Extension keeps the ListMembers' items in their shared lists.
type Extension struct {
	hco.NoExtension
	// targets are the ListMembers' targets the cluster serves, found when
	// the cache is made (Cached), for the process: the one memory of this
	// package; err, why they could not be (Setup returns it).
	targets []hco.ListTarget
	err     error
}

var (
	_ hco.Extension     = (*Extension)(nil)
	_ hco.AfterOperands = (*Extension)(nil)
	_ hco.Uninstaller   = (*Extension)(nil)
	_ hco.ListChanger   = (*Extension)(nil)
)

// New returns the extension.
func New() *Extension { return &Extension{} }

// Cached implements hco.Extension: on OpenShift, the target objects the
// cluster serves, by name. With an invalid target (a distribution's
// operand) it holds none, and Setup fails the manager with the error.
func (e *Extension) Cached(in hco.Install) map[client.Object]cache.ByObject {
	e.targets, e.err = ServedTargets(in)
	if e.err != nil {
		return nil
	}
	out := map[client.Object]cache.ByObject{}
	for _, t := range e.targets {
		out[listObject(in.Scheme, t)] = cache.ByObject{Label: labels.Everything(), Field: fields.OneTermEqualSelector("metadata.name", t.Name),
			Transform: cache.TransformStripManagedFields(), UnsafeDisableDeepCopy: ptr.To(false)}
	}
	return out
}

// Setup implements hco.Extension: a change of a target object reconciles
// the HyperConverged. An invalid target is the error, naming the operand.
func (e *Extension) Setup(_ ctrl.Manager, in hco.Install, _ *hcometrics.Metrics) ([]hco.Watch, error) {
	if e.err != nil {
		return nil, fmt.Errorf("shared lists: %w", e.err)
	}
	var out []hco.Watch
	for _, t := range e.targets {
		out = append(out, hco.Watch{Object: listObject(in.Scheme, t)})
	}
	return out, nil
}

// AfterOperands implements hco.AfterOperands: the items added (or taken
// out, Absent) where the target objects exist; one patch per object that
// changes, none otherwise.
func (e *Extension) AfterOperands(ctx context.Context, s hco.ExtensionState) error {
	return e.sync(ctx, s, false)
}

// Uninstall implements hco.Uninstaller: the items out of the shared lists
// first (the console stops loading the plugin before its server goes).
// Items are found by their keys, which need only the environment and the
// platform, so no other fact can hold the uninstall up; and only a conflict
// (the list changed meanwhile: read it again) does, any other failure is
// reported in an Event and the uninstall goes on.
func (e *Extension) Uninstall(ctx context.Context, s hco.ExtensionState) error {
	err := e.sync(ctx, s, true)
	if err == nil || apierrors.IsConflict(err) {
		return err
	}
	log.FromContext(ctx).Error(err, "the HyperConverged is being deleted; its items stay in the shared lists")
	s.Eventf(corev1.EventTypeWarning, hco.EventSharedListNotUpdated, "Delete", "%s", err.Error())
	return nil
}

// ListChanges implements hco.ListChanger: what AfterOperands would patch
// for hc, read through reader (past any cache), as hco-operator diff shows
// it.
func (e *Extension) ListChanges(ctx context.Context, hc *hcov1.HyperConverged, facts hco.Facts, in hco.Install, reader client.Reader) ([]hco.ListChange, error) {
	targets, err := ServedTargets(in)
	if err != nil || len(targets) == 0 {
		return nil, err
	}
	now := metav1.NewTime(time.Now().UTC().Truncate(time.Second))
	return Changes(ctx, hco.PlatformOperands(in.Registry, facts.Platform), hc, facts, targets, false, now, stored(reader))
}

// sync writes the changes of the lists (remove: the items taken out).
func (e *Extension) sync(ctx context.Context, s hco.ExtensionState, remove bool) error {
	if len(e.targets) == 0 {
		return nil
	}
	hc, facts, scheme := s.HyperConverged, s.Facts, s.Client.Scheme()
	now := metav1.NewTime(s.Now().UTC().Truncate(time.Second))
	changes, err := Changes(ctx, s.Operands(), hc, facts, e.targets, remove, now, cached(s.Reader, scheme))
	errs := []error{err}
	for _, c := range changes {
		t, obj, changed := c.Target, c.Live, c.List
		if _, isUnstructured := listObject(scheme, t).(*unstructured.Unstructured); !isUnstructured {
			// The cache holds the object in its Go form, which may lack
			// fields of others' items: the list is written from the object
			// as stored, read past the cache.
			fresh, err := Changes(ctx, s.Operands(), hc, facts, []hco.ListTarget{t}, remove, now, stored(s.Direct))
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
		if err := patch(ctx, s.Client, t, obj.GetResourceVersion(), changed); err != nil && (remove || !apierrors.IsConflict(err)) {
			errs = append(errs, fmt.Errorf("update %s: %w", t, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("lists of shared objects: %w", err)
	}
	return nil
}

// Targets returns the targets of reg's enabled ListMembers, one per kind
// (the cache holds one object of each, by name); two names of one kind
// are an error.
func Targets(reg *hco.Registry) ([]hco.ListTarget, error) {
	var out []hco.ListTarget
	for _, op := range reg.Operands() {
		m, ok := op.(hco.ListMember)
		if !ok {
			continue
		}
		for _, t := range m.ListTargets() {
			if len(t.Path) < 2 || t.Name == "" || (t.Path[0] != "spec" && t.Path[0] != "status") {
				return nil, fmt.Errorf("operand %s: list target %s needs a name and a path under spec or status", op.Name(), t)
			}
			i := slices.IndexFunc(out, func(o hco.ListTarget) bool { return o.GVK == t.GVK })
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

// ServedTargets are the targets of in.Registry's ListMembers whose kind
// the cluster serves, cluster-scoped, on OpenShift only: nothing is asked
// elsewhere.
func ServedTargets(in hco.Install) ([]hco.ListTarget, error) {
	if !in.OpenShift {
		return nil, nil
	}
	targets, err := Targets(in.Registry)
	if err != nil {
		return nil, err
	}
	for _, op := range in.Registry.Operands() {
		for _, k := range op.Kinds() {
			for _, t := range targets {
				if k.GetObjectKind().GroupVersionKind() == t.GVK {
					return nil, fmt.Errorf("list target %s is of a kind operand %s builds: the cache holds that kind by the operator's labels, not by name", t, op.Name())
				}
			}
		}
	}
	var out []hco.ListTarget
	for _, t := range targets {
		served, namespaced, err := hco.KindServed(in.Mapper, t.GVK)
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
func listObject(s *runtime.Scheme, t hco.ListTarget) client.Object {
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

// Reader reads a list target's object in its JSON form; false when there
// is none.
type Reader func(ctx context.Context, t hco.ListTarget) (*unstructured.Unstructured, bool, error)

// cached reads t's object from the operator's cache (which holds it in its
// Go form where the scheme knows the kind), in its JSON form.
func cached(reader client.Reader, scheme *runtime.Scheme) Reader {
	return func(ctx context.Context, t hco.ListTarget) (*unstructured.Unstructured, bool, error) {
		obj := listObject(scheme, t)
		if err := reader.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
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
}

// stored reads t's object as the API server stores it (reader past any
// cache).
func stored(reader client.Reader) Reader {
	return func(ctx context.Context, t hco.ListTarget) (*unstructured.Unstructured, bool, error) {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(t.GVK)
		if err := reader.Get(ctx, client.ObjectKey{Name: t.Name}, u); err != nil {
			if apierrors.IsNotFound(err) {
				return nil, false, nil
			}
			return nil, false, err
		}
		return u, true, nil
	}
}

// Changes are the lists of targets (the served ones) that ops' items for
// hc change (remove: taking them out), each read with read: what the
// extension patches, and what hco-operator diff shows. A target whose
// object does not exist is not changed; one that cannot be read is an
// error, the others still reported.
func Changes(ctx context.Context, ops []hco.Operand, hc *hcov1.HyperConverged, facts hco.Facts, targets []hco.ListTarget, remove bool, now metav1.Time, read Reader) ([]hco.ListChange, error) {
	var out []hco.ListChange
	var errs []error
	wanted := map[string][]hco.ListItem{}
	var order []string
	for _, op := range ops {
		if m, ok := op.(hco.ListMember); ok {
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
		if !slices.ContainsFunc(targets, func(o hco.ListTarget) bool { return o.GVK == t.GVK && o.Name == t.Name }) {
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
		if changed := merge(t, list, items, remove, now); !equality.Semantic.DeepEqual(changed, list) {
			out = append(out, hco.ListChange{Target: t, Live: obj, Was: list, List: changed})
		}
	}
	return out, errors.Join(errs...)
}

// merge returns list with items added (or, remove or the item Absent,
// taken out): an item is found by its value (a string) or its Key members
// (an object); an object item found but different replaces it in its
// place, the lastTransitionTime of each of its conditions kept from the
// one found when the status is the same, else now.
func merge(t hco.ListTarget, list []any, items []hco.ListItem, remove bool, now metav1.Time) []any {
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

// patch sets t's list to list with a merge patch of that list alone
// (through the status subresource for a list under status), on condition
// that the object is still at resourceVersion.
func patch(ctx context.Context, c client.Client, t hco.ListTarget, resourceVersion string, list []any) error {
	var value any = list
	for i := len(t.Path) - 1; i >= 0; i-- {
		value = map[string]any{t.Path[i]: value}
	}
	body := value.(map[string]any)
	body["metadata"] = map[string]any{"resourceVersion": resourceVersion}
	raw, err := json.Marshal(body)
	if err != nil {
		return err
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(t.GVK)
	u.SetName(t.Name)
	if t.Path[0] == "status" {
		return c.Status().Patch(ctx, u, client.RawPatch(types.MergePatchType, raw))
	}
	return c.Patch(ctx, u, client.RawPatch(types.MergePatchType, raw))
}
