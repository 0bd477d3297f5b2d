package hco

import (
	"context"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
)

// The owner record of a cluster-scoped object, and of a namespaced one
// outside its HyperConverged's namespace (OtherNamespacer): the
// HyperConverged it was made for, as "<namespace>/<name>", and that
// HyperConverged's UID. Such an object cannot carry an owner reference to
// the HyperConverged (a reference names an object of the same namespace,
// or a cluster-scoped one); a namespaced object in the HyperConverged's
// namespace records it in an owner reference instead (see Owner).
const (
	OwnerAnnotation    = "hco.kubevirt.io/owner"
	OwnerUIDAnnotation = "hco.kubevirt.io/owner-uid"
)

// Owner is the HyperConverged a reconcile acts for, and decides which of
// the objects found by the operator's labels are its own. The labels are
// upstream HCO's, so another install (upstream's, or a second hcokit in
// another namespace) carries the same ones: only the owner record says whose
// an object is. An object is its owner's when
//
//   - its record names the owner: the OwnerAnnotation with its namespace
//     and name (cluster-scoped objects, and namespaced ones outside the
//     owner's namespace), or an owner reference to a HyperConverged of this
//     name (namespaced objects in their HyperConverged's namespace). Only
//     one HyperConverged can exist at a namespace and name, so a record
//     with another UID is its predecessor's at the same place (deleted
//     without the finalizer having run): it is the owner's too;
//   - or it has no record (upstream made it, or an hcokit that did not
//     record owners yet) and is in the owner's namespace: the labels name
//     the HyperConverged there, which is the owner;
//   - or it has no record, is cluster-scoped or in another namespace (the
//     namespaces an OtherNamespacer names, which several installs may
//     share), and AdoptsUnrecorded: the owner is the eldest HyperConverged
//     in the cluster. Two installs agree on which that is, so an in-place
//     switch from upstream adopts upstream's objects, while an install
//     beside upstream's (evaluated in a namespace of its own) leaves them
//     to it.
//
// Anything else belongs to another install: it is never written, pruned or
// deleted, and the operand that wants it reports the conflict.
type Owner struct {
	Namespace, Name string
	UID             types.UID
	// AdoptsUnrecorded: cluster-scoped objects without a record are this
	// owner's.
	AdoptsUnrecorded bool
	// Gone: the HyperConverged no longer exists. Only objects whose record
	// names it are its own (nothing is adopted for a HyperConverged that is
	// gone): what sweepOrphans may delete.
	Gone bool
}

// OwnerFor returns the Owner of hc's objects. Whether it adopts unrecorded
// cluster-scoped objects depends on the HyperConvergeds of the other
// namespaces, which reader lists (the reconciler's cache holds them all).
func OwnerFor(ctx context.Context, reader client.Reader, hc *hcov1.HyperConverged) (Owner, error) {
	var all hcov1.HyperConvergedList
	// Read only: the cache's objects as they are, not copies.
	if err := reader.List(ctx, &all, client.UnsafeDisableDeepCopy); err != nil {
		return Owner{}, fmt.Errorf("list the HyperConvergeds of the cluster: %w", err)
	}
	eldest := !slices.ContainsFunc(all.Items, func(o hcov1.HyperConverged) bool { return olderThan(&o, hc) })
	return Owner{Namespace: hc.Namespace, Name: hc.Name, UID: hc.UID, AdoptsUnrecorded: eldest}, nil
}

// olderThan reports whether o, a HyperConverged, is another install's and
// older than hc (created earlier; on a tie, its namespace sorts first).
func olderThan(o, hc *hcov1.HyperConverged) bool {
	if o.Namespace == hc.Namespace {
		return false
	}
	a, b := o.CreationTimestamp, hc.CreationTimestamp
	return a.Before(&b) || (a.Equal(&b) && o.Namespace < hc.Namespace)
}

// recordedOwner is the owner record an object carries.
type recordedOwner struct {
	namespace, name string
	uid             types.UID
}

func (o recordedOwner) String() string {
	return fmt.Sprintf("HyperConverged %s/%s (uid %s)", o.namespace, o.name, o.uid)
}

