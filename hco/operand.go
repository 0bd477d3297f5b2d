package hco

import (
	"fmt"
	"reflect"
	"sync"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
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

	// Kinds returns one empty object of every kind Desired may return, with
	// its GroupVersionKind set. The reconciler watches and caches these kinds
	// and lists them to delete what is no longer desired.
	Kinds() []client.Object

	// Desired returns the objects this operand wants for hc, given the
	// facts (the environment and what is known of the cluster), fully built:
	// name, namespace (empty for cluster-scoped kinds), labels and spec. An
	// object may leave its apiVersion and kind empty when its Go type is
	// that of exactly one of Kinds: the library sets them from it. A nil
	// slice with a nil error means the operand wants nothing for this hc. An
	// error is a problem with hc that the admin must fix; its message names
	// the field or annotation and ends up in a condition or a webhook denial.
	// hc comes without its status: a build follows the spec and metadata,
	// and what it needs of the cluster comes in facts, so that the
	// operator's own status writes build nothing again.
	Desired(hc *hcov1.HyperConverged, facts Facts) ([]client.Object, error)

	// Status reads the component status from the observed objects: the
	// objects Desired returned, as found in the cluster, in the same order.
	// When Desired fails (an invalid HyperConverged), it gets instead the
	// managed objects of its Kinds as they are, in no particular order, so
	// that the component's status is still reported: find objects by kind
	// and name, not by position. The objects are shared between
	// reconciles: read them, never change them.
	Status(observed []client.Object) hcostatus.Component
}

// JSONPatcher is an optional capability: an operand whose main object (the
// first one Desired returns) an admin may patch through a jsonpatch
// annotation on the HyperConverged. The library applies the patch (see
// DesiredObjects); the operand only names the annotation. The reconciler
// raises TaintedConfiguration while such a patch is in effect.
type JSONPatcher interface {
	// JSONPatchAnnotation is the annotation key, e.g. "kubevirt.kubevirt.io/jsonpatch".
	JSONPatchAnnotation() string
}

// Adopter is an optional capability: an operand that carries a setting
// forward from objects that existed before this operator version managed
// them. It is called only while the operator upgrades (status.versions
// differs from the Environment's version). Adopt may change hc's metadata
// and reports whether it did; the reconciler then updates the HyperConverged.
type Adopter interface {
	Adopt(hc *hcov1.HyperConverged, observed []client.Object) bool
}

// StatusContributor is an optional capability: an operand that reports
// status fields of its own on the HyperConverged (the SSP operand: the
// golden images it applied). ContributeStatus sets only the fields it owns
// on st, from hc and facts (as the operand's Desired saw them); now stamps new
// condition transitions. An error is logged and the fields are left as
// they were; the operand's Desired is expected to refuse the same input and
// so be reported as a failed operand.
type StatusContributor interface {
	ContributeStatus(hc *hcov1.HyperConverged, facts Facts, now metav1.Time, st *hcov1.HyperConvergedStatus) error
}

// ContentKeeper is an optional capability: an operand whose objects hold
// content that others fill in (a caBundle a certificate rotator injects, the
// pull secrets a platform adds to a ServiceAccount, a ConfigMap an admin
// edits). KeptFields names, for the desired object of a kind and name, the
// paths of JSON member names whose values the operator keeps as found where
// the object it built has none, instead of reverting them (wireform.Keep
// reads them): a map the object built has too is kept as found, with the
// members it lacks seeded from what was built (upstream's editable
// ConfigMap); a path whose last element is a member name prefixed with
// wireform.KeepNot names a member of such a kept map that is the operator's
// all the same: its built value wins (upstream's managed keys of an
// editable ConfigMap, e.g. {"data", "!version"}); "*" in a path stands for
// every item of a list, matched by position (e.g. {"webhooks", "*",
// "clientConfig", "caBundle"}), and wireform.ByKey(member) for every item
// matched by that member's value (e.g. {"spec", "tags",
// wireform.ByKey("name"), "annotations"}): so an element starting with "*"
// always walks a list, never names a member. Nil keeps nothing.
type ContentKeeper interface {
	KeptFields(gvk schema.GroupVersionKind, name string) [][]string
}

// SchemeAdder is an optional capability: an operand whose objects are of
// types a scheme must register (its component's custom resources) adds
// them. A binary builds its scheme from its operands' (operands.AddToScheme
// for the stock ones).
type SchemeAdder interface {
	AddToScheme(s *runtime.Scheme) error
}

