package upgrade

import (
	"context"
	"fmt"
	"sync/atomic"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/hcokit/hcokit/hco"
)

// AdoptedAnnotation records on the HyperConverged the operator version that
// carried settings forward, so that adoption happens once per upgrade: an
// admin who then changes an adopted setting is not overruled.
const AdoptedAnnotation = "hco.kubevirt.io/adopted-for-version"

// Extension takes the upgrade steps before the operands (hco.Extension).
type Extension struct {
	hco.NoExtension
	// switched: switchFrom has run since the operator started (the one
	// memory of this package, in this process only).
	switched atomic.Bool
}

var _ hco.Extension = (*Extension)(nil)

// New returns the extension.
func New() *Extension { return &Extension{} }

// Before implements hco.Extension: the switch from upstream's install (once
// per process), and while upgrading the adoption of what an earlier version
// left; stop when the HyperConverged was updated.
func (e *Extension) Before(ctx context.Context, s hco.ExtensionState) (bool, error) {
	if err := e.switchFrom(ctx, s); err != nil {
		return false, err
	}
	if !s.Upgrading {
		return false, nil
	}
	return adopt(ctx, s)
}

// adopt takes the upgrade steps from the version the HyperConverged's
// status records, once per operator version: upstream's upgrade patches
// (the spec patched, leftovers of earlier versions deleted), and the
// hco.Adopter operands carrying settings forward. It updates the
// HyperConverged when a step applied, recording the version in
// AdoptedAnnotation.
func adopt(ctx context.Context, s hco.ExtensionState) (bool, error) {
	hc, version := s.HyperConverged, s.Env.Version
	if hc.GetAnnotations()[AdoptedAnnotation] == version {
		return false, nil
	}
	patches, gone := upgradeSteps(hco.VersionOf(hc.Status.Versions, hco.OperatorVersionName), s.Env.Namespace)
	for _, l := range gone {
		if err := s.RemoveLeftover(ctx, l.gvk, l.key, "left by an earlier version, which made it; this one does not"); err != nil {
			return false, err
		}
	}
	changed := hc.DeepCopy()
	patched, err := patchSpec(changed, patches)
	if err != nil {
		return false, err
	}
	// Recorded even when nothing changed, so that the leftovers are looked
	// for once, not on every reconcile of the upgrade.
	adopted := patched || len(gone) > 0
	for _, op := range s.Operands() {
		if ad, ok := op.(hco.Adopter); ok && ad.Adopt(changed, s.Observe(ctx, op)) {
			adopted = true
		}
	}
	if !adopted {
		return false, nil
	}
	if changed.Annotations == nil {
		changed.Annotations = map[string]string{}
	}
	changed.Annotations[AdoptedAnnotation] = version
	if err := s.Client.Patch(ctx, changed, client.MergeFrom(hc)); err != nil {
		return false, fmt.Errorf("patch HyperConverged %s while adopting settings: %w", client.ObjectKeyFromObject(hc), err)
	}
	return true, nil
}

// switchFrom deletes, once per operator start, what upstream's operator
// makes that hcokit replaces (switchLeftovers), where found and claimed
// (ExtensionState.RemoveLeftover). Whether a kind's CRD exists is read
// from the cache (the reconciler watches the CRDs' metadata), so a cluster
// without cert-manager costs no request.
func (e *Extension) switchFrom(ctx context.Context, s hco.ExtensionState) error {
	if e.switched.Load() {
		return nil
	}
	for _, l := range switchLeftovers {
		crd := hco.CRDMetadata()
		err := s.Reader.Get(ctx, types.NamespacedName{Name: l.crd}, crd)
		switch {
		case apierrors.IsNotFound(err):
			continue
		case err != nil:
			return fmt.Errorf("look for the %s CRD: %w", l.crd, err)
		}
		key := types.NamespacedName{Namespace: s.Env.Namespace, Name: l.key.Name}
		if err := s.RemoveLeftover(ctx, l.gvk, key, "upstream HCO made it for the network-resources-injector's certificate, which this install writes itself"); err != nil {
			return err
		}
	}
	e.switched.Store(true)
	return nil
}
