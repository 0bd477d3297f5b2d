package operands

import (
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/operands/stock"
)

// AddToScheme registers the types of every stock operand that has its own
// (hco.SchemeAdder): KubeVirt (and the rest of kubevirt.io/v1), CDI, SSP,
// NetworkAddonsConfig, HostPathProvisioner, MigController,
// FileRestoreOperator and AAQ, and on OpenShift's side the Route, the
// ConsoleCLIDownload, the ConsoleQuickStart and the ImageStream.
func AddToScheme(s *runtime.Scheme) error {
	for _, op := range stock.Operands() {
		if a, ok := op.(hco.SchemeAdder); ok {
			if err := a.AddToScheme(s); err != nil {
				return err
			}
		}
	}
	return nil
}
