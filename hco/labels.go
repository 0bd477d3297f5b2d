package hco

import (
	hcov1 "github.com/hcokit/hcokit/api/v1"
)

// Label keys and values set on every object an operand creates. They match
// upstream HCO so that existing selectors and dashboards keep working.
const (
	LabelApp       = "app"
	LabelManagedBy = "app.kubernetes.io/managed-by"
	LabelPartOf    = "app.kubernetes.io/part-of"
	LabelComponent = "app.kubernetes.io/component"
	LabelVersion   = "app.kubernetes.io/version"

	ManagedByValue = "hco-operator"
	PartOfValue    = "hyperconverged-cluster"
)

// Component values of the LabelComponent label.
const (
	ComponentCompute    = "compute"
	ComponentStorage    = "storage"
	ComponentNetwork    = "network"
	ComponentSchedule   = "schedule"
	ComponentDeployment = "deployment"
)

// Labels returns the labels of an object that hc owns, for the given component.
func Labels(hc *hcov1.HyperConverged, env Environment, component string) map[string]string {
	l := map[string]string{
		LabelApp:       hc.Name,
		LabelManagedBy: ManagedByValue,
		LabelPartOf:    PartOfValue,
		LabelComponent: component,
	}
	if env.Version != "" {
		l[LabelVersion] = env.Version
	}
	return l
}
