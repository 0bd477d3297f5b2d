package hco

import (
	"context"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/hcokit/hcokit/hco/internal/apply"
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
	ResultUnchanged   ApplyResult = apply.Unchanged
	ResultCreated     ApplyResult = apply.Created
	ResultUpdated     ApplyResult = apply.Updated
	ResultOverwritten ApplyResult = apply.Overwritten
	// ResultLeftAlone: somebody else's object holds the name, and the
	// operand leaves it alone (Yielder).
	ResultLeftAlone ApplyResult = apply.LeftAlone
)

// resultDeleted: a step deleted its object.
const resultDeleted ApplyResult = apply.Deleted

// applier is the one path that writes operand objects (package apply).
type applier struct{ apply.Applier }

// objectKey names an object.
type objectKey = memo.Key

func newApplier(c client.Client, reader client.Reader) *applier {
	return &applier{apply.Applier{Client: c, Reader: reader, Memo: memo.New()}}
}

// execute carries out s (apply.Applier.Execute), wait called before each
// request to the API server.
func (a *applier) execute(ctx context.Context, s Step, wait func()) (*unstructured.Unstructured, ApplyResult, error) {
	obj, res, err := a.Execute(ctx, s.write(), wait)
	return obj, ApplyResult(res), err
}

// write is s as the applier carries it out.
func (s Step) write() apply.Write {
	return apply.Write{Verb: string(s.Verb), Key: objectKey{GVK: s.GVK, Name: s.Key}, Desired: s.Desired, Want: s.want, Live: s.Live, Send: s.Send, Recalled: s.recalled,
		Replan: func(live *unstructured.Unstructured) (apply.Write, error) {
			again, err := s.Over(live)
			return again.write(), err
		},
		Resend: func() (*unstructured.Unstructured, bool) {
			stale := staleMetadata(s.Live, s.want)
			if stale.Empty() && wireform.MetadataHolds(s.Live, s.want) {
				return nil, false
			}
			update := wireform.Merge(s.Live, s.want, stale)
			s.owner.record(update)
			return update, true
		}}
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
