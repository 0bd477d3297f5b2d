package hco

import (
	"context"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco/internal/apply"
	"github.com/hcokit/hcokit/hco/internal/memo"
	"github.com/hcokit/hcokit/wireform"
)

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
	// VerbReplace deletes Live and creates Send: what differs is immutable
	// (a workload's selector, which upstream HCO's labels, version included,
	// change on an upgrade), so an update would be refused.
	VerbReplace Verb = "replace"
	// VerbLeave leaves Live, somebody else's object at the name of one the
	// operand builds (Yielder), as it is: nothing is sent.
	VerbLeave Verb = "leave"
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

	// want is Desired with the values kept as found (Desired itself when
	// nothing is kept); op and owner planned the step (see Over).
	want     *unstructured.Unstructured
	op       Operand
	owner    Owner
	recalled memo.Recalled
}

// View is what a plan reads of the cluster, as the operator sees it.
type View interface {
	// Served reports whether the API server serves the kind.
	Served(gvk schema.GroupVersionKind) bool
	// Live returns the object at key that carries the operator's labels, as
	// observed; nil when there is none.
	Live(ctx context.Context, gvk schema.GroupVersionKind, key client.ObjectKey) *unstructured.Unstructured
	// Managed returns the objects of a served kind that carry the operator's
	// labels for the HyperConverged (as the reconciler lists them).
	Managed(ctx context.Context, gvk schema.GroupVersionKind) ([]*unstructured.Unstructured, error)
}

// Plan is the outcome of NewPlan.
type Plan struct {
	// Steps are the objects' steps: each operand's, in registry order, then
	// the deletions.
	Steps []Step
	// Waiting say which operands wait for an API the cluster does not serve:
	// none of their objects is written or deleted.
	Waiting []string
	// Skipped say which operands on by default only where their API is
	// served (Registry.OnlyWhereServed) are skipped, and why.
	Skipped []string
	// Errors are the operands that cannot build their objects (an invalid
	// HyperConverged) or whose object belongs to another install, each naming
	// the operand: none of their objects is written or deleted.
	Errors []error
}

// NewPlan plans the operands of reg for hc: each operand's desired objects
// (DesiredObjects with facts), compared with what view holds, and the
// managed objects of the served kinds no operand builds any more, to
// delete. An operand that cannot build, waits for its API, or finds one of
// its objects owned by another install (owner does not claim it) keeps
// every object of its kinds as it is: none of them is deleted.
func NewPlan(ctx context.Context, reg *Registry, hc *hcov1.HyperConverged, facts Facts, view View, owner Owner) (Plan, error) {
	var p Plan
	desired := map[objectKey]bool{}
	ops := PlatformOperands(reg, facts.Platform)
	for _, op := range ops {
		steps, missing, err := PlanOperand(ctx, op, hc, facts, view, owner)
		switch {
		case err != nil:
			p.Errors = append(p.Errors, fmt.Errorf("operand %s: %w", op.Name(), err))
		case len(missing) > 0 && reg.WhereServed(op.Name()):
			p.Skipped = append(p.Skipped, skippedMessage(op, missing))
		case len(missing) > 0:
			p.Waiting = append(p.Waiting, waitingMessage(op, missing))
		}
		if err != nil || len(missing) > 0 {
			protect(desired, op)
			continue
		}
		for _, s := range steps {
			desired[objectKey{GVK: s.GVK, Name: s.Key}] = true
		}
		p.Steps = append(p.Steps, steps...)
	}
	deletes, err := deletions(ctx, ops, view, owner, func(k objectKey) bool { return desired[k] })
	p.Steps = append(p.Steps, deletes...)
	return p, err
}

// PlatformOperands are reg's enabled operands for platform p, those that
// are OpenShiftOnly left out off OpenShift (as package manager disables them).
func PlatformOperands(reg *Registry, p Platform) []Operand {
	ops := reg.Operands()
	if p.OpenShift {
		return ops
	}
	return slices.DeleteFunc(ops, func(op Operand) bool {
		o, ok := op.(OpenShiftOnly)
		return ok && o.OpenShiftOnly()
	})
}

