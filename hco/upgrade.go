package hco

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"

	"github.com/hcokit/hcokit/hcostatus"
)

// OperatorVersionName is the status.versions entry of the operator itself.
const OperatorVersionName = "operator"

// upgrading reports whether the operator version differs from the one the
// HyperConverged's status records.
func (r *Reconciler) upgrading(hc *hcov1.HyperConverged) bool {
	if r.env.Version == "" {
		return false
	}
	prev := versionOf(hc.Status.Versions, OperatorVersionName)
	return prev != "" && prev != r.env.Version
}

// AdoptedAnnotation records on the HyperConverged the operator version that
// carried settings forward, so that adoption happens once per upgrade: an
// admin who then changes an adopted setting is not overruled.
const AdoptedAnnotation = "hco.kubevirt.io/adopted-for-version"

// adopt takes the upgrade steps from the version the HyperConverged's
// status records, once per operator version: upstream's upgrade patches
// (upgradeSteps: the spec patched, leftovers of earlier versions deleted),
// and the Adopter operands carrying settings forward. It updates the
// HyperConverged when a step applied, recording the version in
// AdoptedAnnotation.
func (r *Reconciler) adopt(ctx context.Context, hc *hcov1.HyperConverged, owner Owner) (bool, error) {
	if hc.GetAnnotations()[AdoptedAnnotation] == r.env.Version {
		return false, nil
	}
	patches, gone := upgradeSteps(versionOf(hc.Status.Versions, OperatorVersionName), r.env.Namespace)
	if err := r.removeLeftovers(ctx, hc, owner, gone, "left by an earlier version, which made it; this one does not"); err != nil {
		return false, err
	}
	changed := hc.DeepCopy()
	patched, err := patchSpec(changed, patches)
	if err != nil {
		return false, err
	}
	// Recorded even when nothing changed, so that the leftovers are looked
	// for once, not on every reconcile of the upgrade.
	adopted := patched || len(gone) > 0
	for _, op := range r.registry.Operands() {
		ad, ok := op.(Adopter)
		if !ok {
			continue
		}
		if observed, _ := r.observeExisting(ctx, op, owner); ad.Adopt(changed, observed) {
			adopted = true
		}
	}
	if !adopted {
		return false, nil
	}
	if changed.Annotations == nil {
		changed.Annotations = map[string]string{}
	}
	changed.Annotations[AdoptedAnnotation] = r.env.Version
	if err := r.client.Patch(ctx, changed, client.MergeFrom(hc)); err != nil {
		return false, fmt.Errorf("patch HyperConverged %s while adopting settings: %w", client.ObjectKeyFromObject(hc), err)
	}
	return true, nil
}

// switchFrom deletes, once per operator start, what upstream's operator
// makes that hcokit replaces (switchLeftovers), where found and claimed as
// removeLeftovers claims. Whether a kind's CRD exists is read from the
// cache (the reconciler watches the CRDs' metadata), so a cluster without
// cert-manager costs no request.
func (r *Reconciler) switchFrom(ctx context.Context, hc *hcov1.HyperConverged, owner Owner) error {
	if r.switched.Load() {
		return nil
	}
	var gone []leftover
	for _, l := range switchLeftovers {
		crd := CRDMetadata()
		err := r.cache.Get(ctx, types.NamespacedName{Name: l.crd}, crd)
		switch {
		case apierrors.IsNotFound(err):
			continue
		case err != nil:
			return fmt.Errorf("look for the %s CRD: %w", l.crd, err)
		}
		l.key.Namespace = r.env.Namespace
		gone = append(gone, l.leftover)
	}
	if err := r.removeLeftovers(ctx, hc, owner, gone, "upstream HCO made it for the network-resources-injector's certificate, which this install writes itself"); err != nil {
		return err
	}
	r.switched.Store(true)
	return nil
}