// Imager is an optional capability: an operand that deploys a workload of
// its own names the images it needs. A binary gives every image of every
// Imager of its registry a flag and an environment variable (the stock
// binary: upstream's variable names), and passes the value as
// Environment.Images[Image.Key]; without them, the operand wants nothing.
type Imager interface {
	Images() []Image
}

// Image is what an Imager needs: the Environment.Images key, and the flag,
// the environment variable and the help text a binary offers for it.
type Image struct {
	Key, Flag, Variable, Usage string
}

// OpenShiftOnly is an optional capability: an operand whose objects exist
// on OpenShift only (upstream HCO deploys them there only). NewManager
// disables it in the registry on a cluster that is not OpenShift, so that
// its kinds are not even watched; Desired must still want nothing off
// OpenShift (Facts.Platform), for a render or a reconciler built otherwise.
type OpenShiftOnly interface {
	OpenShiftOnly() bool
}

// OtherNamespacer is an optional capability: an operand that puts namespaced
// objects in namespaces besides the HyperConverged's (the console's
// dashboards, which it reads from openshift-config-managed only) names
// them, for each of its kinds that needs it. Only in those namespaces
// besides the HyperConverged's does the operator cache, list, prune and
// delete its objects of those kinds, so only there may Desired put them;
// and only there does it need permissions for them. Such an object records
// its HyperConverged with the owner annotations (OwnerAnnotation), as a
// cluster-scoped object does: an owner reference cannot name an object of
// another namespace (the garbage collector would take the owner for gone
// and delete the object). It is asked once, when the operator starts and
// makes its cache, for the one platform fact known then: whether the
// cluster is OpenShift (see OpenShift). Nil names none.
//
// AnyNamespace among a kind's namespaces stands for all of them, for an
// operand whose objects go where the HyperConverged says at run time.
type OtherNamespacer interface {
	OtherNamespaces(openShift bool) map[schema.GroupVersionKind][]string
}

// AnyNamespace, among the namespaces an OtherNamespacer names for a kind,
// stands for every namespace: the operand puts objects of the kind in
// namespaces the HyperConverged names (the image streams in
// commonBootImageNamespace). The operator then caches, lists, prunes and
// deletes its objects of that kind (those with its labels, that its
// HyperConverged owns) cluster-wide, and needs its permissions on the kind
// in every namespace.
const AnyNamespace = "*"

// Yielder is an optional capability: an operand that leaves alone an object
// at one of its names that is somebody else's by every sign the operator
// has, neither labelled as the operator's (LabelManagedBy) nor recorded as
// its HyperConverged's (OwnerAnnotation, or an owner reference), where the
// operator would otherwise take it over: upstream HCO leaves an admin's own
// image stream of the name alone. Such an object is never written, pruned
// or deleted (unlabelled, the operator never lists it); the operator says
// so in an Event (EventLeftAlone) and creates its own only once the name is
// free: it tries again when the operand builds the object anew (a change of
// the HyperConverged or of the facts) or the operator restarts. An object
// the operator recorded as its own is taken back whatever its labels. Such
// an operand's objects are pruned and deleted only when they carry the
// HyperConverged's record: one with the operator's labels but none
// (upstream's, on an in-place switch) is recorded when it is updated while
// the operand builds it, and left otherwise.
type Yielder interface {
	YieldsToUnlabelled() bool
}

// DeletionOrderer is an optional capability: operands are deleted on
// uninstall in ascending DeletionOrder (default 0), each group gone before
// the next starts.
type DeletionOrderer interface {
	DeletionOrder() int
}

// DesiredObjects returns op.Desired for a copy of hc and facts in the wire
// form the reconciler compares and writes (see wireform.Of), the first object
// patched when op is a JSONPatcher and hc carries its annotation (see
// jsonpatch.Apply; a broken patch is a *jsonpatch.Error). The reconciler, Render
// and the webhook's validation all build objects through it, so they agree.
func DesiredObjects(op Operand, hc *hcov1.HyperConverged, facts Facts) ([]*unstructured.Unstructured, error) {
	return desiredObjects(op, hc, facts, jsonPatchOf(op, hc), nil)
}