// RefusedPatch returns the API server's refusal err of the step's object as
// its jsonpatch annotation's doing, naming the annotation (the admin must
// fix the patch: retrying will not help); nil when the step's object
// carries no annotation in effect or err is not a refusal of the object.
func (s Step) RefusedPatch(err error) error {
	if s.JSONPatch == "" || (!apierrors.IsInvalid(err) && !apierrors.IsBadRequest(err)) {
		return nil
	}
	return fmt.Errorf("annotation %q: the API server refuses the object it patches: %w; fix the patch or remove the annotation", s.JSONPatch, err)
}

// protect keeps every object of op's kinds from deletions (a key with the
// kind only).
func protect(keep map[objectKey]bool, op Operand) {
	for _, k := range op.Kinds() {
		keep[objectKey{GVK: k.GetObjectKind().GroupVersionKind()}] = true
	}
}

// deletions are the steps that delete the objects view manages of the
// served kinds of ops that owner claims and keep does not keep: what the
// operator prunes. keep is asked about each object (its key) and about
// each kind (a key with the kind only, kept whole when true).
func deletions(ctx context.Context, ops []Operand, view View, owner Owner, keep func(objectKey) bool) ([]Step, error) {
	var out []Step
	seen := map[schema.GroupVersionKind]bool{}
	for _, op := range ops {
		for _, k := range op.Kinds() {
			gvk := k.GetObjectKind().GroupVersionKind()
			if seen[gvk] {
				continue
			}
			seen[gvk] = true
			if keep(objectKey{GVK: gvk}) || !view.Served(gvk) {
				continue
			}
			managed, err := view.Managed(ctx, gvk)
			if err != nil {
				return out, err
			}
			for _, live := range managed {
				key := client.ObjectKeyFromObject(live)
				if keep(objectKey{GVK: gvk, Name: key}) || !live.GetDeletionTimestamp().IsZero() {
					continue
				}
				if !owner.deletable(op, live) {
					continue
				}
				out = append(out, Step{Operand: op.Name(), Verb: VerbDelete, GVK: gvk, Key: key, Live: live, owner: owner})
			}
		}
	}
	return out, nil
}

// PlanOperand plans one operand of NewPlan: the steps of its objects; or
// the APIs it waits for (not served: it has no steps); or why it cannot be
// planned (its objects cannot be built, or one is another install's). It
// asks view for the operand's kinds and objects only, never for a list.
func PlanOperand(ctx context.Context, op Operand, hc *hcov1.HyperConverged, facts Facts, view View, owner Owner) ([]Step, []string, error) {
	patch := jsonPatchOf(op, hc)
	var builds *memo.Builds
	var scheme *runtime.Scheme
	if m, ok := view.(buildMemory); ok {
		builds, scheme = m.builds()
	}
	want, err := desiredObjects(op, hc, facts, patch, builds, scheme)
	if err != nil {
		return nil, nil, &invalidConfig{err: err}
	}
	if missing := notServed(want, view.Served); len(missing) > 0 {
		return nil, missing, nil
	}
	// One step per object, in order; the first object another install
	// owns is the error, and then there are no steps.
	steps := make([]Step, 0, len(want))
	for i, w := range want {
		s, err := planObject(op, w, view.Live(ctx, w.GroupVersionKind(), client.ObjectKeyFromObject(w)), view, owner)
		if err != nil {
			return nil, nil, err
		}
		if i == 0 && patch.set && patch.err == nil {
			s.JSONPatch, s.JSONPatchOps = patch.annotation, len(patch.ops)
		}
		steps = append(steps, s)
	}
	return steps, nil, nil
}

