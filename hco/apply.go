package hco

import (
	"context"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/hcokit/hcokit/hco/internal/memo"
	"github.com/hcokit/hcokit/wireform"
)

// FieldOwner is the field manager of every write the operator makes. The API
// server records under it which labels and annotations the operator set, so
// that one it stops setting can be removed while others' stay.
const FieldOwner = "hco-operator"

// ApplyResult says what applying one desired object did.
type ApplyResult string

// Apply results; they are also the "result" label of hcokit_operand_reconciles_total.
const (
	ResultUnchanged   ApplyResult = "unchanged"
	ResultCreated     ApplyResult = "created"
	ResultUpdated     ApplyResult = "updated"
	ResultOverwritten ApplyResult = "overwritten"
	// ResultLeftAlone: somebody else's object holds the name, and the
	// operand leaves it alone (Yielder).
	ResultLeftAlone ApplyResult = "left-alone"
)

// resultDeleted: a step deleted its object.
const resultDeleted ApplyResult = "deleted"

// applier is the one path that writes operand objects (hco/doc.go: the
// write path). An object it holds no memory of (another manager made it,
// or this process has not written it yet) whose content differs only by
// what the operator does not set is asked about once, with a server-side
// dry run of the update: no write when nothing would change.
type applier struct {
	client client.Client
	// reader reads past the cache, for an object the cache cannot see (its
	// managed-by label was removed).
	reader client.Reader

	*memo.Memo
}

// objectKey names an object.
type objectKey = memo.Key

// strict makes the API server refuse a field the operand's CRD does not
// know rather than drop it silently: a jsonpatch that sets one is reported
// (InvalidConfiguration, naming the annotation), not lost.
const strict = client.FieldValidation(metav1.FieldValidationStrict)

func newApplier(c client.Client, reader client.Reader) *applier {
	return &applier{client: c, reader: reader, Memo: memo.New()}
}

// execute carries out s, a step of an operand's plan (planObject over the
// cache, this applier its memory), and returns the object as stored. wait
// is called before each request to the API server.
//
//   - create: a create; when the object exists after all (its labels, which
//     the cache selects by, were edited away), it is read past the cache and
//     planned again over what is there (Step.Over).
//   - update: the update, after a server-side dry run when the memo does not
//     know the object and its content differs only by what the operator does
//     not set (the difference may be the API server's defaults: then nothing
//     is written).
//   - keep: nothing sent; the memo records the object in sync.
//   - delete: a delete with a UID precondition; an object replaced meanwhile
//     (conflict) or gone is not an error.
//   - replace: that delete, then the create.
func (a *applier) execute(ctx context.Context, s Step, wait func()) (*unstructured.Unstructured, ApplyResult, error) {
	key := objectKey{GVK: s.GVK, Name: s.Key}
	switch s.Verb {
	case VerbCreate:
		wait()
		err := a.client.Create(ctx, s.Send, strict)
		if err == nil {
			a.Remember(key, s.Desired, wireform.Content(s.Desired), s.Send, "")
			return s.Send, ResultCreated, nil
		}
		if !apierrors.IsAlreadyExists(err) {
			return nil, "", fmt.Errorf("create %s %s: %w", s.GVK.Kind, displayName(s.Key), err)
		}
		live := &unstructured.Unstructured{}
		live.SetGroupVersionKind(s.GVK)
		wait()
		if err := a.reader.Get(ctx, s.Key, live); err != nil {
			return nil, "", fmt.Errorf("get %s %s: %w", s.GVK.Kind, displayName(s.Key), err)
		}
		if s, err = s.Over(live); err != nil {
			return nil, "", err
		}
		return a.execute(ctx, s, wait)
	case VerbReplace:
		if s.Live.GetDeletionTimestamp() != nil {
			// Still going (finalizers, a foreground deletion): its
			// deletion's event brings the create.
			return s.Live, ResultUnchanged, nil
		}
		wait()
		switch gone, err := a.deleteSame(ctx, s.GVK, s.Live); {
		case err != nil:
			return nil, "", fmt.Errorf("delete %s %s to create it again (its %s cannot change): %w", s.GVK.Kind, displayName(s.Key), "spec.selector", err)
		case gone == replaced:
			// The next reconcile plans over the new one.
			return s.Live, ResultUnchanged, nil
		}
		wait()
		if err := a.client.Create(ctx, s.Send, strict); err != nil {
			return nil, "", fmt.Errorf("create %s %s again (its spec.selector cannot change): %w", s.GVK.Kind, displayName(s.Key), err)
		}
		a.Remember(key, s.want, wireform.Content(s.want), s.Send, "")
		return s.Send, ResultUpdated, nil
	case VerbLeave:
		if a.Leave(key, s.Desired, s.Live) {
			return s.Live, ResultUnchanged, nil
		}
		return s.Live, ResultLeftAlone, nil
	case VerbKeep:
		switch {
		case !s.recalled.Fast:
			a.Remember(key, s.want, wireform.Content(s.want), s.Live, "")
		case s.recalled.Rebuilt:
			a.BuiltAgain(key, s.Desired)
		}
		return s.Live, ResultUnchanged, nil
	case VerbDelete:
		wait()
		switch gone, err := a.deleteSame(ctx, s.GVK, s.Live); {
		case err != nil:
			return nil, "", fmt.Errorf("delete %s %s: %w", s.GVK.Kind, displayName(s.Key), err)
		case gone != deletedNow:
			return s.Live, ResultUnchanged, nil
		}
		return s.Live, resultDeleted, nil
	}
	update, wantContent := s.Send, wireform.Content(s.want)
	if !s.recalled.Known && wireform.Within(wantContent, wireform.Content(s.Live)) {
		wait()
		inSync, err := a.storesAsIs(ctx, update, s.Live)
		if err != nil {
			return nil, "", fmt.Errorf("update %s %s (dry run): %w", s.GVK.Kind, displayName(s.Key), err)
		}
		if inSync {
			stale := staleMetadata(s.Live, s.want)
			if stale.Empty() && wireform.MetadataHolds(s.Live, s.want) {
				a.Remember(key, s.want, wantContent, s.Live, "")
				return s.Live, ResultUnchanged, nil
			}
			update = wireform.Merge(s.Live, s.want, stale)
			s.owner.record(update)
		}
	}
	wait()
	if err := a.client.Update(ctx, update, strict); err != nil {
		return nil, "", fmt.Errorf("update %s %s: %w", s.GVK.Kind, displayName(s.Key), err)
	}
	a.Remember(key, s.want, wantContent, update, s.Live.GetResourceVersion())
	switch {
	case update.GetResourceVersion() == s.Live.GetResourceVersion():
		// The server stored nothing new: what differed was only its own
		// defaults, which the memory now knows (after a restart, say).
		return update, ResultUnchanged, nil
	case s.recalled.SameDesired:
		// The desired state did not change since it was last in sync, so
		// somebody else changed the object.
		return update, ResultOverwritten, nil
	}
	return update, ResultUpdated, nil
}

