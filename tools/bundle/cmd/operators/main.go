// Command operators keeps the component operators' descriptions (the
// Deployments, RBAC, webhooks and CRDs of virt-operator, cdi-operator, … that
// the install carries beside hcokit's own workloads) and their one table of
// versions and digests (config/operators/versions.csv).
//
//	operators -import DIR   read upstream HCO's deploy/ directory DIR and write
//	                        every description and the table anew
//	operators               write the table's versions and digests into the
//	                        descriptions (make generate)
//	operators -check        write nothing; fail when a description differs
//	                        from the table (make verify)
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hcokit/hcokit/tools/bundle"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "operators:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("operators", flag.ContinueOnError)
	root := fs.String("root", "../..", "The repository root.")
	from := fs.String("import", "", "Upstream HCO's deploy/ directory (at "+bundle.UpstreamCommit+"): write every description and the table from it.")
	check := fs.Bool("check", false, "Write nothing; fail when a description differs from the table.")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var files map[string][]byte
	var err error
	if *from != "" {
		files, err = bundle.ImportOperators(*from)
	} else {
		files, err = bundle.ApplyTable(*root)
	}
	if err != nil {
		return err
	}
	if *check {
		if len(files) > 0 {
			return fmt.Errorf("stale: %s; run make generate and commit the result", strings.Join(bundle.SortedPaths(files), ", "))
		}
		return nil
	}
	for _, p := range bundle.SortedPaths(files) {
		path := filepath.Join(*root, p)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, files[p], 0o644); err != nil {
			return err
		}
	}
	return nil
}
