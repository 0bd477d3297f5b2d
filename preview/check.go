package preview

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
)

// CheckTimeout bounds CheckOperands, as upstream HCO's webhook bounds its
// dry runs (pkg/webhooks/validator at 03da3cf: 3 s).
const CheckTimeout = 3 * time.Second

// checkConflictRetries is how often CheckOperands reads an object again
// when it changed under the dry run, as upstream's webhook does.
const checkConflictRetries = 3

// CheckOperands asks the API server whether it takes what the operator
// would write for hc to the component CR of every enabled operand that has
// one (an hco.JSONPatcher's first object: the KubeVirt, the CDI, the
// NetworkAddonsConfig, the SSP, the HostPathProvisioner): the update
// hco.UpdateFor builds, the one the reconciler and
// Changes send, sent as a server-side dry run, so that a component's own
// admission (its webhook, an admission policy) refuses a bad change when the
// HyperConverged is written, as upstream HCO's webhook does, rather than as
// InvalidConfiguration later. Skipped: an operand whose API is not served,
// whose CR does not exist yet, belongs to another install (hco.Owner) or
// may not be read by the caller (the webhook's roles name the CRs it
// checks), and one the operator would not write. The first refusal is
// the error, naming the operand and the object. CheckTimeout bounds it all.
func (c *Cluster) CheckOperands(ctx context.Context, hc *hcov1.HyperConverged, facts hco.Facts) error {
	ctx, cancel := context.WithTimeout(ctx, CheckTimeout)
	defer cancel()
	// Unrecorded objects are taken as this HyperConverged's: the check
	// lists no other install's HyperConverged (an in-place switch from
	// upstream is the usual case of unrecorded ones).
	owner := hco.Owner{Namespace: hc.Namespace, Name: hc.Name, UID: hc.UID, AdoptsUnrecorded: true}
	for _, op := range c.reg.Operands() {
		if _, ok := op.(hco.JSONPatcher); !ok {
			// Not a component operator's CR (upstream checks those only:
			// KubeVirt, CDI, NetworkAddonsConfig, SSP).
			continue
		}
		want, err := hco.DesiredObjects(op, hc, facts)
		if err != nil {
			// The webhook's own validation reports what the HyperConverged
			// gets wrong; nothing to send.
			continue
		}
		if len(want) == 0 {
			continue
		}
		if err := c.checkOne(ctx, op, owner, want[0]); err != nil {
			return fmt.Errorf("operand %s: %w", op.Name(), err)
		}
	}
	return nil
}

// checkOne dry-runs the update of one operand object.
func (c *Cluster) checkOne(ctx context.Context, op hco.Operand, owner hco.Owner, want *unstructured.Unstructured) error {
	gvk := want.GroupVersionKind()
	name := displayName(want)
	for range checkConflictRetries {
		live := &unstructured.Unstructured{}
		live.SetGroupVersionKind(gvk)
		err := c.reader.Get(ctx, client.ObjectKeyFromObject(want), live)
		switch {
		case meta.IsNoMatchError(err), apierrors.IsNotFound(err), apierrors.IsForbidden(err):
			return nil // not served, not made yet, or not granted to this checker
		case err != nil:
			return fmt.Errorf("read %s %s: %w", gvk.Kind, name, err)
		}
		if claimed, _ := owner.Claims(live); !claimed {
			return nil
		}
		update, write := hco.UpdateFor(op, live, want)
		if !write {
			return nil
		}
		err = c.dryRun.Update(ctx, update, strict, client.FieldOwner(hco.FieldOwner))
		switch {
		case err == nil:
			return nil
		case apierrors.IsConflict(err):
			continue
		}
		return fmt.Errorf("the API server refuses the update of %s %s that this HyperConverged gives: %w", gvk.Kind, name, err)
	}
	return fmt.Errorf("%s %s changed under %d dry runs of its update; try again", gvk.Kind, name, checkConflictRetries)
}

// displayName is an object's name, with its namespace when it has one.
func displayName(u *unstructured.Unstructured) string {
	if u.GetNamespace() == "" {
		return u.GetName()
	}
	return u.GetNamespace() + "/" + u.GetName()
}
