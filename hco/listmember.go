package hco

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	hcov1 "github.com/hcokit/hcokit/api/v1"
)

// ListMember is an optional capability: an operand that adds items of its
// own to a list in a cluster-scoped object others own and edit (the console
// plugin in OpenShift's Console operator configuration's spec.plugins; the
// virtctl download's component route in the Ingress configuration's
// status.componentRoutes). extensions/sharedlists (none: lists left alone)
// adds each missing item, puts back one that differs, keeps others as and
// where they are, and on the HyperConverged's deletion takes out only the
// items the operand still lists, each write a merge patch of that list
// (under status: the status subresource) with the object's resourceVersion
// as precondition. The objects are OpenShift's, watched (by name) and
// written there only; elsewhere items are dropped, nothing requested.
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

// ListItem is an item an operand wants in a ListTarget's list: a string or,
// for a list of objects (ListTarget.Key), the object's JSON form
// (map[string]any). Its "conditions" (metav1.Condition JSON) need no
// lastTransitionTime: kept as found for an unchanged status, else stamped.
type ListItem struct {
	Target ListTarget
	Value  any
	// Absent: the operand's item is unwanted (workload not deployed, an image
	// unset, say): taken out, found by value or key (all Value needs).
	Absent bool
}

// ListChange is a shared list the operator changes: its object as read
// (Live), the list now (Was) and as left (List), written as one merge patch.
type ListChange struct {
	Target    ListTarget
	Live      *unstructured.Unstructured
	Was, List []any
}
