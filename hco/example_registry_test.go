package hco_test

import (
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/operands/cdi"
	"github.com/hcokit/hcokit/operands/cnao"
	"github.com/hcokit/hcokit/operands/hpp"
	kubevirtop "github.com/hcokit/hcokit/operands/kubevirt"
	"github.com/hcokit/hcokit/operands/ssp"
)

// quietSSP is a distribution's SSP variant: the stock operand with one
// method overridden.
type quietSSP struct{ ssp.Operand }

func (quietSSP) Desired(hc *hcov1.HyperConverged, facts hco.Facts) ([]client.Object, error) {
	facts.CommonTemplatesNamespace = "templates"
	return ssp.Operand{}.Desired(hc, facts)
}

// A distribution assembles its operands in main: the stock ones, then
// replaces and disables by name. Order is registration order, which is the
// apply order.
func ExampleRegistry() {
	reg, err := hco.NewRegistry(kubevirtop.New(), cdi.New(), cnao.New(), ssp.New(), hpp.New())
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := reg.Disable(hpp.Name); err != nil {
		fmt.Println(err)
		return
	}
	if err := reg.Replace(quietSSP{}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("registered:", reg.Names())
	for _, op := range reg.Operands() {
		fmt.Printf("enabled: %s (%T)\n", op.Name(), op)
	}
	fmt.Println(reg.Register(cdi.New()))
	fmt.Println(reg.Disable("hostpath"))
	// Output:
	// registered: [kubevirt cdi cnao ssp hpp]
	// enabled: kubevirt (kubevirt.Operand)
	// enabled: cdi (cdi.Operand)
	// enabled: cnao (cnao.Operand)
	// enabled: ssp (hco_test.quietSSP)
	// register operand "cdi": an operand with that name is already registered; use Replace to swap it
	// operand "hostpath" is not registered (registered: [kubevirt cdi cnao ssp hpp])
}

// Only keeps the named operands, as the stock binary's --operands flag does.
func ExampleRegistry_Only() {
	reg, err := hco.NewRegistry(kubevirtop.New(), cdi.New(), cnao.New(), ssp.New(), hpp.New())
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := reg.Only("kubevirt", "cdi"); err != nil {
		fmt.Println(err)
		return
	}
	for _, op := range reg.Operands() {
		fmt.Println(op.Name())
	}
	// Output:
	// kubevirt
	// cdi
}
