package quickstart

import (
	"errors"
	"fmt"
	"io/fs"

	consolev1 "github.com/openshift/api/console/v1"
	"sigs.k8s.io/yaml"

	"github.com/hcokit/hcokit/internal/manifestdir"
)

// Load reads the quick starts of dir in fsys as upstream HCO reads its
// quickStart/ directory (GetQuickStartHandlers at 03da3cf): every file
// whose name ends in .yaml, in subdirectories too, in lexical order, one
// ConsoleQuickStart each, its unknown fields ignored. A dir that does not
// exist holds none. A file Load cannot take is an error naming it
// (upstream logs it and goes on without it): YAML that does not parse, more
// than one object, another kind, no name, a namespace (the kind is
// cluster-scoped), or the name of another file's quick start with another
// content (the same one twice, as a Kubernetes volume's links to its files
// show it, counts once).
func Load(fsys fs.FS, dir string) ([]consolev1.ConsoleQuickStart, error) {
	return manifestdir.Load(fsys, dir, "ConsoleQuickStart", decode)
}

// decode decodes one ConsoleQuickStart.
func decode(doc []byte) (consolev1.ConsoleQuickStart, string, error) {
	var qs consolev1.ConsoleQuickStart
	if err := yaml.Unmarshal(doc, &qs); err != nil {
		return qs, "", fmt.Errorf("not a ConsoleQuickStart: %w", err)
	}
	want := quickStartType()
	switch {
	case qs.Kind != "" && qs.Kind != want.Kind, qs.APIVersion != "" && qs.APIVersion != want.APIVersion:
		return qs, "", fmt.Errorf("apiVersion %q, kind %q: want a %s of %s", qs.APIVersion, qs.Kind, want.Kind, want.APIVersion)
	case qs.Name == "":
		return qs, "", errors.New("metadata.name is empty")
	case qs.Namespace != "":
		return qs, "", fmt.Errorf("metadata.namespace %q: a ConsoleQuickStart is cluster-scoped", qs.Namespace)
	}
	qs.TypeMeta = want
	return qs, qs.Name, nil
}
