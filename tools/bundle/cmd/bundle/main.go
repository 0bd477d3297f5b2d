// Command bundle writes hcokit's OLM bundle (bundle/ and bundle.Dockerfile)
// from config/overlays/olm; make bundle runs it. With -check it writes
// nothing and fails when the committed bundle differs from what it would
// write.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/hcokit/hcokit/tools/bundle"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "bundle:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("bundle", flag.ContinueOnError)
	root := fs.String("root", "../..", "The repository root.")
	version := fs.String("version", "", "The operator version (semver, such as 0.1.0): the CSV is hcokit-operator.v<version> and the operator image is tagged <version>. Required.")
	image := fs.String("image", bundle.DefaultImage, "The operator image's repository, without tag; the committed bundle uses the default.")
	digest := fs.String("digest", "", "The operator image's digest (sha256:...): the Deployments and relatedImages name the image by it instead of the version's tag. Nothing is pulled: the digest is what the image build printed.")
	check := fs.Bool("check", false, "Write nothing; fail when the committed bundle is stale.")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *version == "" {
		return fmt.Errorf("-version is required (make bundle passes BUNDLE_VERSION)")
	}
	b, err := bundle.BuildDigest(*root, strings.TrimPrefix(*version, "v"), *image, *digest)
	if err != nil {
		return err
	}
	for _, w := range b.Warnings {
		fmt.Fprintln(os.Stderr, "bundle: warning:", w)
	}
	files, err := b.Files()
	if err != nil {
		return err
	}
	if *check {
		stale, err := bundle.Stale(*root, files)
		if err != nil {
			return err
		}
		if len(stale) > 0 {
			return fmt.Errorf("stale: %s; run make bundle and commit the result", strings.Join(stale, ", "))
		}
		return nil
	}
	return bundle.Write(*root, files)
}
