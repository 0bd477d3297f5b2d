package hco

import (
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
)

// Event reasons emitted on the HyperConverged.
const (
	EventCreated          = "Created"
	EventUpdated          = "Updated"
	EventOverwritten      = "Overwritten"
	EventDeleted          = "Deleted"
	EventInvalidConfig    = "InvalidConfiguration"
	EventUpgradeCompleted = "UpgradeCompleted"
	EventDeletionBlocked  = "DeletionBlocked"
	EventOwnedElsewhere   = "OwnedByAnotherInstall"
	// EventOperandSkipped: an OnlyWhereServed operand's API is not served.
	EventOperandSkipped = "OperandSkipped"
	// EventLeftAlone: a Yielder leaves alone another's object at its name.
	EventLeftAlone = "LeftAlone"
	// EventSharedListNotUpdated: uninstall could not remove ListMember items.
	EventSharedListNotUpdated = "SharedListNotUpdated"
)

// EventRecorder emits events.k8s.io/v1 Events (the manager's GetEventRecorder).
type EventRecorder interface {
	Eventf(regarding, related runtime.Object, eventtype, reason, action, note string, args ...any)
}

// announce emits an Event per object the operands created or updated, after
// all writes, so Events do not compete with the last of them at the API server.
func (r *Reconciler) announce(hc *hcov1.HyperConverged, outcomes []operandOutcome) {
	for _, o := range outcomes {
		for _, w := range o.writes {
			r.announceWrite(hc, w.kind, w.obj, w.result)
		}
	}
}

func (r *Reconciler) announceWrite(hc *hcov1.HyperConverged, kind string, obj client.Object, res ApplyResult) {
	name := obj.GetName()
	switch res {
	case ResultCreated:
		r.events.Eventf(hc, obj, corev1.EventTypeNormal, EventCreated, "Create", "Created %s %s", kind, name)
	case ResultUpdated:
		r.events.Eventf(hc, obj, corev1.EventTypeNormal, EventUpdated, "Update", "Updated %s %s", kind, name)
	case ResultLeftAlone:
		r.events.Eventf(hc, obj, corev1.EventTypeWarning, EventLeftAlone, "Create",
			"Left %s %s as it is: it is not the operator's (no %s=%s label, no owner record); delete it for the operator's to be made", kind, name, LabelManagedBy, ManagedByValue)
	case ResultOverwritten:
		r.events.Eventf(hc, obj, corev1.EventTypeWarning, EventOverwritten, "Update", "Overwrote an out-of-band change to %s %s", kind, name)
		if r.metrics != nil {
			r.metrics.OutOfBandModifications.WithLabelValues(strings.ToLower(kind) + "/" + name).Inc()
		}
	}
}

func (r *Reconciler) observe(operand string, result ApplyResult, start time.Time) {
	if r.metrics == nil {
		return
	}
	r.metrics.OperandReconciles.WithLabelValues(operand, string(result)).Inc()
	r.metrics.OperandReconcileSeconds.WithLabelValues(operand).Observe(r.now().Sub(start).Seconds())
}
