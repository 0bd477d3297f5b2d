package validation

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	hcov1 "github.com/hcokit/hcokit/api/v1"
)

// Workloads is what the cluster holds of one workload kind: how many objects
// and one of them, as "namespace/name". The caller counts them.
type Workloads struct {
	// Kind is the singular kind, e.g. "VirtualMachine".
	Kind    string
	Count   int64
	Example string
	// AtLeast says Count is a lower bound: the server did not count them all.
	AtLeast bool
}

// String describes the workloads for a denial message.
func (w Workloads) String() string {
	kind := w.Kind
	if w.Count != 1 {
		kind += "s"
	}
	if w.AtLeast {
		return fmt.Sprintf("at least %d %s, e.g. %s", w.Count, kind, w.Example)
	}
	return fmt.Sprintf("%d %s, e.g. %s", w.Count, kind, w.Example)
}

// describe lists the kinds with a non-zero count; ok is false when there is none.
func describe(ws []Workloads) (string, bool) {
	var parts []string
	for _, w := range ws {
		if w.Count > 0 {
			parts = append(parts, w.String())
		}
	}
	return strings.Join(parts, " and "), len(parts) > 0
}

// BlocksDeletion reports whether uninstall strategy s refuses deletion while
// workloads exist. Unset means the default, BlockUninstallIfWorkloadsExist.
func BlocksDeletion(s hcov1.HyperConvergedUninstallStrategy) bool {
	return s != hcov1.UninstallStrategyRemoveWorkloads
}

// Deletion checks the rule for deleting hc given the workloads in the
// cluster: refused while any exist and the uninstall strategy blocks.
func Deletion(hc *hcov1.HyperConverged, ws []Workloads) field.ErrorList {
	if !BlocksDeletion(hc.Spec.Deployment.UninstallStrategy) {
		return nil
	}
	what, found := describe(ws)
	if !found {
		return nil
	}
	return field.ErrorList{field.Forbidden(field.NewPath("spec", "deployment", "uninstallStrategy"), fmt.Sprintf(
		"cannot delete the HyperConverged while uninstallStrategy is %s and workloads exist: found %s; "+
			"delete them first, or set spec.deployment.uninstallStrategy to %s to delete them together with the HyperConverged",
		hcov1.UninstallStrategyBlockUninstallIfWorkloadsExist, what, hcov1.UninstallStrategyRemoveWorkloads))}
}

// WorkloadPlacementUpdate checks the rule for changing
// spec.deployment.nodePlacements.workload given the workloads in the cluster: refused
// while any exist, since the pods serving them would move away.
func WorkloadPlacementUpdate(old, updated *hcov1.HyperConverged, ws []Workloads) field.ErrorList {
	if !WorkloadPlacementChanged(old, updated) {
		return nil
	}
	what, found := describe(ws)
	if !found {
		return nil
	}
	return field.ErrorList{field.Forbidden(field.NewPath("spec", "deployment", "nodePlacements", "workload"), fmt.Sprintf(
		"cannot change while workloads exist, since the pods serving them would move: found %s; "+
			"revert the change, or delete every VirtualMachine and DataVolume first", what))}
}