// storesAsIs reports whether the API server, sent update (observed with the
// desired content), would store observed's content as it is: a server-side
// dry run.
func (a *applier) storesAsIs(ctx context.Context, update, observed *unstructured.Unstructured) (bool, error) {
	dry := update.DeepCopy()
	if err := a.client.Update(ctx, dry, strict, client.DryRunAll); err != nil {
		return false, err
	}
	return wireform.Equal(wireform.Content(dry), wireform.Content(observed)), nil
}

// displayName is an object's name, with its namespace when it has one.
func displayName(key types.NamespacedName) string {
	if key.Namespace == "" {
		return key.Name
	}
	return key.String()
}

// deleteOutcome is what deleteSame found.
type deleteOutcome int

const (
	// deletedNow: the object read was deleted by this call.
	deletedNow deleteOutcome = iota
	// alreadyGone: there was none (deleted meanwhile).
	alreadyGone
	// replaced: another object of that name took its place meanwhile
	// (the UID precondition failed); it was not deleted.
	replaced
)

// deleteSame deletes obj, of kind gvk, if it is still the object read (a
// UID precondition: never one that replaced it meanwhile), and forgets what
// the applier remembered of it unless it was replaced. Every delete of the
// operator goes through it; a missing or replaced object is no error.
func (a *applier) deleteSame(ctx context.Context, gvk schema.GroupVersionKind, obj client.Object) (deleteOutcome, error) {
	err := a.client.Delete(ctx, obj, client.Preconditions{UID: ptr.To(obj.GetUID())})
	switch {
	case apierrors.IsConflict(err):
		return replaced, nil
	case apierrors.IsNotFound(err):
		a.Forget(objectKey{GVK: gvk, Name: client.ObjectKeyFromObject(obj)})
		return alreadyGone, nil
	case err != nil:
		return 0, err
	}
	a.Forget(objectKey{GVK: gvk, Name: client.ObjectKeyFromObject(obj)})
	return deletedNow, nil
}

// OwnedMetadata returns the keys of obj's labels and annotations that the
// API server records in obj's managedFields as set by FieldOwner: the
// metadata the operator owns on it (sorted; nil without managedFields). The
// owner record (OwnerAnnotation, OwnerUIDAnnotation) is not among them: it
// is the operator's bookkeeping, set with every write, not built.
func OwnedMetadata(obj *unstructured.Unstructured) (labels, annotations []string) {
	owned := wireform.Owned(obj, FieldOwner)
	return owned.Labels, slices.DeleteFunc(owned.Annotations, isRecordKey)
}

// staleMetadata finds the labels and annotations of observed that the API
// server records as set by FieldOwner and that want does not build. A key
// somebody else set since is theirs and stays, and so does the owner record
// (set when written, never built: OwnedMetadata leaves it out).
func staleMetadata(observed, want *unstructured.Unstructured) wireform.Keys {
	labels, annotations := OwnedMetadata(observed)
	return wireform.Stale(wireform.Keys{Labels: labels, Annotations: annotations}, want)
}
