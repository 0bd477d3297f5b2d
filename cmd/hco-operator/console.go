package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"slices"

	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/operands/dashboard"
	"github.com/hcokit/hcokit/operands/quickstart"
)

// consoleDirs are the directories the operator reads the console's quick
// starts and dashboards from, at start: upstream's, under the working
// directory (quickStart/ and dashboard/ at 03da3cf; its images put them
// there, the stock one none). Empty reads none.
type consoleDirs struct {
	quickStarts, dashboards string
}

// addConsoleFlags registers --quickstart-dir and --dashboard-dir over
// defaults.
func addConsoleFlags(fs *flag.FlagSet, dirs *consoleDirs, defaults consoleDirs) {
	fs.StringVar(&dirs.quickStarts, "quickstart-dir", defaults.quickStarts,
		"Directory of the ConsoleQuickStarts to make on OpenShift, one per .yaml file, subdirectories too (upstream's layout); read at start; a directory that does not exist holds none; empty reads none.")
	fs.StringVar(&dirs.dashboards, "dashboard-dir", defaults.dashboards,
		"Directory of the dashboard ConfigMaps to make in openshift-config-managed on OpenShift, one per .yaml file, subdirectories too (upstream's layout); read at start; a directory that does not exist holds none; empty reads none.")
}

// upstreamConsoleDirs are upstream's directories, relative to the working
// directory.
var upstreamConsoleDirs = consoleDirs{quickStarts: quickstart.Dir, dashboards: dashboard.Dir}

// withConsoleContent gives reg's quickstart and dashboard operands, where
// they are enabled, the content of dirs (see readDir), and returns what
// they make, by name; a disabled one's directory is not read. A file that
// cannot be taken is an error naming the flag and the file.
func withConsoleContent(reg *hco.Registry, dirs consoleDirs) (quickStarts, dashboards []string, err error) {
	if enabled(reg, quickstart.Name) {
		qs, err := readDir("quickstart-dir", dirs.quickStarts, quickstart.Load)
		if err != nil {
			return nil, nil, err
		}
		op := quickstart.New(qs...)
		if err := reg.Replace(op); err != nil {
			return nil, nil, err
		}
		quickStarts = op.Names()
	}
	if enabled(reg, dashboard.Name) {
		cms, err := readDir("dashboard-dir", dirs.dashboards, dashboard.Load)
		if err != nil {
			return nil, nil, err
		}
		op := dashboard.New(cms...)
		if err := reg.Replace(op); err != nil {
			return nil, nil, err
		}
		dashboards = op.Names()
	}
	return quickStarts, dashboards, nil
}

// readDir reads the objects of dir (the value of --flag) with load: none
// for an empty dir or one that does not exist; a dir that is a file, or a
// file load cannot take, is an error naming the flag and the file (its
// path under dir).
func readDir[T any](flag, dir string, load func(fs.FS, string) ([]T, error)) ([]T, error) {
	if dir == "" {
		return nil, nil
	}
	switch info, err := os.Stat(dir); {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("--%s %s: %w", flag, dir, err)
	case !info.IsDir():
		return nil, fmt.Errorf("--%s %s: not a directory", flag, dir)
	}
	objs, err := load(os.DirFS(dir), ".")
	if err != nil {
		return nil, fmt.Errorf("--%s %s: %w", flag, dir, err)
	}
	return objs, nil
}

// leaveOutConsole disables, for the diff, the enabled quickstart and
// dashboard operands whose directory dirs does not give (the operator's
// are in its image, not here), and names them: without their content, the
// diff would show their objects deleted.
func leaveOutConsole(reg *hco.Registry, dirs consoleDirs) ([]string, error) {
	var out []string
	for name, dir := range map[string]string{quickstart.Name: dirs.quickStarts, dashboard.Name: dirs.dashboards} {
		if dir != "" || !enabled(reg, name) {
			continue
		}
		if err := reg.Disable(name); err != nil {
			return nil, err
		}
		out = append(out, name)
	}
	slices.Sort(out)
	return out, nil
}

// enabled reports whether reg runs the operand name.
func enabled(reg *hco.Registry, name string) bool {
	return slices.ContainsFunc(reg.Operands(), func(op hco.Operand) bool { return op.Name() == name })
}
