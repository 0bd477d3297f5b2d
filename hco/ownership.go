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

// OwnerAnnotation ("<namespace>/<name>") and OwnerUIDAnnotation record the
// HyperConverged of a cluster-scoped object, or of a namespaced one outside
// its namespace (OtherNamespacer), which no owner reference can name (one
// names an object of the same namespace, or a cluster-scoped one).
const (
	OwnerAnnotation    = "hco.kubevirt.io/owner"
	OwnerUIDAnnotation = "hco.kubevirt.io/owner-uid"
)

// Owner is the HyperConverged a reconcile acts for, and decides which
// objects found by the operator's labels (upstream's, shared with any other
// install) are its own: those
//
//   - whose record names the owner: OwnerAnnotation, or, in its namespace,
//     an owner reference to a HyperConverged of its name. A record with
//     another UID is a predecessor's at the same namespace and name,
//     deleted without the finalizer: the owner's too;
//   - without a record (upstream's, or an older hcokit's) in the owner's
//     namespace, whose HyperConverged the labels name;
//   - without a record, cluster-scoped or in another (OtherNamespacer's,
//     maybe shared) namespace, if AdoptsUnrecorded: the owner is the
//     cluster's eldest HyperConverged, as all installs agree, so an in-place
//     switch from upstream adopts its objects, an install beside it does not.
//
// Anything else is another install's: never written, pruned or deleted; the
// operand that wants it reports the conflict.
type Owner struct {
	Namespace, Name string
	UID             types.UID
	// AdoptsUnrecorded: unrecorded cluster-scoped objects are this owner's.
	AdoptsUnrecorded bool
	// Gone: the HyperConverged no longer exists; only objects whose record
	// names it are its own (nothing adopted): what sweepOrphans may delete.
	Gone bool
}

// OwnerFor returns the Owner of hc's objects: AdoptsUnrecorded if hc is the
// eldest of the HyperConvergeds reader lists (the cache holds them all).
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

// recordOf returns obj's owner record, if any: its owner annotations, else,
// if namespaced, its owner reference to a HyperConverged.
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

// records reports whether obj carries the owner's record (see recordOf).
func (o Owner) records(obj metav1.Object) bool {
	rec, recorded := recordOf(obj)
	return recorded && rec.namespace == o.Namespace && rec.name == o.Name
}

// deletable reports whether the operator may delete obj, of one of op's
// kinds and found by its labels: the owner claims it and, if op is a
// Yielder, obj carries the owner's record (see Yielder).
func (o Owner) deletable(op Operand, obj metav1.Object) bool {
	if claimed, _ := o.Claims(obj); !claimed {
		return false
	}
	y, yields := op.(Yielder)
	return !yields || !y.YieldsToUnlabelled() || o.records(obj)
}

// record sets the owner record on u, about to be written for the owner: an
// owner reference (replacing a predecessor's) on a namespaced object in its
// namespace, else the owner annotations.
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

// isRecordKey reports whether an annotation key is the owner record's, which
// an adopted object need not get by a write of its own (wireform.MetadataHolds).
func isRecordKey(k string) bool { return k == OwnerAnnotation || k == OwnerUIDAnnotation }

// ownedElsewhere: an operand's object belongs to another install.
type ownedElsewhere struct {
	kind, name, by string
}

func (e *ownedElsewhere) Error() string {
	return fmt.Sprintf("%s %s belongs to %s: it is left as it is; run one install per cluster, or delete the other one first", e.kind, e.name, e.by)
}
