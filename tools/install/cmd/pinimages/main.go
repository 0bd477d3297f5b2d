// Command pinimages names the base images of the repository's Dockerfiles
// by digest as well as by tag (make pin-images): it asks each image's
// registry for the digest its tag names now, with the credentials of the
// local Docker configuration when there are any. Run it where the
// registries are reachable; an image already named by digest is left.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/crane"

	"github.com/hcokit/hcokit/tools/install"
)

func main() {
	root := flag.String("root", "../..", "the repository's root")
	flag.Parse()
	digest := func(ref string) (string, error) {
		return crane.Digest(ref, crane.WithAuthFromKeychain(authn.DefaultKeychain))
	}
	for _, name := range []string{"Dockerfile", "bundle.Dockerfile"} {
		path := filepath.Join(*root, name)
		text, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "pinimages:", err)
			os.Exit(1)
		}
		out, pinned, err := install.PinBaseImages(string(text), digest)
		if err != nil {
			fmt.Fprintf(os.Stderr, "pinimages: %s: %v\n", name, err)
			os.Exit(1)
		}
		if len(pinned) == 0 {
			continue
		}
		if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "pinimages:", err)
			os.Exit(1)
		}
		for _, ref := range pinned {
			fmt.Printf("%s: %s\n", name, ref)
		}
	}
}