// leftoverOf reports whether obj, found where an earlier version left an
// object (upgradeSteps), is owner's: it carries upstream's managed-by label
// and owner claims it. A namespaced one outside the operator namespace
// (upstream's NetworkAttachmentDefinition in "default") is claimed as a
// cluster-scoped one is: labelled for owner's HyperConverged, and owner the
// eldest (see Owner).
func leftoverOf(owner Owner, obj metav1.Object) bool {
	l := obj.GetLabels()
	if l[LabelManagedBy] != ManagedByValue {
		return false
	}
	if ns := obj.GetNamespace(); ns != "" && ns != owner.Namespace {
		_, recorded := recordOf(obj)
		return !recorded && owner.AdoptsUnrecorded && !owner.Gone && l[LabelApp] == owner.Name
	}
	claimed, _ := owner.Claims(obj)
	return claimed
}

// removeLeftovers deletes the objects an earlier version left (upgradeSteps,
// switchLeftovers) that are this HyperConverged's, saying why in an Event:
// they carry upstream's managed-by label and owner claims them (an object of
// that name someone else made stays). Read past the cache, each deleted only
// if still the object read.
func (r *Reconciler) removeLeftovers(ctx context.Context, hc *hcov1.HyperConverged, owner Owner, gone []leftover, why string) error {
	for _, l := range gone {
		obj := &unstructured.Unstructured{}
		obj.SetGroupVersionKind(l.gvk)
		err := r.reader.Get(ctx, l.key, obj)
		switch {
		case apierrors.IsNotFound(err), meta.IsNoMatchError(err):
			continue
		case err != nil:
			return fmt.Errorf("look for %s %s left by an earlier version: %w", l.gvk.Kind, displayName(l.key), err)
		}
		if !leftoverOf(owner, obj) {
			log.FromContext(ctx).Info("leftover of an earlier version not ours: kept", "kind", l.gvk.Kind, "object", displayName(l.key))
			continue
		}
		gone, err := r.applier.deleteSame(ctx, l.gvk, obj)
		if err != nil {
			return fmt.Errorf("delete %s %s left by an earlier version: %w", l.gvk.Kind, displayName(l.key), err)
		}
		if gone == replaced {
			continue // not the object found
		}
		r.events.Eventf(hc, obj, corev1.EventTypeNormal, EventDeleted, "Delete", "Deleted %s %s: %s", l.gvk.Kind, obj.GetName(), why)
	}
	return nil
}

// versions returns the status.versions to record and whether every operand
// reports the version the environment expects (so they can be recorded).
func (r *Reconciler) versions(a hcostatus.Assessment) ([]hcov1.Version, bool) {
	if r.env.Version == "" || a.ProblemReason != "" || len(a.Failures) > 0 {
		return nil, false
	}
	out := []hcov1.Version{{Name: OperatorVersionName, Version: r.env.Version}}
	for _, op := range r.registry.Operands() {
		want, ok := r.env.OperandVersions[op.Name()]
		if !ok {
			continue
		}
		got, reports := a.ObservedVersions[op.Name()]
		if !reports {
			// The operand wants nothing for this HyperConverged, so no
			// component will report a version.
			continue
		}
		if got != want {
			return nil, false
		}
		out = append(out, hcov1.Version{Name: op.Name(), Version: want})
	}
	return out, true
}

func versionOf(vs []hcov1.Version, name string) string {
	if i := slices.IndexFunc(vs, func(v hcov1.Version) bool { return v.Name == name }); i >= 0 {
		return vs[i].Version
	}
	return ""
}

// upgradeSteps are what the operator does before the operands on an
// upgrade: the switch from upstream's install (once per process), and
// while upgrading the adoption of what an earlier version left; true when
// the reconcile stops there (an error, or an adoption, whose update of the
// HyperConverged brings the next reconcile).
func (r *Reconciler) upgradeSteps(ctx context.Context, hc *hcov1.HyperConverged, owner Owner, a *assessment) bool {
	if !a.record(r.switchFrom(ctx, hc, owner)) {
		return true
	}
	if !a.Upgrading {
		return false
	}
	adopted, err := r.adopt(ctx, hc, owner)
	return !a.record(err) || adopted
}