// notServed names the kinds of objs that served says are not served
// ("group/version Kind"), each once.
func notServed(objs []*unstructured.Unstructured, served func(schema.GroupVersionKind) bool) []string {
	var out []string
	for _, obj := range objs {
		gvk := obj.GroupVersionKind()
		if served(gvk) {
			continue
		}
		if name := gvk.GroupVersion().String() + " " + gvk.Kind; !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// planObject plans one object: w, built by op, over live (nil: the cluster
// does not hold it). What others fill in at op's kept paths is kept as
// found (into a copy: w is shared between reconciles). A View that
// remembers (the reconciler's, see memory) may say live holds w without a
// comparison, or that its content is what the API server stored from w.
func planObject(op Operand, w, live *unstructured.Unstructured, view View, owner Owner) (Step, error) {
	s := Step{Operand: op.Name(), GVK: w.GroupVersionKind(), Key: client.ObjectKeyFromObject(w), Desired: w, Live: live, want: w, op: op, owner: owner}
	if live == nil {
		if m, ok := view.(leaveMemory); ok {
			if left := m.LeftAlone(objectKey{GVK: s.GVK, Name: s.Key}, w); left != nil {
				s.Verb, s.Live = VerbLeave, left
				return s, nil
			}
		}
		s.Verb, s.Send = VerbCreate, w.DeepCopy()
		owner.record(s.Send)
		return s, nil
	}
	if yieldsTo(op, live, owner) {
		s.Verb = VerbLeave
		return s, nil
	}
	if claimed, by := owner.Claims(live); !claimed {
		return s, &ownedElsewhere{kind: s.GVK.Kind, name: apply.DisplayName(s.Key), by: by}
	}
	if k, ok := op.(ContentKeeper); ok {
		if kept := w.DeepCopy(); wireform.Keep(kept, live, k.KeptFields(w.GroupVersionKind(), w.GetName())) {
			s.want = kept
		}
	}
	if immutableChanged(s.GVK, s.want, live) {
		s.Verb, s.Send = VerbReplace, s.want.DeepCopy()
		owner.record(s.Send)
		return s, nil
	}
	if m, ok := view.(memory); ok {
		s.recalled = m.Recall(objectKey{GVK: s.GVK, Name: s.Key}, w, s.want, live)
		if s.recalled.Fast {
			s.Verb = VerbKeep
			return s, nil
		}
	}
	// The update: the content laid over live, stale metadata removed; none
	// when live holds the content (or the memory says the API server
	// stored it from want) and the metadata.
	stale := staleMetadata(live, s.want)
	if (s.recalled.InSync || wireform.Equal(wireform.Content(live), wireform.Content(s.want))) && stale.Empty() && wireform.MetadataHolds(live, s.want) {
		s.Verb = VerbKeep
		return s, nil
	}
	s.Verb, s.Send = VerbUpdate, wireform.Merge(live, s.want, stale)
	owner.record(s.Send)
	return s, nil
}

// Over plans s again over live, the object the cluster holds at s's key:
// for a create that found the object there (its labels, which the operator
// lists by, edited away). The error is an *ownedElsewhere when live is
// another install's.
func (s Step) Over(live *unstructured.Unstructured) (Step, error) {
	if s.op == nil || s.Desired == nil {
		return s, fmt.Errorf("%s %s: a step of a plan can be planned again over an object only for an object an operand builds", s.GVK.Kind, apply.DisplayName(s.Key))
	}
	again, err := planObject(s.op, s.Desired, live, nil, s.owner)
	again.JSONPatch, again.JSONPatchOps = s.JSONPatch, s.JSONPatchOps
	return again, err
}

// yieldsTo reports whether op leaves live alone (Yielder): live carries
// neither the operator's managed-by label nor owner's record.
func yieldsTo(op Operand, live *unstructured.Unstructured, owner Owner) bool {
	y, ok := op.(Yielder)
	return ok && y.YieldsToUnlabelled() && live.GetLabels()[LabelManagedBy] != ManagedByValue && !owner.records(live)
}

// leaveMemory is what a View may remember of the objects its operands
// leave alone (Yielder), which the cache does not hold (they lack its
// label): without it every reconcile would try the create.
type leaveMemory interface {
	LeftAlone(key objectKey, built *unstructured.Unstructured) *unstructured.Unstructured
}

// buildMemory is a View that remembers the objects it saw built (the
// reconciler's: an operand is built again only when its input changed).
type buildMemory interface {
	builds() (*memo.Builds, *runtime.Scheme)
}

// memory is what a View may know besides the cluster: the applier's memo.
type memory interface {
	Recall(key objectKey, built, want, live *unstructured.Unstructured) memo.Recalled
}

// immutableChanged reports whether want sets a field of live's that the
// API server refuses to change: the selector of a Deployment or DaemonSet
// (as upstream HCO recreates them; not a StatefulSet's, whose deletion may
// take its volumes' claims with it).
func immutableChanged(gvk schema.GroupVersionKind, want, live *unstructured.Unstructured) bool {
	if gvk.Group != "apps" || (gvk.Kind != "Deployment" && gvk.Kind != "DaemonSet") {
		return false
	}
	w, found, _ := unstructured.NestedFieldNoCopy(want.Object, "spec", "selector")
	if !found {
		return false
	}
	l, _, _ := unstructured.NestedFieldNoCopy(live.Object, "spec", "selector")
	return !wireform.Equal(w, l)
}
