package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os/signal"
	"strings"
	"syscall"

	"github.com/go-logr/logr"
	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/extensions"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/preview"
)

// diffUsage heads the help of the diff subcommand.
const diffUsage = `Usage: hco-operator diff [-f FILE] [flags]
   or: kubectl hco diff [-f FILE] [flags]

Shows what the operator would change in every operand object (KubeVirt, CDI,
NetworkAddonsConfig, SSP, ...) before it happens: one unified diff per object,
in kubectl diff's format, between the object as it is and as the API server
would store it after the operator's write.

With -f, for the HyperConverged in FILE ("-" reads stdin), sent to the API
server as a server-side dry-run update of the live one (its defaults,
conversion and webhooks apply; their warnings and refusals are printed as
given). Without -f, for the live HyperConverged: from a new release's binary,
the upgrade preview; from the installed one, the drift the operator is about
to revert.

Read-only: every write is a server-side dry run. The environment (operands,
images, SMBIOS, machine types, version) is the installed operator's, read
from its Deployment (--operator-deployment); without one, this process's
variables (as the operator reads them) and flags. Flags given here win.
The console's quick starts and dashboards and the golden images' image
streams (OpenShift only), which the operator reads from directories of its
image, are left out unless --quickstart-dir, --dashboard-dir and
--imagestream-dir give those directories here.

KUBECTL_EXTERNAL_DIFF selects the diff program, as for kubectl diff.
Exit status: 0 no differences, 1 differences, >1 an error.

Flags:
`

// defaultOperatorDeployment is the operator's Deployment in config/manager.
const defaultOperatorDeployment = "hco-operator"

// exitStatus is an error that sets the process's exit status; err, when
// not nil, is printed first.
type exitStatus struct {
	code int
	err  error
}

func (e *exitStatus) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitStatus) Unwrap() error { return e.err }

// diffOptions are the diff subcommand's own flags.
type diffOptions struct {
	file, kubeconfig, deployment string
	// content are the directories of the content modules' files, which
	// the operator reads from its image: given here, or left out.
	content contentDirs
}

// diffCommand is the diff subcommand. Its errors exit with status 2 (a
// failing diff program's status plus one), as kubectl diff's do; a diff
// exits 1.
func diffCommand(args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	err := runDiff(args, getenv, stdin, stdout, stderr)
	var status *exitStatus
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp), errors.Is(err, errUsage), errors.As(err, &status):
		return err
	case errors.Is(err, preview.ErrDiffFailed):
		var exit interface{ ExitCode() int }
		if errors.As(err, &exit) {
			return &exitStatus{code: exit.ExitCode() + 1, err: err}
		}
	}
	return &exitStatus{code: 2, err: err}
}

func runDiff(args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	// This process's configuration, as the operator would read it here,
	// then the flags given.
	base, _, _, err := parse(nil, getenv)
	if err != nil {
		return err
	}
	opts, c, err := parseDiff(args, base, stderr)
	if err != nil {
		return err
	}
	ctrl.SetLogger(logr.Discard()) // the shared setup (requireMonitoring) logs for the operator; a diff says what matters on stderr
	restConfig, err := restConfigFor(opts.kubeconfig)
	if err != nil {
		return err
	}
	restConfig = rest.CopyConfig(restConfig)
	restConfig.WarningHandler = rest.NewWarningWriter(stderr, rest.WarningWriterOptions{Deduplicate: true})
	k, err := clusterClient(restConfig)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	if opts.deployment != "" {
		d := &appsv1.Deployment{}
		key := client.ObjectKey{Namespace: c.env.Namespace, Name: opts.deployment}
		switch err := k.Get(ctx, key, d); {
		case apierrors.IsNotFound(err):
			fmt.Fprintf(stderr, "hco-operator diff: no operator Deployment %s: the environment is this process's variables and flags\n", key)
		case err != nil:
			return fmt.Errorf("read the operator's Deployment %s for its environment (--operator-deployment= uses this process's instead): %w", key, err)
		default:
			installed, err := deploymentConfig(d)
			if err != nil {
				return err
			}
			if opts, c, err = parseDiff(args, installed, stderr); err != nil {
				return err
			}
		}
	}

	reg, err := stockRegistry(c.operands)
	if err != nil {
		return err
	}
	if err := requireMonitoring(reg, c.env, restConfig); err != nil {
		return err
	}
	leftOut, err := leaveOutContent(reg, opts.content)
	if err != nil {
		return err
	}
	if _, err := withContent(reg, opts.content); err != nil {
		return err
	}
	// The platform defaults as the operator applies them: a platform
	// default whose API is not served is skipped, not waiting.
	openShift, err := hco.OpenShift(k.RESTMapper())
	if err != nil {
		return err
	}
	if err := applyPlatformDefaults(reg, openShift, c.operands); err != nil {
		return err
	}
	cluster, err := preview.NewCluster(k, reg, c.env, extensions.Stock()...)
	if err != nil {
		return err
	}
	var hc *hcov1.HyperConverged
	if opts.file != "" {
		obj, err := readHyperConverged(opts.file, stdin)
		if err != nil {
			return err
		}
		if hc, err = cluster.DryRunHyperConverged(ctx, obj); err != nil {
			return fmt.Errorf("%s: %w", opts.file, err)
		}
	} else if hc, err = cluster.LiveHyperConverged(ctx); err != nil {
		return err
	}
	facts, err := cluster.Facts(ctx, hc)
	if err != nil {
		return err
	}
	if facts.Platform.OpenShift && len(leftOut) > 0 {
		fmt.Fprintf(stderr, "hco-operator diff: %s left out: the operator reads their content from the directories of its image (--quickstart-dir, --dashboard-dir); give them here to include them\n", strings.Join(leftOut, ", "))
	}
	objs, notes, err := cluster.Changes(ctx, hc, facts)
	for _, n := range notes {
		fmt.Fprintln(stderr, "hco-operator diff:", n)
	}
	if err != nil {
		return err
	}
	differs, err := preview.Diff(ctx, stdout, stderr, objs, getenv("KUBECTL_EXTERNAL_DIFF"))
	if err != nil {
		return err
	}
	if differs {
		return &exitStatus{code: 1}
	}
	return nil
}

