package hco

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	hcov1 "github.com/hcokit/hcokit/api/v1"
)

// ListMember is an optional capability: an operand that adds items of its
// own to a list in a cluster-scoped object it does not own, which others
// edit too (the console plugin's name in OpenShift's Console operator
// configuration, spec.plugins; the virtctl download's component route in
// the Ingress configuration's status.componentRoutes). The extension that
// keeps them (extensions/sharedlists; none: the lists are left alone) adds
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

// ListChange is a shared list the operator changes: the object holding it
// as read (Live), the list there now (Was) and as the operator leaves it
// (List), which it writes as one merge patch of that list.
type ListChange struct {
	Target    ListTarget
	Live      *unstructured.Unstructured
	Was, List []any
}
