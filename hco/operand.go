package hco

import (
	"fmt"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco/internal/memo"
	"github.com/hcokit/hcokit/hcostatus"
	"github.com/hcokit/hcokit/wireform"
)

// Operand turns a HyperConverged into the desired objects of one component
// and reads that component's status back. Implementations are pure: no API
// calls, no environment reads, no state between calls.
type Operand interface {
	// Name is the stable key of the operand in a Registry, e.g. "kubevirt".
	// It labels metrics and selects the operand on the command line.
	Name() string

	// Kinds returns an empty object (GroupVersionKind set) of each kind
	// Desired may return, which the reconciler watches, caches and prunes.
	Kinds() []client.Object

	// Desired returns the objects the operand wants for hc and facts, fully
	// built (name, namespace unless cluster-scoped, labels, spec; apiVersion
	// and kind may be empty if the Go type is that of exactly one of Kinds);
	// nil, nil: none. An error is a problem with hc for the admin to fix, its
	// message naming the field or annotation (for a condition or a webhook
	// denial). hc comes without status (the cluster's part is in facts), so
	// the operator's own status writes build nothing again.
	Desired(hc *hcov1.HyperConverged, facts Facts) ([]client.Object, error)

	// Status reads the component status from the observed objects (shared:
	// read only): those Desired returned, as found, in order; if Desired
	// fails (an invalid HyperConverged), the managed objects of its Kinds in
	// no order, so the status is still reported: find them by kind and name.
	Status(observed []client.Object) hcostatus.Component
}

// JSONPatcher is an optional capability: an operand whose main object (the
// first Desired returns) an admin may patch by a jsonpatch annotation on the
// HyperConverged (see DesiredObjects), raising TaintedConfiguration.
type JSONPatcher interface {
	// JSONPatchAnnotation is the annotation key, e.g. "kubevirt.kubevirt.io/jsonpatch".
	JSONPatchAnnotation() string
}

// Adopter is an optional capability, called only while upgrading: Adopt
// carries a setting from objects older than this operator version into hc's
// metadata, reporting whether it did (the reconciler then updates hc).
type Adopter interface {
	Adopt(hc *hcov1.HyperConverged, observed []client.Object) bool
}

// StatusContributor is an optional capability: an operand that sets only its
// own status fields (SSP: the golden images it applied) on st, from hc and
// facts as Desired saw them; now stamps new condition transitions. An error
// is logged, the fields unchanged; Desired should refuse the same input.
type StatusContributor interface {
	ContributeStatus(hc *hcov1.HyperConverged, facts Facts, now metav1.Time, st *hcov1.HyperConvergedStatus) error
}

// ContentKeeper is an optional capability: an operand whose objects hold
// content others fill in (a caBundle a certificate rotator injects, pull
// secrets a platform adds to a ServiceAccount, a ConfigMap an admin edits).
// KeptFields names, by desired object kind and name, paths of JSON member
// names kept as found where the build has none (wireform.Keep). A map the
// build has too is kept as found, missing members seeded from the build
// (upstream's editable ConfigMap), but a last element prefixed
// wireform.KeepNot names a member whose built value wins (upstream's managed
// keys, {"data", "!version"}). "*" is every item of a list by position
// ({"webhooks", "*", "clientConfig", "caBundle"}), wireform.ByKey(member)
// every item by that member's value ({"spec", "tags",
// wireform.ByKey("name"), "annotations"}): an element starting with "*"
// never names a member. Nil keeps nothing.
type ContentKeeper interface {
	KeptFields(gvk schema.GroupVersionKind, name string) [][]string
}

// SchemeAdder is an optional capability: an operand adds its objects' types
// (its component's custom resources) to a binary's scheme
// (operands.AddToScheme for the stock ones).
type SchemeAdder interface {
	AddToScheme(s *runtime.Scheme) error
}

// Imager is an optional capability: an operand deploying a workload of its
// own names the images it needs. A binary gives each a flag and environment
// variable (the stock binary: upstream's names) and passes the value as
// Environment.Images[Image.Key]; without it, the operand wants nothing.
type Imager interface {
	Images() []Image
}

// Image is what an Imager needs: the Environment.Images key, and the flag,
// the environment variable and the help text a binary offers for it.
type Image struct {
	Key, Flag, Variable, Usage string
}

// OpenShiftOnly is an optional capability: an operand whose objects exist on
// OpenShift only, as upstream's; package manager disables it elsewhere (kinds
// unwatched); Desired must still want nothing off OpenShift (Facts.Platform).
type OpenShiftOnly interface {
	OpenShiftOnly() bool
}

// OtherNamespacer is an optional capability: an operand putting namespaced
// objects in namespaces besides the HyperConverged's (the console's
// dashboards, read from openshift-config-managed only) names them, per kind:
// only there may Desired put them, and there only does the operator cache,
// list, prune, delete them and need permissions. They record their
// HyperConverged with OwnerAnnotation (an owner reference to another
// namespace would make the garbage collector delete them). Asked once, as
// the cache is made, knowing only OpenShift or not. Nil names none (see
// AnyNamespace).
type OtherNamespacer interface {
	OtherNamespaces(openShift bool) map[schema.GroupVersionKind][]string
}

