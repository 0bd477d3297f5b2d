// Command chart writes hcokit's Helm chart (charts/hcokit) from config/:
// make chart runs it. With -check it writes nothing and fails when the
// committed chart differs from what it would write (make verify).
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hcokit/hcokit/tools/install"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "chart:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("chart", flag.ContinueOnError)
	root := fs.String("root", "../..", "The repository root.")
	version := fs.String("version", "", "The chart's version and appVersion (semver, such as 0.1.0). Required.")
	check := fs.Bool("check", false, "Write nothing; fail when the committed chart is stale.")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *version == "" {
		return fmt.Errorf("-version is required (make chart passes BUNDLE_VERSION)")
	}
	files, err := install.Chart(filepath.Join(*root, "config"), strings.TrimPrefix(*version, "v"))
	if err != nil {
		return err
	}
	if *check {
		stale, err := install.StaleFiles(*root, install.ChartDir, files)
		if err != nil {
			return err
		}
		if len(stale) > 0 {
			return fmt.Errorf("stale: %s; run make chart and commit the result", strings.Join(stale, ", "))
		}
		return nil
	}
	return install.WriteFiles(*root, install.ChartDir, files)
}
