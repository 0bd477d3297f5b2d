package apply

import (
	"context"
	"fmt"

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

// The verbs of a Write (hco.Verb's values).
const (
	Create  = "create"
	Update  = "update"
	Keep    = "keep"
	Delete  = "delete"
	Replace = "replace"
	Leave   = "leave"
)

// What a Write did (hco.ApplyResult's values).
const (
	Unchanged   = "unchanged"
	Created     = "created"
	Updated     = "updated"
	Overwritten = "overwritten"
	LeftAlone   = "left-alone"
	Deleted     = "deleted"
)

// Write is one planned write (hco.Step): Verb on the object at Key, built
// as Desired (Want with the values kept as found), held by the cluster as
// Live, Send what is sent, Recalled what the memo said when it was planned.
type Write struct {
	Verb                      string
	Key                       memo.Key
	Desired, Want, Live, Send *unstructured.Unstructured
	Recalled                  memo.Recalled
	// Replan plans the write again over live, found at Key when a create
	// met the object (its labels, which the cache selects by, edited away).
	Replan func(live *unstructured.Unstructured) (Write, error)
	// Resend is the update to send over Live when its content is what the
	// API server stores from Want (a dry run said so): false when Live
	// carries the metadata as well.
	Resend func() (*unstructured.Unstructured, bool)
}

// strict makes the API server refuse a field the operand's CRD does not
// know rather than drop it silently: a jsonpatch that sets one is reported
// (InvalidConfiguration, naming the annotation), not lost.
const strict = client.FieldValidation(metav1.FieldValidationStrict)

// Applier writes as Client, reads past the cache with Reader (an object the
// cache cannot see), and remembers in its Memo. An object the Memo does not
// know (another manager made it, or this process has not written it yet)
// whose content differs only by what the operator does not set is asked
// about once, with a server-side dry run of the update: no write when
// nothing would change.
type Applier struct {
	Client client.Client
	Reader client.Reader
	*memo.Memo
}

// Execute carries out w and returns the object as stored and what it did.
// wait is called before each request to the API server.
//
//   - create: a create; when the object exists after all, it is read past
//     the cache and the write planned again over it (Replan).
//   - update: the update, after a server-side dry run when the memo does not
//     know the object and its content differs only by what the operator does
//     not set (the difference may be the API server's defaults: then nothing
//     is written).
//   - keep: nothing sent; the memo records the object in sync.
//   - delete: a delete with a UID precondition (DeleteSame).
//   - replace: that delete, then the create.
//   - leave: nothing sent; LeftAlone the first time the object is left.
func (a *Applier) Execute(ctx context.Context, w Write, wait func()) (*unstructured.Unstructured, string, error) {
	kind, name := w.Key.GVK.Kind, DisplayName(w.Key.Name)
	switch w.Verb {
	case Create:
		wait()
		err := a.Client.Create(ctx, w.Send, strict)
		if err == nil {
			a.Remember(w.Key, w.Desired, wireform.Content(w.Desired), w.Send, "")
			return w.Send, Created, nil
		}
		if !apierrors.IsAlreadyExists(err) {
			return nil, "", fmt.Errorf("create %s %s: %w", kind, name, err)
		}
		live := &unstructured.Unstructured{}
		live.SetGroupVersionKind(w.Key.GVK)
		wait()
		if err := a.Reader.Get(ctx, w.Key.Name, live); err != nil {
			return nil, "", fmt.Errorf("get %s %s: %w", kind, name, err)
		}
		if w, err = w.Replan(live); err != nil {
			return nil, "", err
		}
		return a.Execute(ctx, w, wait)
	case Replace:
		if w.Live.GetDeletionTimestamp() != nil {
			// Still going (finalizers, a foreground deletion): its
			// deletion's event brings the create.
			return w.Live, Unchanged, nil
		}
		wait()
		switch gone, err := a.DeleteSame(ctx, w.Key.GVK, w.Live); {
		case err != nil:
			return nil, "", fmt.Errorf("delete %s %s to create it again (its spec.selector cannot change): %w", kind, name, err)
		case gone == Replaced:
			return w.Live, Unchanged, nil // the next reconcile plans over the new one
		}
		wait()
		if err := a.Client.Create(ctx, w.Send, strict); err != nil {
			return nil, "", fmt.Errorf("create %s %s again (its spec.selector cannot change): %w", kind, name, err)
		}
		a.Remember(w.Key, w.Want, wireform.Content(w.Want), w.Send, "")
		return w.Send, Updated, nil
	case Leave:
		if a.Leave(w.Key, w.Desired, w.Live) {
			return w.Live, Unchanged, nil
		}
		return w.Live, LeftAlone, nil
	case Keep:
		switch {
		case !w.Recalled.Fast:
			a.Remember(w.Key, w.Want, wireform.Content(w.Want), w.Live, "")
		case w.Recalled.Rebuilt:
			a.BuiltAgain(w.Key, w.Desired)
		}
		return w.Live, Unchanged, nil
	case Delete:
		wait()
		switch gone, err := a.DeleteSame(ctx, w.Key.GVK, w.Live); {
		case err != nil:
			return nil, "", fmt.Errorf("delete %s %s: %w", kind, name, err)
		case gone != DeletedNow:
			return w.Live, Unchanged, nil
		}
		return w.Live, Deleted, nil
	}
	update, wantContent := w.Send, wireform.Content(w.Want)
	if !w.Recalled.Known && wireform.Within(wantContent, wireform.Content(w.Live)) {
		wait()
		dry := update.DeepCopy()
		if err := a.Client.Update(ctx, dry, strict, client.DryRunAll); err != nil {
			return nil, "", fmt.Errorf("update %s %s (dry run): %w", kind, name, err)
		}
		if wireform.Equal(wireform.Content(dry), wireform.Content(w.Live)) {
			var write bool
			if update, write = w.Resend(); !write {
				a.Remember(w.Key, w.Want, wantContent, w.Live, "")
				return w.Live, Unchanged, nil
			}
		}
	}
	wait()
	if err := a.Client.Update(ctx, update, strict); err != nil {
		return nil, "", fmt.Errorf("update %s %s: %w", kind, name, err)
	}
	a.Remember(w.Key, w.Want, wantContent, update, w.Live.GetResourceVersion())
	switch {
	case update.GetResourceVersion() == w.Live.GetResourceVersion():
		// The server stored nothing new: what differed was only its own
		// defaults, which the memo now knows (after a restart, say).
		return update, Unchanged, nil
	case w.Recalled.SameDesired:
		// The desired state did not change since it was last in sync, so
		// somebody else changed the object.
		return update, Overwritten, nil
	}
	return update, Updated, nil
}

// DeleteOutcome is what DeleteSame found.
type DeleteOutcome int

const (
	// DeletedNow: the object read was deleted by this call.
	DeletedNow DeleteOutcome = iota
	// AlreadyGone: there was none (deleted meanwhile).
	AlreadyGone
	// Replaced: another object of that name took its place meanwhile (the
	// UID precondition failed); it was not deleted.
	Replaced
)

// DeleteSame deletes obj, of kind gvk, if it is still the object read (a
// UID precondition: never one that replaced it meanwhile), and forgets what
// the memo holds of it unless it was replaced. Every delete of the operator
// goes through it; a missing or replaced object is no error.
func (a *Applier) DeleteSame(ctx context.Context, gvk schema.GroupVersionKind, obj client.Object) (DeleteOutcome, error) {
	err := a.Client.Delete(ctx, obj, client.Preconditions{UID: ptr.To(obj.GetUID())})
	switch {
	case apierrors.IsConflict(err):
		return Replaced, nil
	case apierrors.IsNotFound(err):
		a.Forget(memo.Key{GVK: gvk, Name: client.ObjectKeyFromObject(obj)})
		return AlreadyGone, nil
	case err != nil:
		return 0, err
	}
	a.Forget(memo.Key{GVK: gvk, Name: client.ObjectKeyFromObject(obj)})
	return DeletedNow, nil
}

// DisplayName is an object's name, with its namespace when it has one.
func DisplayName(key types.NamespacedName) string {
	if key.Namespace == "" {
		return key.Name
	}
	return key.String()
}
