package hco

import (
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"

	"github.com/hcokit/hcokit/hcostatus"
)

// namedOperand is an operand with only a name, for tests of the reconciler's
// pure parts.
type namedOperand string

func (n namedOperand) Name() string           { return string(n) }
func (n namedOperand) Kinds() []client.Object { return []client.Object{&corev1.ConfigMap{}} }
func (n namedOperand) Desired(*hcov1.HyperConverged, Facts) ([]client.Object, error) {
	return nil, nil
}
func (n namedOperand) Status([]client.Object) hcostatus.Component {
	return hcostatus.NotFound(string(n))
}