// parseDiff parses the diff subcommand's flags over base, the operator's
// configuration (this process's, or the installed operator's): a flag given
// wins, one not given keeps base's value.
func parseDiff(args []string, base config, stderr io.Writer) (diffOptions, config, error) {
	o := diffOptions{deployment: defaultOperatorDeployment}
	c := base
	c.env.Images = maps.Clone(base.env.Images)
	fs := flag.NewFlagSet("hco-operator diff", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), diffUsage)
		fs.PrintDefaults()
	}
	fs.StringVar(&o.file, "f", "", `HyperConverged manifest (YAML or JSON) to diff; "-" reads stdin. Without it, the live HyperConverged.`)
	addKubeconfigFlag(fs, &o.kubeconfig)
	fs.StringVar(&o.deployment, "operator-deployment", o.deployment, "The operator's Deployment in --namespace, whose container's arguments and environment are the operator's configuration; empty: this process's variables and flags.")
	addContentFlags(fs, &o.content, contentDirs{})
	fs.StringVar(&c.env.Namespace, "namespace", c.env.Namespace, "Operator namespace, where the HyperConverged lives (env OPERATOR_NAMESPACE).")
	fs.StringVar(&c.operands, "operands", c.operands, "Comma-separated operand modules the operator runs, of "+allOperands+".")
	fs.StringVar(&c.env.CommonTemplatesNamespace, "common-templates-namespace", c.env.CommonTemplatesNamespace, "Default namespace of SSP's common templates.")
	fs.BoolVar(&c.env.KVMEmulation, "kvm-emulation", c.env.KVMEmulation, "A cluster without hardware virtualization (env KVM_EMULATION).")
	fs.StringVar(&c.env.Version, "operator-version", c.env.Version, "Operator version for the app.kubernetes.io/version label (env HCO_KV_IO_VERSION, or its alias HCO_VERSION).")
	// The image flags default to base's images, whatever set them.
	addImageFlags(fs, &c.env, func(variable string) string {
		for _, img := range operandImages() {
			if img.Variable == variable {
				return base.env.Images[img.Key]
			}
		}
		return ""
	})
	if err := fs.Parse(args); err != nil {
		return o, c, usageError(err)
	}
	if fs.NArg() > 0 {
		return o, c, fmt.Errorf("%w: diff: unexpected arguments %q; the manifest goes in -f", errUsage, fs.Args())
	}
	return o, c, nil
}

// deploymentConfig is the configuration of the operator d runs, as the
// operator reads it in its pod: the arguments and environment of d's
// container named hco-operator (else its first), parsed by parse. A
// variable whose value comes from elsewhere than the pod's namespace (a
// ConfigMap, a Secret) is an error naming it: diff does not read those.
func deploymentConfig(d *appsv1.Deployment) (config, error) {
	where := fmt.Sprintf("Deployment %s/%s", d.Namespace, d.Name)
	containers := d.Spec.Template.Spec.Containers
	if len(containers) == 0 {
		return config{}, fmt.Errorf("%s has no container", where)
	}
	ct := containers[0]
	for _, c := range containers {
		if c.Name == defaultOperatorDeployment {
			ct = c
		}
	}
	where += ", container " + ct.Name
	if len(ct.EnvFrom) > 0 {
		return config{}, fmt.Errorf("%s: envFrom is not read by diff; run it with --operator-deployment= and give the environment as variables and flags", where)
	}
	vars := map[string]string{}
	for _, e := range ct.Env {
		switch {
		case e.ValueFrom == nil:
			vars[e.Name] = e.Value
		case e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "metadata.namespace":
			vars[e.Name] = d.Namespace
		default:
			return config{}, fmt.Errorf("%s: env %s takes its value from a source diff does not read; run it with --operator-deployment= and give the environment as variables and flags", where, e.Name)
		}
	}
	args := ct.Args
	if len(args) > 0 && args[0] == "operator" {
		args = args[1:]
	}
	c, _, _, err := parse(args, func(k string) string { return vars[k] })
	if err != nil {
		return config{}, fmt.Errorf("%s: %w", where, err)
	}
	return c, nil
}

// readHyperConverged reads the one document of file ("-": stdin), YAML or
// JSON.
func readHyperConverged(file string, stdin io.Reader) (*unstructured.Unstructured, error) {
	data, err := readManifest(file, stdin)
	if err != nil {
		return nil, err
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var docs []map[string]any
	for {
		var doc map[string]any
		if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("%s: not YAML or JSON: %w", file, err)
		}
		if len(doc) > 0 {
			docs = append(docs, doc)
		}
	}
	if len(docs) != 1 {
		return nil, fmt.Errorf("%s: %d documents; want exactly one HyperConverged", file, len(docs))
	}
	return &unstructured.Unstructured{Object: docs[0]}, nil
}
