package main

import (
	"fmt"
	"os"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/extensions/storedversions"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hco/manager"
	"github.com/hcokit/hcokit/operands"
	"github.com/hcokit/hcokit/operands/aaq"
	"github.com/hcokit/hcokit/operands/cdi"
	"github.com/hcokit/hcokit/operands/clidownload"
	"github.com/hcokit/hcokit/operands/cnao"
	"github.com/hcokit/hcokit/operands/filerestore"
	"github.com/hcokit/hcokit/operands/hpp"
	"github.com/hcokit/hcokit/operands/kubevirt"
	"github.com/hcokit/hcokit/operands/migcontroller"
	"github.com/hcokit/hcokit/operands/namespacepolicy"
	"github.com/hcokit/hcokit/operands/priorityclass"
	"github.com/hcokit/hcokit/operands/ssp"
)

func main() {
	ctrl.SetLogger(zap.New())
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "acme-virt-operator:", err)
		os.Exit(1)
	}
}

// newRegistry is the distribution's choice of operands.
func newRegistry() (*hco.Registry, error) {
	reg, err := hco.NewRegistry(priorityclass.New(), kubevirt.New(), cdi.New(), cnao.New(), aaq.New(), migcontroller.New(),
		filerestore.New(), ssp.New(), hpp.New(), clidownload.New(), namespacepolicy.New())
	if err != nil {
		return nil, err
	}
	if err := reg.Disable(hpp.Name); err != nil { // Acme ships its own storage.
		return nil, err
	}
	if err := reg.Disable(filerestore.Name); err != nil { // Acme does not ship the VM file restore operator.
		return nil, err
	}
	if err := reg.Replace(acmeSSP{}); err != nil { // same name, same position
		return nil, err
	}
	return reg, reg.Register(distributionInfo{})
}

func run() error {
	env := hco.Environment{Namespace: hcov1.DefaultNamespace, Version: distributionVersion,
		Images: map[string]string{clidownload.ImageKey: downloadImage}}
	if ns := os.Getenv("OPERATOR_NAMESPACE"); ns != "" { // read once, here
		env.Namespace = ns
	}
	reg, err := newRegistry()
	if err != nil {
		return err
	}
	scheme, err := hco.NewScheme(operands.AddToScheme)
	if err != nil {
		return err
	}
	// The platform features outside the core it wants: the stored-version
	// migration only (no OLM, no descheduler metric; extensions.Stock() is
	// the stock binary's set).
	mgr, _, err := manager.New(ctrl.GetConfigOrDie(), reg, env, manager.Options{Manager: ctrl.Options{Scheme: scheme},
		Extensions: []hco.Extension{storedversions.New()}})
	if err != nil {
		return err
	}
	return mgr.Start(ctrl.SetupSignalHandler())
}
