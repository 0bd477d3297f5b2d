package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/operands/stock"
	"github.com/hcokit/hcokit/preview"
	"github.com/hcokit/hcokit/render"
)

// renderUsage heads the help of the render subcommand.
const renderUsage = `Usage: hco-operator render -f FILE [flags]
       hco-operator render --diff [flags] OLD NEW

Prints, as YAML documents, the operand objects the operator would create for
the HyperConverged in FILE ("-" reads stdin), with the CRD defaults applied.
No cluster is needed. Invalid input exits non-zero naming the field.

With --diff, prints what changes in the operand objects from the
HyperConverged in OLD to the one in NEW, as hco-operator diff does against a
cluster (kubectl diff's format; KUBECTL_EXTERNAL_DIFF honoured; exit status
0 no differences, 1 differences, >1 an error), for CI jobs without one.

Flags:
`

// renderCommand is the render subcommand: it reads a HyperConverged, renders
// it with the stock operands, and writes the objects to stdout. Warnings go
// to stderr.
func renderCommand(args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	env := hco.Environment{
		Version:                  operatorVersion(getenv),
		CommonTemplatesNamespace: hco.DefaultCommonTemplatesNamespace,
		KVMEmulation:             getenv("KVM_EMULATION") == "true",
	}
	if err := stock.ReadKubeVirtEnvironment(&env, getenv); err != nil {
		return err
	}
	var file, operandList string
	var diff bool
	fs := flag.NewFlagSet("hco-operator render", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), renderUsage)
		fs.PrintDefaults()
	}
	fs.StringVar(&file, "f", "", `HyperConverged manifest (YAML or JSON) to render; "-" reads stdin. Required.`)
	fs.BoolVar(&diff, "diff", false, "Print what changes from the HyperConverged in the first argument to the one in the second, as a unified diff per object (flags go before the two files).")
	fs.StringVar(&operandList, "operands", defaultOperands, "Comma-separated operand modules to render: "+allOperands+".")
	fs.StringVar(&env.Namespace, "namespace", "", "Operator namespace (default: the HyperConverged's, else "+hcov1.DefaultNamespace+").")
	fs.StringVar(&env.CommonTemplatesNamespace, "common-templates-namespace", env.CommonTemplatesNamespace, "Default namespace of SSP's common templates.")
	fs.BoolVar(&env.KVMEmulation, "kvm-emulation", env.KVMEmulation, "Render for a cluster without hardware virtualization (env KVM_EMULATION).")
	fs.StringVar(&env.Version, "operator-version", env.Version, "Operator version for the app.kubernetes.io/version label (env HCO_KV_IO_VERSION, or its alias HCO_VERSION).")
	addImageFlags(fs, &env, getenv)
	if err := fs.Parse(args); err != nil {
		return usageError(err)
	}
	if diff {
		if file != "" || fs.NArg() != 2 {
			return fmt.Errorf("%w: render --diff takes two files, OLD and NEW, and no -f (got %d arguments)", errUsage, fs.NArg())
		}
		return renderDiff(fs.Arg(0), fs.Arg(1), operandList, env, getenv, stdin, stdout, stderr)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("render: unexpected arguments %q; the manifest goes in -f", fs.Args())
	}
	if file == "" {
		fs.Usage()
		return errors.New("render: -f is required")
	}

	data, err := readManifest(file, stdin)
	if err != nil {
		return err
	}
	reg, err := stockRegistry(operandList)
	if err != nil {
		return err
	}
	d, err := render.DecodeManifest(data)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	for _, w := range d.Warnings() {
		fmt.Fprintf(stderr, "hco-operator render: warning: %s: %s\n", file, w)
	}
	objs, err := render.Objects(reg, d.HC, env)
	if err != nil {
		// Name the fields as the admin wrote them.
		if d.Version() == v1beta1.GroupVersion {
			err = errors.New(d.FieldPaths(err.Error()))
		}
		return fmt.Errorf("%s: %w", file, err)
	}
	return render.WriteYAML(stdout, objs)
}

// renderDiff is render --diff: the objects of the HyperConverged in
// oldFile and newFile, rendered, as a diff. Its errors exit with status 2,
// as diff's do.
func renderDiff(oldFile, newFile, operandList string, env hco.Environment, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	reg, err := stockRegistry(operandList)
	if err != nil {
		return &exitStatus{code: 2, err: err}
	}
	var hcs [2]*hcov1.HyperConverged
	for i, file := range []string{oldFile, newFile} {
		data, err := readManifest(file, stdin)
		if err != nil {
			return &exitStatus{code: 2, err: err}
		}
		d, err := render.DecodeManifest(data)
		if err != nil {
			return &exitStatus{code: 2, err: fmt.Errorf("%s: %w", file, err)}
		}
		for _, w := range d.Warnings() {
			fmt.Fprintf(stderr, "hco-operator render: warning: %s: %s\n", file, w)
		}
		hcs[i] = d.HC
	}
	objs, err := preview.Offline(reg, hcs[0], hcs[1], env)
	if err != nil {
		return &exitStatus{code: 2, err: err}
	}
	differs, err := preview.Diff(context.Background(), stdout, stderr, objs, getenv("KUBECTL_EXTERNAL_DIFF"))
	var exit interface{ ExitCode() int }
	switch {
	case errors.Is(err, preview.ErrDiffFailed) && errors.As(err, &exit):
		return &exitStatus{code: exit.ExitCode() + 1, err: err}
	case err != nil:
		return &exitStatus{code: 2, err: err}
	case differs:
		return &exitStatus{code: 1}
	}
	return nil
}

// readManifest reads file, or stdin for "-".
func readManifest(file string, stdin io.Reader) ([]byte, error) {
	if file == "-" {
		data, err := io.ReadAll(stdin)
		if err != nil {
			return nil, fmt.Errorf("read stdin: %w", err)
		}
		return data, nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("read manifest: %w", err)
	}
	return data, nil
}
