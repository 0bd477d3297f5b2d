package hco

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
)

// A Plan is what the operator does for a HyperConverged, decided without a
// request: every operand's objects built (DesiredObjects), each compared
// with the object the cluster holds, and the objects no longer built. It is
// a pure function of the HyperConverged, the facts and a View of the
// cluster; `hco-operator diff` sends its steps as server-side dry runs, and
// the webhook dry-runs the updates of the components' CRs it holds.

// Verb is what a Step does to its object.
type Verb string

// The verbs of a Step.
const (
	// VerbCreate creates Send, which the cluster does not hold.
	VerbCreate Verb = "create"
	// VerbUpdate sends Send, Live with the desired content, as an update.
	VerbUpdate Verb = "update"
	// VerbKeep leaves Live as it is: it holds what is desired.
	VerbKeep Verb = "keep"
	// VerbDelete deletes Live, which no operand builds any more.
	VerbDelete Verb = "delete"
)

// Step is one object's part of a Plan.
type Step struct {
	// Operand is the operand that builds the object (that built it, for a
	// delete).
	Operand string
	Verb    Verb
	// GVK and Key name the object.
	GVK schema.GroupVersionKind
	Key client.ObjectKey
	// Desired is the object as built (its wire form, shared: read only); nil
	// for a delete.
	Desired *unstructured.Unstructured
	// Live is the object as the cluster holds it; nil for a create.
	Live *unstructured.Unstructured
	// Send is what the operator sends: the object to create, with its owner
	// record, or the update (observed's resourceVersion its precondition);
	// nil for keep and delete.
	Send *unstructured.Unstructured
	// JSONPatch is the operand's jsonpatch annotation when it is in effect
	// on this object (the operand's first), with its number of operations.
	JSONPatch    string
	JSONPatchOps int
}

// View is what a plan reads of the cluster, as the operator sees it.
type View interface {
	// Served reports whether the API server serves the kind.
	Served(gvk schema.GroupVersionKind) bool
	// Live returns the object at key that carries the operator's labels, as
	// observed; nil when there is none.
	Live(gvk schema.GroupVersionKind, key client.ObjectKey) *unstructured.Unstructured
	// Managed returns the objects of a served kind that carry the operator's
	// labels for the HyperConverged (as the reconciler lists them).
	Managed(gvk schema.GroupVersionKind) ([]*unstructured.Unstructured, error)
}

// Plan is the outcome of NewPlan.
type Plan struct {
	// Steps are the objects' steps: each operand's, in registry order, then
	// the deletions.
	Steps []Step
	// Waiting say which operands wait for an API the cluster does not serve:
	// none of their objects is written or deleted.
	Waiting []string
	// Errors are the operands that cannot build their objects (an invalid
	// HyperConverged) or whose object belongs to another install, each naming
	// the operand: none of their objects is written or deleted.
	Errors []error
}

// NewPlan plans the operands of reg for hc: each operand's desired objects
// (DesiredObjects with facts), compared with what view holds (the update
// UpdateFor builds, kept values included), and the managed objects of the
// served kinds no operand builds any more, to delete. An operand that
// cannot build, waits for its API, or finds one of its objects owned by
// another install (owner does not claim it) keeps every object of its kinds
// as it is: none of them is deleted.
func NewPlan(reg *Registry, hc *hcov1.HyperConverged, facts Facts, view View, owner Owner) (Plan, error) {
	var p Plan
	desired := map[objectKey]bool{}
	protected := map[schema.GroupVersionKind]bool{}
	protect := func(op Operand) {
		for _, k := range op.Kinds() {
			protected[k.GetObjectKind().GroupVersionKind()] = true
		}
	}
	var kinds []schema.GroupVersionKind
	seen := map[schema.GroupVersionKind]bool{}
	for _, op := range reg.Operands() {
		for _, k := range op.Kinds() {
			if gvk := k.GetObjectKind().GroupVersionKind(); !seen[gvk] {
				seen[gvk] = true
				kinds = append(kinds, gvk)
			}
		}
		steps, waiting, err := PlanOperand(op, hc, facts, view, owner)
		switch {
		case err != nil:
			p.Errors = append(p.Errors, fmt.Errorf("operand %s: %w", op.Name(), err))
			protect(op)
			continue
		case waiting != "":
			p.Waiting = append(p.Waiting, waiting)
			protect(op)
			continue
		}
		for _, s := range steps {
			desired[objectKey{gvk: s.GVK, key: s.Key}] = true
		}
		p.Steps = append(p.Steps, steps...)
	}
	for _, gvk := range kinds {
		if protected[gvk] || !view.Served(gvk) {
			continue
		}
		managed, err := view.Managed(gvk)
		if err != nil {
			return p, err
		}
		for _, live := range managed {
			key := client.ObjectKeyFromObject(live)
			if desired[objectKey{gvk: gvk, key: key}] || !live.GetDeletionTimestamp().IsZero() {
				continue
			}
			if claimed, _ := owner.Claims(live); !claimed {
				continue
			}
			p.Steps = append(p.Steps, Step{Operand: operandOf(reg, gvk), Verb: VerbDelete, GVK: gvk, Key: key, Live: live})
		}
	}
	return p, nil
}

// PlanOperand plans one operand of NewPlan: the steps of its objects, or
// why it waits for an API, or why it cannot be planned (its objects cannot
// be built, or one is another install's). It asks view for the operand's
// kinds and objects only, never for a list.
func PlanOperand(op Operand, hc *hcov1.HyperConverged, facts Facts, view View, owner Owner) ([]Step, string, error) {
	patch := jsonPatchOf(op, hc)
	want, err := desiredObjects(op, hc, facts, patch, nil)
	if err != nil {
		return nil, "", err
	}
	var missing []string
	for _, w := range want {
		if gvk := w.GroupVersionKind(); !view.Served(gvk) {
			missing = append(missing, gvk.String())
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Sprintf("operand %s waits for its API (%v is not served): the operator writes none of its objects and deletes none until the CRD is installed", op.Name(), missing), nil
	}
	steps := make([]Step, 0, len(want))
	for i, w := range want {
		s := Step{Operand: op.Name(), GVK: w.GroupVersionKind(), Key: client.ObjectKeyFromObject(w), Desired: w}
		if i == 0 && patch.set && patch.err == nil {
			s.JSONPatch, s.JSONPatchOps = patch.annotation, len(patch.ops)
		}
		s.Live = view.Live(s.GVK, s.Key)
		switch {
		case s.Live == nil:
			s.Verb, s.Send = VerbCreate, w.DeepCopy()
			owner.record(s.Send)
		default:
			if claimed, by := owner.Claims(s.Live); !claimed {
				return nil, "", &ownedElsewhere{kind: s.GVK.Kind, name: displayName(s.Key), by: by}
			}
			if update, write := UpdateFor(op, s.Live, w); write {
				owner.record(update)
				s.Verb, s.Send = VerbUpdate, update
			} else {
				s.Verb = VerbKeep
			}
		}
		steps = append(steps, s)
	}
	return steps, "", nil
}

// operandOf names the first operand of reg that builds objects of gvk.
func operandOf(reg *Registry, gvk schema.GroupVersionKind) string {
	for _, op := range reg.Operands() {
		for _, k := range op.Kinds() {
			if k.GetObjectKind().GroupVersionKind() == gvk {
				return op.Name()
			}
		}
	}
	return ""
}
