package hco

import (
	"context"
	"fmt"
	"slices"

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

// adopt lets Adopter operands carry settings forward, once per operator
// version, and updates the HyperConverged if one did.
func (r *Reconciler) adopt(ctx context.Context, hc *hcov1.HyperConverged, owner Owner) (bool, error) {
	if hc.GetAnnotations()[AdoptedAnnotation] == r.env.Version {
		return false, nil
	}
	changed := hc.DeepCopy()
	adopted := false
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