// recordOf returns obj's owner record, if it has one: its owner
// annotations, else, for a namespaced object, its owner reference to a
// HyperConverged (of the same namespace).
func recordOf(obj metav1.Object) (recordedOwner, bool) {
	a := obj.GetAnnotations()
	if ns, name, ok := strings.Cut(a[OwnerAnnotation], "/"); ok {
		return recordedOwner{namespace: ns, name: name, uid: types.UID(a[OwnerUIDAnnotation])}, true
	}
	if obj.GetNamespace() == "" {
		return recordedOwner{}, false
	}
	for _, ref := range obj.GetOwnerReferences() {
		if isHyperConvergedRef(ref) {
			return recordedOwner{namespace: obj.GetNamespace(), name: ref.Name, uid: ref.UID}, true
		}
	}
	return recordedOwner{}, false
}

func isHyperConvergedRef(ref metav1.OwnerReference) bool {
	return ref.Kind == "HyperConverged" && strings.HasPrefix(ref.APIVersion, hcov1.GroupVersion.Group+"/")
}

// Claims reports whether obj is the owner's (see Owner) and, when it is
// not, whose it is.
func (o Owner) Claims(obj metav1.Object) (bool, string) {
	rec, recorded := recordOf(obj)
	switch {
	case recorded:
		if rec.namespace == o.Namespace && rec.name == o.Name {
			return true, ""
		}
		return false, rec.String()
	case o.Gone:
		return false, "no HyperConverged (no owner recorded)"
	case obj.GetNamespace() == o.Namespace:
		return true, ""
	case o.AdoptsUnrecorded:
		return true, ""
	}
	return false, "another install (labelled as upstream HCO's, no owner recorded, and an older HyperConverged exists)"
}

// records reports whether obj carries the owner's record: its owner
// annotations, or an owner reference to a HyperConverged of its name in its
// namespace.
func (o Owner) records(obj metav1.Object) bool {
	rec, recorded := recordOf(obj)
	return recorded && rec.namespace == o.Namespace && rec.name == o.Name
}

// deletable reports whether the operator may delete obj, an object of one
// of op's kinds that it found by its labels: the owner claims it, and, when
// op leaves others' objects alone (Yielder), obj carries the owner's record.
// Such an operand's objects without one (upstream's, say, where the
// HyperConverged names their namespace) are updated, and so recorded, while
// it builds them, and otherwise left.
func (o Owner) deletable(op Operand, obj metav1.Object) bool {
	if claimed, _ := o.Claims(obj); !claimed {
		return false
	}
	y, yields := op.(Yielder)
	return !yields || !y.YieldsToUnlabelled() || o.records(obj)
}

// record sets the owner record on u, an object about to be written for the
// owner: an owner reference to the HyperConverged for a namespaced object
// in its namespace (in place of a stale one to a predecessor), the owner
// annotations for a cluster-scoped one or one in another namespace.
func (o Owner) record(u *unstructured.Unstructured) {
	if u.GetNamespace() != o.Namespace {
		a := u.GetAnnotations()
		if a == nil {
			a = map[string]string{}
		}
		a[OwnerAnnotation] = o.Namespace + "/" + o.Name
		a[OwnerUIDAnnotation] = string(o.UID)
		u.SetAnnotations(a)
		return
	}
	refs := u.GetOwnerReferences()
	if slices.ContainsFunc(refs, func(r metav1.OwnerReference) bool { return isHyperConvergedRef(r) && r.UID == o.UID }) {
		return
	}
	refs = slices.DeleteFunc(slices.Clone(refs), isHyperConvergedRef)
	controller := !slices.ContainsFunc(refs, func(r metav1.OwnerReference) bool { return r.Controller != nil && *r.Controller })
	refs = append(refs, metav1.OwnerReference{
		APIVersion: hcov1.GroupVersion.String(), Kind: "HyperConverged", Name: o.Name, UID: o.UID, Controller: &controller,
	})
	u.SetOwnerReferences(refs)
}

// isRecordKey reports whether an annotation key is part of the owner
// record, which an object adopted without one need not get by a write of
// its own (see wireform.MetadataHolds).
func isRecordKey(k string) bool { return k == OwnerAnnotation || k == OwnerUIDAnnotation }

// ownedElsewhere is the error of an operand whose object belongs to
// another install.
type ownedElsewhere struct {
	kind, name, by string
}

func (e *ownedElsewhere) Error() string {
	return fmt.Sprintf("%s %s belongs to %s: it is left as it is; run one install per cluster, or delete the other one first", e.kind, e.name, e.by)
}
