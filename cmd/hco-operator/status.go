package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/yaml"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/stackstatus"
)

// statusUsage heads the help of the status subcommand.
const statusUsage = `Usage: hco-operator status [flags]
   or: kubectl hco status [flags]

Shows whether the virtualization stack is healthy, and if not, why: the
HyperConverged, then each component (its CR and observed version, the
workloads hcokit made, the component operator's Deployment) as the operator
judges it, the HyperConverged's conditions, and the first failure in words.

Read-only: gets and lists (the reader roles of config/rbac/status_role.yaml
suffice). Components not installed are left out.

Exit status: 0 healthy, 1 not healthy, 2 an error.

Flags:
`

// statusOptions are the status subcommand's flags.
type statusOptions struct {
	kubeconfig, namespace, output string
	watch                         bool
	interval                      time.Duration
}

// statusCommand is the status subcommand.
func statusCommand(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	err := runStatus(args, getenv, stdout, stderr)
	var status *exitStatus
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp), errors.Is(err, errUsage), errors.As(err, &status):
		return err
	}
	return &exitStatus{code: 2, err: err}
}

func runStatus(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	o, err := parseStatus(args, getenv, stderr)
	if err != nil {
		return err
	}
	ctrl.SetLogger(logr.Discard())
	restConfig, err := restConfigFor(o.kubeconfig)
	if err != nil {
		return err
	}
	k, err := clusterClient(restConfig)
	if err != nil {
		return err
	}
	// Every stock operand: whichever have objects are shown.
	reg, err := stockRegistry(allOperands)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	color := o.output == "text" && terminal(stdout) && getenv("NO_COLOR") == "" && getenv("TERM") != "dumb"
	for {
		s, err := stackstatus.Read(ctx, k, reg, o.namespace)
		if s == nil {
			return err
		}
		if err != nil {
			fmt.Fprintln(stderr, "hco-operator status:", err)
		}
		var out bytes.Buffer
		if err := writeStack(&out, s, o.output, color); err != nil {
			return err
		}
		if o.watch && color {
			out = *bytes.NewBuffer(append([]byte("\x1b[H\x1b[2J"), out.Bytes()...)) // clear the screen
		}
		if _, err := stdout.Write(out.Bytes()); err != nil {
			return err
		}
		if !o.watch {
			if !s.Healthy {
				return &exitStatus{code: 1}
			}
			return nil
		}
		select {
		case <-ctx.Done():
			if !s.Healthy {
				return &exitStatus{code: 1}
			}
			return nil
		case <-time.After(o.interval):
		}
	}
}

// writeStack writes s as text, JSON or YAML (one document each; a stream of
// them with --watch).
func writeStack(w io.Writer, s *stackstatus.Stack, output string, color bool) error {
	switch output {
	case "json":
		raw, err := json.MarshalIndent(s, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", raw)
		return err
	case "yaml":
		raw, err := yaml.Marshal(s)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "---\n%s", raw)
		return err
	}
	return stackstatus.Write(w, s, color)
}

// terminal reports whether w is a terminal.
func terminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

func parseStatus(args []string, getenv func(string) string, stderr io.Writer) (statusOptions, error) {
	o := statusOptions{namespace: orDefault(getenv("OPERATOR_NAMESPACE"), hcov1.DefaultNamespace), output: "text", interval: 2 * time.Second}
	fs := flag.NewFlagSet("hco-operator status", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), statusUsage)
		fs.PrintDefaults()
	}
	addKubeconfigFlag(fs, &o.kubeconfig)
	fs.StringVar(&o.namespace, "namespace", o.namespace, "Operator namespace, where the HyperConverged lives (env OPERATOR_NAMESPACE).")
	fs.StringVar(&o.output, "output", o.output, "Output format: text, json or yaml.")
	fs.StringVar(&o.output, "o", o.output, "Shorthand for --output.")
	fs.BoolVar(&o.watch, "watch", false, "Show the status again every --interval until interrupted; the exit status is the last one's.")
	fs.DurationVar(&o.interval, "interval", o.interval, "How often --watch reads the status again.")
	if err := fs.Parse(args); err != nil {
		return o, usageError(err)
	}
	switch {
	case fs.NArg() > 0:
		return o, fmt.Errorf("%w: status: unexpected arguments %q", errUsage, fs.Args())
	case o.output != "text" && o.output != "json" && o.output != "yaml":
		return o, fmt.Errorf("%w: status: --output %q: want text, json or yaml", errUsage, o.output)
	case o.interval <= 0:
		return o, fmt.Errorf("%w: status: --interval %s: want a positive duration", errUsage, o.interval)
	}
	return o, nil
}
