package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/extensions"
	"github.com/hcokit/hcokit/extensions/olm"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hco/manager"
	"github.com/hcokit/hcokit/operands/dashboard"
	"github.com/hcokit/hcokit/operands/imagestream"
	"github.com/hcokit/hcokit/operands/quickstart"
	"github.com/hcokit/hcokit/operands/stock"
)

func main() {
	name := filepath.Base(os.Args[0])
	err := dispatchAs(name, os.Args[1:], os.Getenv)
	var status *exitStatus
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		// -h printed the usage: that is a success.
	case errors.Is(err, errUsage):
		os.Exit(2) // the flag package has said what is wrong
	case errors.As(err, &status):
		if status.err != nil {
			fmt.Fprintln(os.Stderr, name+":", status.err)
		}
		os.Exit(status.code)
	default:
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(1)
	}
}

// pluginName is the binary's name as a kubectl plugin: installed (linked
// or copied) under it on PATH, it runs as `kubectl hco diff`.
const pluginName = "kubectl-hco"

// errUsage marks a command line the flag package refused and explained.
var errUsage = errors.New("usage")

// version is the operator's version, set at build time:
// go build -ldflags "-X main.version=1.2.3" (the Makefile does).
var version = ""

// commands is the usage line of the subcommands.
const commands = `Commands:
  operator   reconcile the HyperConverged (the default when the first argument is a flag or absent)
  webhook    serve the validating and mutating admission webhooks
  render     print the operand CRs a HyperConverged gives, without a cluster (--diff: what changes between two)
  diff       show what the operator would change in every operand CR, against the cluster, before it does
  status     show whether the virtualization stack is healthy, and if not, why (exit status 1)
  version    print the version`

// dispatchAs is dispatch for the binary invoked as name (its argv[0]'s
// base name). As the kubectl plugin (pluginName) it needs a command: a
// bare `kubectl hco` does not start an operator.
func dispatchAs(name string, args []string, getenv func(string) string) error {
	if name == pluginName && (len(args) == 0 || strings.HasPrefix(args[0], "-")) {
		fmt.Fprintf(os.Stderr, "Usage: kubectl hco COMMAND [flags]\n\n%s\n", commands)
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
			return flag.ErrHelp
		}
		fmt.Fprintln(os.Stderr, "kubectl hco needs a command, e.g. kubectl hco diff -f hc.yaml")
		return errUsage
	}
	return dispatch(args, getenv)
}

// dispatch runs a subcommand, or the operator when the first argument is a flag or absent.
func dispatch(args []string, getenv func(string) string) error {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		switch args[0] {
		case "operator":
			return run(args[1:], getenv)
		case "webhook":
			return runWebhook(args[1:], getenv)
		case "render":
			return renderCommand(args[1:], getenv, os.Stdin, os.Stdout, os.Stderr)
		case "diff":
			return diffCommand(args[1:], getenv, os.Stdin, os.Stdout, os.Stderr)
		case "status":
			return statusCommand(args[1:], getenv, os.Stdout, os.Stderr)
		case "version":
			fmt.Fprintln(os.Stdout, versionString())
			return nil
		default:
			return fmt.Errorf("unknown command %q\n%s", args[0], commands)
		}
	}
	return run(args, getenv)
}

// versionString is the version set at build time, or "(devel)".
func versionString() string {
	if version == "" {
		return "(devel)"
	}
	return version
}

// config is everything read from flags and the environment.
type config struct {
	env                     hco.Environment
	kubeconfig              string
	operands                string
	leaderElect             bool
	metrics                 metricsFlags
	probeAddr               string
	pprofAddr               string
	leaderElectionNamespace string
	content                 contentDirs
	silence                 silenceFlags
}

