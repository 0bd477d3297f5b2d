package hco

import (
	"context"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/log"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco/internal/apply"

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
	prev := VersionOf(hc.Status.Versions, OperatorVersionName)
	return prev != "" && prev != r.env.Version
}

// leftoverOf reports whether obj, found where an earlier version left an
// object, is owner's: it carries upstream's managed-by label and owner
// claims it, one outside the operator namespace (upstream's
// NetworkAttachmentDefinition in "default") as a cluster-scoped one:
// labelled for owner's HyperConverged, and owner the eldest (see Owner).
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

// removeLeftover is ExtensionState.RemoveLeftover.
func (r *Reconciler) removeLeftover(ctx context.Context, hc *hcov1.HyperConverged, owner Owner, gvk schema.GroupVersionKind, key types.NamespacedName, why string) error {
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(gvk)
	err := r.reader.Get(ctx, key, obj)
	switch {
	case apierrors.IsNotFound(err), meta.IsNoMatchError(err):
		return nil
	case err != nil:
		return fmt.Errorf("look for %s %s left by an earlier version: %w", gvk.Kind, apply.DisplayName(key), err)
	}
	if !leftoverOf(owner, obj) {
		log.FromContext(ctx).Info("leftover of an earlier version not ours: kept", "kind", gvk.Kind, "object", apply.DisplayName(key))
		return nil
	}
	return r.deleteObject(ctx, hc, gvk, obj, why)
}

// versions returns the status.versions to record once every operand reports
// its expected version (false before): the operator's only, as upstream's
// UpdateVersion of "operator" at 03da3cf; the components' own are in their
// CRs (what `hco-operator status` shows).
func (r *Reconciler) versions(a hcostatus.Assessment) ([]hcov1.Version, bool) {
	if r.env.Version == "" || a.ProblemReason != "" || len(a.Failures) > 0 {
		return nil, false
	}
	for _, op := range r.registry.Operands() {
		want, ok := r.env.OperandVersions[op.Name()]
		if !ok {
			continue
		}
		// An operand that reports nothing wants nothing for this
		// HyperConverged: no component will report a version.
		if got, reports := a.ObservedVersions[op.Name()]; reports && got != want {
			return nil, false
		}
	}
	return []hcov1.Version{{Name: OperatorVersionName, Version: r.env.Version}}, true
}

// VersionOf is the version status.versions vs records for name, or empty.
func VersionOf(vs []hcov1.Version, name string) string {
	if i := slices.IndexFunc(vs, func(v hcov1.Version) bool { return v.Name == name }); i >= 0 {
		return vs[i].Version
	}
	return ""
}
