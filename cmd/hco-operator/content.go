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
	"github.com/hcokit/hcokit/operands/imagestream"
	"github.com/hcokit/hcokit/operands/quickstart"
)

// contentDirs are the directories the operator reads, at start, the
// content of the modules a distribution gives it: the console's quick
// starts and dashboards, and the golden images' image streams; upstream's
// are under the working directory (quickStart/, dashboard/ and
// imageStreams/ at 03da3cf; its images put them there, the stock one none).
// Empty reads none.
type contentDirs struct {
	quickStarts, dashboards, imageStreams string
}

// addContentFlags registers --quickstart-dir, --dashboard-dir and
// --imagestream-dir over defaults.
func addContentFlags(fs *flag.FlagSet, dirs *contentDirs, defaults contentDirs) {
	fs.StringVar(&dirs.quickStarts, "quickstart-dir", defaults.quickStarts,
		"Directory of the ConsoleQuickStarts to make on OpenShift, one per .yaml file, subdirectories too (upstream's layout); read at start; a directory that does not exist holds none; empty reads none.")
	fs.StringVar(&dirs.dashboards, "dashboard-dir", defaults.dashboards,
		"Directory of the dashboard ConfigMaps to make in openshift-config-managed on OpenShift, one per .yaml file, subdirectories too (upstream's layout); read at start; a directory that does not exist holds none; empty reads none.")
	fs.StringVar(&dirs.imageStreams, "imagestream-dir", defaults.imageStreams,
		"Directory of the golden images' ImageStreams to make on OpenShift (in their namespace, or the HyperConverged's commonBootImageNamespace), one per .yaml file, subdirectories too (upstream's layout); read at start; a directory that does not exist holds none; empty reads none.")
}

// upstreamContentDirs are upstream's directories, relative to the working
// directory.
var upstreamContentDirs = contentDirs{quickStarts: quickstart.Dir, dashboards: dashboard.Dir, imageStreams: imagestream.Dir}

// contentModule is one module that takes its content from a directory.
type contentModule struct {
	name, flag string
	dir        string
	// load reads dir, the value of --flag, and returns the module with
	// that content, and what it makes, by name.
	load func(flag, dir string) (hco.Operand, []string, error)
}

// contentModules are dirs' modules, in registry order.
func contentModules(dirs contentDirs) []contentModule {
	return []contentModule{
		{quickstart.Name, "quickstart-dir", dirs.quickStarts, func(flag, dir string) (hco.Operand, []string, error) {
			qs, err := readDir(flag, dir, quickstart.Load)
			op := quickstart.New(qs...)
			return op, op.Names(), err
		}},
		{dashboard.Name, "dashboard-dir", dirs.dashboards, func(flag, dir string) (hco.Operand, []string, error) {
			cms, err := readDir(flag, dir, dashboard.Load)
			op := dashboard.New(cms...)
			return op, op.Names(), err
		}},
		{imagestream.Name, "imagestream-dir", dirs.imageStreams, func(flag, dir string) (hco.Operand, []string, error) {
			streams, err := readDir(flag, dir, imagestream.Load)
			op := imagestream.New(streams...)
			return op, op.Names(), err
		}},
	}
}

// withContent gives reg's quickstart, dashboard and imagestream operands,
// where they are enabled, the content of dirs (see readDir), and returns
// what each makes, by name, by operand name; a disabled one's directory is
// not read. A file that cannot be taken is an error naming the flag and the
// file.
func withContent(reg *hco.Registry, dirs contentDirs) (map[string][]string, error) {
	out := map[string][]string{}
	for _, m := range contentModules(dirs) {
		if !enabled(reg, m.name) {
			continue
		}
		op, names, err := m.load(m.flag, m.dir)
		if err != nil {
			return nil, err
		}
		if err := reg.Replace(op); err != nil {
			return nil, err
		}
		out[m.name] = names
	}
	return out, nil
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

// leaveOutContent disables, for the diff, the enabled content modules
// whose directory dirs does not give (the operator's are in its image, not
// here), and names them: without their content, the diff would show their
// objects deleted.
func leaveOutContent(reg *hco.Registry, dirs contentDirs) ([]string, error) {
	var out []string
	for _, m := range contentModules(dirs) {
		if m.dir != "" || !enabled(reg, m.name) {
			continue
		}
		if err := reg.Disable(m.name); err != nil {
			return nil, err
		}
		out = append(out, m.name)
	}
	slices.Sort(out)
	return out, nil
}

// enabled reports whether reg runs the operand name.
func enabled(reg *hco.Registry, name string) bool {
	return slices.ContainsFunc(reg.Operands(), func(op hco.Operand) bool { return op.Name() == name })
}