// desiredObjects is DesiredObjects with op's jsonpatch annotation parsed,
// built once per input when b is set (the reconciler's build memo; nil:
// every time).
func desiredObjects(op Operand, hc *hcov1.HyperConverged, facts Facts, p jsonPatch, b *builtObjects) (out []*unstructured.Unstructured, err error) {
	if prev, ok := b.last(op, hc, facts); ok {
		return prev.objs, prev.err
	}
	next, facts := b.next(hc, facts)
	defer func() { b.store(op, next, out, err) }()
	objs, err := op.Desired(withoutStatus(hc), facts)
	if err != nil || len(objs) == 0 {
		return nil, err
	}
	// The cache, pruning and uninstall find the operator's objects by these
	// labels: an object without them would be created on every reconcile
	// and outlive the HyperConverged.
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
		if out[i], err = wireform.Of(obj, b.schemeOrNil(), p.annotation, p.ops); err != nil {
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

// Render returns the desired objects of every enabled operand in reg, in
// registration order, in their wire form (see DesiredObjects). The first
// operand error stops it; the error names the operand. Without a cluster,
// facts are OfflineFacts.
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

// builtObjects holds what each operand built last, and from which
// HyperConverged (its UID, generation and metadata: what a build reads of
// it, see Operand.Desired), facts, and operand objects read through
// Facts.Observed (their resourceVersions): a reconcile that an operand
// object's event brings (an edit to revert, a deletion) builds nothing
// again, nor one after the operator's own status write. The objects are
// shared: read only. (The registry does not change while the reconciler
// runs, so an operand's name is its identity.)
type builtObjects struct {
	// scheme finds the kind of a typed object without TypeMeta.
	scheme *runtime.Scheme
	mu     sync.Mutex
	byKey  map[string]built
}

type built struct {
	uid        types.UID
	generation int64
	// meta is the HyperConverged's metadata but its resourceVersion and
	// managedFields, which a status write changes.
	meta  metav1.ObjectMeta
	facts Facts
	// observed are the objects the build read through facts.Observed: their
	// resourceVersion, "" for one that was not there.
	observed map[objectKey]string
	objs     []*unstructured.Unstructured
	err      error
}

// last is what op built last when hc and facts are that build's input.
func (b *builtObjects) last(op Operand, hc *hcov1.HyperConverged, facts Facts) (built, bool) {
	if b == nil || hc.Generation == 0 {
		return built{}, false
	}
	b.mu.Lock()
	prev, ok := b.byKey[op.Name()]
	b.mu.Unlock()
	return prev, ok && prev.uid == hc.UID && prev.generation == hc.Generation &&
		equality.Semantic.DeepEqual(prev.meta, buildMetadata(hc)) && prev.sameInput(facts)
}

// next starts the record of a build from hc and facts: the facts to build
// from, which record the objects read through Observed.
func (b *builtObjects) next(hc *hcov1.HyperConverged, facts Facts) (*built, Facts) {
	if b == nil {
		return nil, facts
	}
	next := &built{uid: hc.UID, generation: hc.Generation, meta: buildMetadata(hc), facts: facts}
	if observe := facts.Observed; observe != nil {
		next.observed = map[objectKey]string{}
		facts.Observed = func(gvk schema.GroupVersionKind, key client.ObjectKey) (*unstructured.Unstructured, bool) {
			u, found := observe(gvk, key)
			next.observed[objectKey{GVK: gvk, Name: key}] = observedVersion(u, found)
			return u, found
		}
	}
	return next, facts
}

// store records the build next made for op.
func (b *builtObjects) store(op Operand, next *built, objs []*unstructured.Unstructured, err error) {
	if b == nil {
		return
	}
	next.objs, next.err = objs, err
	b.mu.Lock()
	if b.byKey == nil {
		b.byKey = map[string]built{}
	}
	b.byKey[op.Name()] = *next
	b.mu.Unlock()
}

func (b *builtObjects) schemeOrNil() *runtime.Scheme {
	if b == nil {
		return nil
	}
	return b.scheme
}

// buildMetadata is what a build may read of hc's metadata (the generation
// stands for the spec): all but what a status write changes.
func buildMetadata(hc *hcov1.HyperConverged) metav1.ObjectMeta {
	m := hc.ObjectMeta
	m.ResourceVersion, m.ManagedFields = "", nil
	return *m.DeepCopy()
}

// sameInput reports whether facts are the ones b was built from: the same
// values, and every object the build read at the same resourceVersion.
func (b built) sameInput(facts Facts) bool {
	was, is := b.facts, facts
	was.Observed, is.Observed = nil, nil
	if !equality.Semantic.DeepEqual(was, is) || (b.facts.Observed == nil) != (facts.Observed == nil) {
		return false
	}
	for k, rv := range b.observed {
		if observedVersion(facts.Observed(k.GVK, k.Name)) != rv {
			return false
		}
	}
	return true
}

// observedVersion is an observed object's resourceVersion, "" when not found.
func observedVersion(u *unstructured.Unstructured, found bool) string {
	if !found {
		return ""
	}
	return u.GetResourceVersion()
}