func parse(args []string, getenv func(string) string) (config, *flag.FlagSet, *zap.Options, error) {
	c := config{env: hco.Environment{
		Namespace:                orDefault(getenv("OPERATOR_NAMESPACE"), hcov1.DefaultNamespace),
		Version:                  operatorVersion(getenv),
		CommonTemplatesNamespace: hco.DefaultCommonTemplatesNamespace,
		KVMEmulation:             getenv("KVM_EMULATION") == "true",
		OperandVersions:          map[string]string{},
		OperatorConditionName:    getenv("OPERATOR_CONDITION_NAME"),
	}}
	if err := stock.ReadKubeVirtEnvironment(&c.env, getenv); err != nil {
		return c, nil, nil, err
	}
	for name, variable := range stock.VersionVariables() {
		if v := getenv(variable); v != "" {
			c.env.OperandVersions[name] = v
		}
	}
	fs := flag.NewFlagSet("hco-operator", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: hco-operator [command] [flags]\n\n%s\n\nFlags of operator:\n", commands)
		fs.PrintDefaults()
	}
	addKubeconfigFlag(fs, &c.kubeconfig)
	fs.BoolVar(&c.leaderElect, "leader-elect", true, "Elect a leader so that only one replica reconciles.")
	addMetricsFlags(fs, &c.metrics)
	fs.StringVar(&c.probeAddr, "health-probe-bind-address", ":8081", "Address of /healthz and /readyz.")
	fs.StringVar(&c.pprofAddr, "pprof-bind-address", "0", `Address of the Go profiler (/debug/pprof); "0" disables it.`)
	fs.StringVar(&c.env.Namespace, "namespace", c.env.Namespace, "Operator namespace, where the HyperConverged lives (env OPERATOR_NAMESPACE).")
	fs.StringVar(&c.leaderElectionNamespace, "leader-election-namespace", "", "Namespace of the leader election Lease (default: --namespace).")
	fs.StringVar(&c.operands, "operands", "", "Comma-separated operand modules to run, of "+allOperands+"; or changes of the default ones (+hpp adds hpp, -aie leaves aie out). Default: "+defaultOperands+
		". An operand named here is required: on plain Kubernetes, SSP is otherwise on only where its API is served.")
	fs.StringVar(&c.env.CommonTemplatesNamespace, "common-templates-namespace", c.env.CommonTemplatesNamespace, "Default namespace of SSP's common templates.")
	addImageFlags(fs, &c.env, getenv)
	addContentFlags(fs, &c.content, upstreamContentDirs)
	addSilenceFlags(fs, &c.silence)
	zapOpts := &zap.Options{}
	zapOpts.BindFlags(fs)
	if err := fs.Parse(args); err != nil {
		return c, fs, zapOpts, usageError(err)
	}
	return c, fs, zapOpts, nil
}

// Variables of the operator's own version: upstream's name (its
// deploy/operator.yaml at 03da3cf), and hcokit's earlier one, an alias that
// counts only when upstream's is unset.
const (
	versionEnv      = "HCO_KV_IO_VERSION"
	versionEnvAlias = "HCO_VERSION"
)

// operatorVersion is the operator's own version, from the environment: it
// labels every object (app.kubernetes.io/version), is KubeVirt's
// productVersion and the HyperConverged's status.versions "operator".
func operatorVersion(getenv func(string) string) string {
	return cmp.Or(getenv(versionEnv), getenv(versionEnvAlias))
}

func run(args []string, getenv func(string) string) error {
	c, _, zapOpts, err := parse(args, getenv)
	if err != nil {
		return err
	}
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(zapOpts)))

	reg, scheme, restConfig, err := clusterSetup(c.operands, c.kubeconfig)
	if err != nil {
		return err
	}
	if err := requireMonitoring(reg, c.env, restConfig); err != nil {
		return err
	}
	content, err := withContent(reg, c.content)
	if err != nil {
		return err
	}
	metricsOpts, err := c.metrics.serverOptions()
	if err != nil {
		return err
	}
	mgr, r, err := manager.New(restConfig, reg, c.env, manager.Options{Manager: ctrl.Options{
		Scheme:                        scheme,
		Metrics:                       metricsOpts,
		HealthProbeBindAddress:        c.probeAddr,
		PprofBindAddress:              c.pprofAddr,
		LeaderElection:                c.leaderElect,
		LeaderElectionID:              "hyperconverged-cluster-operator-lock",
		LeaderElectionNamespace:       orDefault(c.leaderElectionNamespace, c.env.Namespace),
		LeaderElectionReleaseOnCancel: true,
	}, Extensions: extensions.Stock()})
	if err != nil {
		return err
	}
	openShift := r.OpenShift()
	if err := applyPlatformDefaults(reg, openShift, c.operands); err != nil {
		return err
	}
	ctrl.Log.Info("starting hco-operator", "namespace", c.env.Namespace, "version", c.env.Version, "build", versionString(), "operands", reg.Names(), "openShift", openShift)
	if len(content) > 0 {
		ctrl.Log.Info("content read: made on OpenShift only", "quickStarts", content[quickstart.Name], "dashboards", content[dashboard.Name], "imageStreams", content[imagestream.Name])
	}
	if missing := withoutImage(reg.Names(), c.env); len(missing) > 0 {
		// Said once, here: these operands want nothing, so no condition names them.
		ctrl.Log.Info("operands without an image deploy nothing; set the variable (operand, variable pairs)", "operands", missing)
	}
	if k := silenceKeeper(c.silence, openShift, restConfig); k != nil {
		if err := mgr.Add(k); err != nil {
			return err
		}
	}
	ctx := ctrl.SetupSignalHandler()
	// Under OLM, as upstream's main: not upgradeable while starting, until
	// the first reconcile says otherwise.
	if err := olm.Starting(ctx, mgr.GetAPIReader(), mgr.GetClient(), c.env); err != nil {
		return err
	}
	return mgr.Start(ctx)
}

// usageError wraps a flag parse error so that main neither prints it again
// nor treats -h as a failure.
func usageError(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return err
	}
	return fmt.Errorf("%w: %w", errUsage, err)
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
