package hco

import (
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
)

// Render returns the desired objects of every enabled operand in reg, in
// registration order, jsonpatch annotations applied (see DesiredObjects).
// The first operand error stops it; the error names the operand. Without
// a cluster, facts are OfflineFacts.
func Render(reg *Registry, hc *hcov1.HyperConverged, facts Facts) ([]client.Object, error) {
	var out []client.Object
	for _, op := range reg.Operands() {
		objs, err := DesiredObjects(op, hc, facts)
		if err != nil {
			return nil, fmt.Errorf("operand %s: %w", op.Name(), err)
		}
		out = append(out, objs...)
	}
	return out, nil
}