// AnyNamespace, among an OtherNamespacer's namespaces for a kind, stands for
// all, for objects put where the HyperConverged names at run time (the image
// streams in commonBootImageNamespace): the operator then caches, lists,
// prunes and deletes its objects of the kind cluster-wide, and needs its
// permissions on the kind in every namespace.
const AnyNamespace = "*"

// Yielder is an optional capability: an operand that leaves alone, instead
// of taking over, an object at one of its names that is somebody else's by
// every sign (no LabelManagedBy, no owner record), as upstream HCO leaves an
// admin's image stream. It is never written, pruned or deleted (nor listed);
// an Event (EventLeftAlone) says so, and the operator's own is created once
// the name is free, tried again on a new build (the HyperConverged or facts
// change) or a restart. One recorded as the operator's is taken back
// whatever its labels. The operand's objects are pruned and deleted only if
// recorded: a labelled unrecorded one (upstream's, on an in-place switch)
// gets the record when updated while built, and is left otherwise.
type Yielder interface {
	YieldsToUnlabelled() bool
}

// DeletionOrderer is an optional capability: uninstall deletes operands in
// ascending DeletionOrder (default 0), each group gone before the next.
type DeletionOrderer interface {
	DeletionOrder() int
}

// DesiredObjects returns op.Desired for a copy of hc and facts in wire form
// (wireform.Of), the first object patched by hc's annotation if op is a
// JSONPatcher (jsonpatch.Apply; broken: a *jsonpatch.Error). The reconciler,
// Render and the webhook's validation all build through it, so they agree.
func DesiredObjects(op Operand, hc *hcov1.HyperConverged, facts Facts) ([]*unstructured.Unstructured, error) {
	return desiredObjects(op, hc, facts, jsonPatchOf(op, hc), nil, nil)
}

// desiredObjects is DesiredObjects with op's jsonpatch annotation parsed,
// built once per input with b, the reconciler's build memo (nil: each
// time); s finds the kind of a typed object without TypeMeta.
func desiredObjects(op Operand, hc *hcov1.HyperConverged, facts Facts, p jsonPatch, b *memo.Builds, s *runtime.Scheme) (out []*unstructured.Unstructured, err error) {
	values := facts
	values.Observed = nil
	if prev, ok := b.Last(op.Name(), hc, values, memo.Observe(facts.Observed)); ok {
		return prev.Objects, prev.Err
	}
	next, observe := b.Next(hc, values, memo.Observe(facts.Observed))
	facts.Observed = observe
	defer func() { b.Store(op.Name(), next, out, err) }()
	objs, err := op.Desired(withoutStatus(hc), facts)
	if err != nil || len(objs) == 0 {
		return nil, err
	}
	// The cache, pruning and uninstall find objects by these labels: one
	// without them would be created each reconcile and outlive the HyperConverged.
	for _, obj := range objs {
		if l := obj.GetLabels(); l[LabelManagedBy] != ManagedByValue || l[LabelApp] != hc.Name {
			return nil, fmt.Errorf("operand %s builds %T %q without the labels %s=%s and %s=%s that the operator finds its objects by; build its labels with hco.Labels",
				op.Name(), obj, obj.GetName(), LabelManagedBy, ManagedByValue, LabelApp, hc.Name)
		}
	}
	if p.err != nil {
		return nil, p.err
	}
	kinds := kindsByType(op)
	out = make([]*unstructured.Unstructured, len(objs))
	for i, obj := range objs {
		if obj.GetObjectKind().GroupVersionKind().Empty() {
			if gvk, ok := kinds[reflect.TypeOf(obj)]; ok {
				obj.GetObjectKind().SetGroupVersionKind(gvk)
			}
		}
		if out[i], err = wireform.Of(obj, s, p.annotation, p.ops); err != nil {
			return nil, err
		}
		p = jsonPatch{} // the patch is the first object's
	}
	return out, nil
}

// withoutStatus is a copy of hc's spec and metadata, for an operand's build.
func withoutStatus(hc *hcov1.HyperConverged) *hcov1.HyperConverged {
	return &hcov1.HyperConverged{TypeMeta: hc.TypeMeta, ObjectMeta: *hc.ObjectMeta.DeepCopy(), Spec: *hc.Spec.DeepCopy()}
}

// kindsByType maps the Go type of each of op's Kinds to its kind; a type
// that stands for more than one kind (unstructured, say) is left out.
func kindsByType(op Operand) map[reflect.Type]schema.GroupVersionKind {
	out := map[reflect.Type]schema.GroupVersionKind{}
	twice := map[reflect.Type]bool{}
	for _, k := range op.Kinds() {
		t := reflect.TypeOf(k)
		if _, seen := out[t]; seen {
			twice[t] = true
		}
		out[t] = k.GetObjectKind().GroupVersionKind()
	}
	for t := range twice {
		delete(out, t)
	}
	return out
}

// Render returns every enabled operand's desired objects in registration
// order and wire form (see DesiredObjects); the first operand error, naming
// the operand, stops it. Without a cluster, facts are OfflineFacts.
func Render(reg *Registry, hc *hcov1.HyperConverged, facts Facts) ([]client.Object, error) {
	var out []client.Object
	for _, op := range reg.Operands() {
		objs, err := DesiredObjects(op, hc, facts)
		if err != nil {
			return nil, fmt.Errorf("operand %s: %w", op.Name(), err)
		}
		for _, obj := range objs {
			out = append(out, obj)
		}
	}
	return out, nil
}
