package preview

import (
	"context"
	"fmt"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
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
// NetworkAddonsConfig, the SSP, the HostPathProvisioner): the update of the
// operator's plan (hco.PlanOperand, the one Changes sends), sent as a
// server-side dry run, so that a component's own admission (its webhook, an
// admission policy) refuses a bad change when the HyperConverged is
// written, as upstream HCO's webhook does, rather than as
// InvalidConfiguration later. Skipped: an operand whose API is not served,
// whose CR does not exist yet, belongs to another install (hco.Owner) or
// may not be read by the caller (the webhook's roles name the CRs it
// checks, by name: the view gets, it never lists), one that cannot be built
// (the webhook's own validation says why), and one the operator would not
// write. The first refusal is the error, naming the operand and the object.
// The plans are made on the facts the reconciler gathers for hc
// (hco.GatherFacts, as Facts reads them), but for the component routes'
// certificate Secrets, which reach only the CLI download's Route, no
// component CR: the webhook reads no Secret. CheckTimeout bounds it all.
func (c *Cluster) CheckOperands(ctx context.Context, hc *hcov1.HyperConverged) error {
	ctx, cancel := context.WithTimeout(ctx, CheckTimeout)
	defer cancel()
	if !slices.ContainsFunc(c.reg.Operands(), isComponent) {
		return nil
	}
	facts, err := c.facts(ctx, hc, nil)
	if err != nil {
		return fmt.Errorf("gather the facts the operator builds the component CRs from: %w", err)
	}
	// Unrecorded objects are taken as this HyperConverged's: the check
	// lists no other install's HyperConverged (an in-place switch from
	// upstream is the usual case of unrecorded ones).
	owner := hco.Owner{Namespace: hc.Namespace, Name: hc.Name, UID: hc.UID, AdoptsUnrecorded: true}
	for _, op := range c.reg.Operands() {
		if !isComponent(op) {
			continue
		}
		if err := c.checkOne(ctx, op, hc, facts, owner); err != nil {
			return fmt.Errorf("operand %s: %w", op.Name(), err)
		}
	}
	return nil
}

// isComponent: op makes a component operator's CR, the objects upstream's
// webhook checks (KubeVirt, CDI, NetworkAddonsConfig, SSP): an
// hco.JSONPatcher's first object.
func isComponent(op hco.Operand) bool {
	_, ok := op.(hco.JSONPatcher)
	return ok
}

// checkOne dry-runs the update of one operand's CR, planned again when the
// CR changed under the dry run.
func (c *Cluster) checkOne(ctx context.Context, op hco.Operand, hc *hcov1.HyperConverged, facts hco.Facts, owner hco.Owner) error {
	for range checkConflictRetries {
		v := &getView{c: c}
		steps, waiting, err := hco.PlanOperand(ctx, op, hc, facts, v, owner)
		switch {
		case v.err != nil:
			return v.err
		case err != nil, len(waiting) > 0, len(steps) == 0 || steps[0].Verb != hco.VerbUpdate:
			// Not buildable (the webhook's validation says why), another
			// install's, not served, not made yet, or nothing to write.
			return nil
		}
		s := steps[0]
		err = c.dryRun.Update(ctx, s.Send, strict, client.FieldOwner(hco.FieldOwner))
		switch {
		case err == nil:
			return nil
		case apierrors.IsConflict(err):
			continue
		}
		return fmt.Errorf("the API server refuses the update of %s %s that this HyperConverged gives: %w", s.GVK.Kind, displayName(s.Send), err)
	}
	return fmt.Errorf("%s changed under %d dry runs of its update; try again", op.Name(), checkConflictRetries)
}

// getView is hco.View by gets only, by name, whatever the object's labels
// (as the reconciler's create finds one whose labels were edited away): an
// object the caller may not read, or whose kind is not served, is not
// there; any other failure is err. It lists nothing.
type getView struct {
	c   *Cluster
	err error
}

func (v *getView) Served(gvk schema.GroupVersionKind) bool {
	_, err := v.c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	return err == nil
}

func (v *getView) Live(ctx context.Context, gvk schema.GroupVersionKind, key client.ObjectKey) *unstructured.Unstructured {
	live := &unstructured.Unstructured{}
	live.SetGroupVersionKind(gvk)
	err := v.c.reader.Get(ctx, key, live)
	switch {
	case err == nil:
		return live
	case meta.IsNoMatchError(err), apierrors.IsNotFound(err), apierrors.IsForbidden(err):
	default:
		if v.err == nil {
			v.err = fmt.Errorf("read %s %s: %w", gvk.Kind, key, err)
		}
	}
	return nil
}

func (v *getView) Managed(context.Context, schema.GroupVersionKind) ([]*unstructured.Unstructured, error) {
	return nil, nil
}

// displayName is an object's name, with its namespace when it has one.
func displayName(u *unstructured.Unstructured) string {
	if u.GetNamespace() == "" {
		return u.GetName()
	}
	return u.GetNamespace() + "/" + u.GetName()
}
