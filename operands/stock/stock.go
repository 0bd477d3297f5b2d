package stock

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/operands/aaq"
	"github.com/hcokit/hcokit/operands/aie"
	"github.com/hcokit/hcokit/operands/cdi"
	"github.com/hcokit/hcokit/operands/clidownload"
	"github.com/hcokit/hcokit/operands/cnao"
	"github.com/hcokit/hcokit/operands/consoleplugin"
	"github.com/hcokit/hcokit/operands/dashboard"
	"github.com/hcokit/hcokit/operands/filerestore"
	"github.com/hcokit/hcokit/operands/hpp"
	"github.com/hcokit/hcokit/operands/imagestream"
	"github.com/hcokit/hcokit/operands/kubevirt"
	"github.com/hcokit/hcokit/operands/migcontroller"
	"github.com/hcokit/hcokit/operands/namespacepolicy"
	"github.com/hcokit/hcokit/operands/netresinjector"
	"github.com/hcokit/hcokit/operands/observability"
	"github.com/hcokit/hcokit/operands/perses"
	"github.com/hcokit/hcokit/operands/priorityclass"
	"github.com/hcokit/hcokit/operands/quickstart"
	"github.com/hcokit/hcokit/operands/ssp"
	"github.com/hcokit/hcokit/operands/virtiowin"
	"github.com/hcokit/hcokit/operands/waspagent"
)

// Default names the operands the stock binary runs unless told otherwise
// (its --operands), in registry order: every stock operand but hpp, which
// is opt-in (config/components/hpp). clidownload, consoleplugin, aie,
// netresinjector and observability stay inert without their images (and
// clidownload's Route, waspagent, virtiowin, consoleplugin, quickstart,
// dashboard, imagestream and perses off OpenShift; perses also where the
// Perses API is not served); aaq wants nothing unless the HyperConverged
// enables it, nor waspagent unless it overcommits memory; quickstart,
// dashboard and imagestream nothing but with the content a distribution
// gives.
func Default() []string {
	return []string{priorityclass.Name, kubevirt.Name, cdi.Name, cnao.Name, aaq.Name, migcontroller.Name, filerestore.Name,
		aie.Name, netresinjector.Name, observability.Name, ssp.Name, clidownload.Name, waspagent.Name, virtiowin.Name, consoleplugin.Name,
		quickstart.Name, dashboard.Name, imagestream.Name, perses.Name, namespacepolicy.Name}
}

// DefaultList is Default as a comma-separated list, as --operands takes it.
func DefaultList() string { return strings.Join(Default(), ",") }

// OpenShiftOnly names the default operands whose component operator runs
// on OpenShift only: SSP (upstream HCO at 03da3cf deploys it on OpenShift
// only; ssp-operator does not run on plain Kubernetes).
func OpenShiftOnly() []string { return []string{ssp.Name} }

// AddOns names the default operands whose API is an add-on's on every
// platform: perses (the Perses operator's, which a cluster has only when
// an add-on installs it; upstream HCO at 03da3cf sets its Perses
// controller up only when the Perses CRDs exist, and reports nothing
// without them).
func AddOns() []string { return []string{perses.Name} }

// PlatformDefaults applies the platform's defaults to reg: the enabled
// AddOns operands, on every platform, and on a cluster that is not
// OpenShift the enabled OpenShiftOnly ones, that required does not name,
// are on only where their API is served (hco.Registry.OnlyWhereServed): an
// SSP, or the Perses dashboards, are made where their CRDs are installed,
// and their absence elsewhere degrades nothing. required are the operands
// an admin asked for by name (the stock binary: named in --operands); they
// degrade the HyperConverged while their API is missing, as OpenShift's
// defaults do.
func PlatformDefaults(reg *hco.Registry, openShift bool, required []string) error {
	enabled := map[string]bool{}
	for _, op := range reg.Operands() {
		enabled[op.Name()] = true
	}
	names := AddOns()
	if !openShift {
		names = append(names, OpenShiftOnly()...)
	}
	for _, name := range names {
		if !enabled[name] || slices.Contains(required, name) {
			continue
		}
		if err := reg.OnlyWhereServed(name); err != nil {
			return err
		}
	}
	return nil
}

// Operands returns a new instance of every stock operand, in registry
// order: upstream HCO's (NewOperandHandler at 03da3cf: the PriorityClass
// first, then KubeVirt, CDI, CNAO, AAQ, the MigController, the
// FileRestoreOperator, the AIE webhook, the network-resources-injector,
// the observability controller), then SSP, the CLI download, the wasp
// agent, virtio-win and the console plugin, which upstream deploys on
// OpenShift only, and hcokit's hpp among them; then the quick starts, the
// dashboards and the image streams, which upstream adds after those on
// OpenShift from its working directory (FirstUseInitiation): here without
// content (a binary gives its own with Registry.Replace, as the stock one
// does from --quickstart-dir, --dashboard-dir and --imagestream-dir); last the Perses
// dashboards (OpenShift only) and the namespace policy, which upstream
// makes from controllers of their own, set up in that order.
func Operands() []hco.Operand {
	return []hco.Operand{priorityclass.New(), kubevirt.New(), cdi.New(), cnao.New(), aaq.New(), migcontroller.New(),
		filerestore.New(), aie.New(), netresinjector.New(), observability.New(), ssp.New(), hpp.New(), clidownload.New(),
		waspagent.New(), virtiowin.New(), consoleplugin.New(), quickstart.New(), dashboard.New(), imagestream.New(),
		perses.New(), namespacepolicy.New()}
}

// VersionVariables names, per stock operand whose component operator
// reports a version, the environment variable of upstream's operator
// Deployment (deploy/operator.yaml at 03da3cf) that gives the version it
// must reach (hco.Environment.OperandVersions); the stock binary reads them.
func VersionVariables() map[string]string {
	return map[string]string{
		kubevirt.Name: "KUBEVIRT_VERSION", cdi.Name: "CDI_VERSION", cnao.Name: "NETWORK_ADDONS_VERSION",
		ssp.Name: "SSP_VERSION", hpp.Name: "HPPO_VERSION", migcontroller.Name: "MIGRATION_OPERATOR_VERSION",
		filerestore.Name: "VM_FILE_RESTORE_OPERATOR_VERSION", aaq.Name: "AAQ_VERSION",
	}
}

// Registry returns a registry of every stock operand in which only those
// named are enabled; without names, those of Default. An unknown name is
// an error that lists the known ones.
func Registry(names ...string) (*hco.Registry, error) {
	reg, err := hco.NewRegistry(Operands()...)
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		names = Default()
	}
	return reg, reg.Only(names...)
}

// ReadKubeVirtEnvironment sets env's SMBIOS and default machine types from
// the variables upstream's deploy/operator.yaml passes: SMBIOS, MACHINETYPE
// (or AMD64_MACHINETYPE), ARM64_MACHINETYPE and S390X_MACHINETYPE. An SMBIOS
// that does not parse is an error naming the variable.
func ReadKubeVirtEnvironment(env *hco.Environment, getenv func(string) string) error {
	env.SMBIOS = getenv("SMBIOS")
	env.MachineTypes = map[string]string{
		"amd64": cmp.Or(strings.TrimSpace(getenv("MACHINETYPE")), getenv("AMD64_MACHINETYPE")),
		"arm64": getenv("ARM64_MACHINETYPE"), "s390x": getenv("S390X_MACHINETYPE"),
	}
	if _, err := kubevirt.SMBIOS(env.SMBIOS); err != nil {
		return fmt.Errorf("environment variable %w", err)
	}
	return nil
}
