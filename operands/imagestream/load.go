package imagestream

import (
	"errors"
	"fmt"
	"io/fs"

	imagev1 "github.com/hcokit/hcokit/operands/imagestream/api/v1"
	"sigs.k8s.io/yaml"

	"github.com/hcokit/hcokit/internal/manifestdir"
)

// Load reads the image streams of dir in fsys as upstream HCO reads its
// imageStreams/ directory (GetImageStreamHandlers at 03da3cf): every file
// whose name ends in .yaml, in subdirectories too, in lexical order, one
// ImageStream each, its unknown fields ignored. A dir that does not exist
// holds none. A file Load cannot take is an error naming it (upstream logs
// it and goes on without it, or fails its start): YAML that does not
// parse, more than one object, another kind, no name, no namespace (where
// it goes when the HyperConverged names none), or the name and namespace
// of another file's stream with another content.
func Load(fsys fs.FS, dir string) ([]imagev1.ImageStream, error) {
	return manifestdir.Load(fsys, dir, "ImageStream", decode)
}

// decode decodes one ImageStream.
func decode(doc []byte) (imagev1.ImageStream, string, error) {
	var is imagev1.ImageStream
	if err := yaml.Unmarshal(doc, &is); err != nil {
		return is, "", fmt.Errorf("not an ImageStream: %w", err)
	}
	want := imageStreamType()
	switch {
	case is.Kind != "" && is.Kind != want.Kind, is.APIVersion != "" && is.APIVersion != want.APIVersion:
		return is, "", fmt.Errorf("apiVersion %q, kind %q: want an %s of %s", is.APIVersion, is.Kind, want.Kind, want.APIVersion)
	case is.Name == "":
		return is, "", errors.New("metadata.name is empty")
	case is.Namespace == "":
		return is, "", errors.New("metadata.namespace is empty: name the namespace the stream goes to when the HyperConverged names no commonBootImageNamespace")
	}
	is.TypeMeta = want
	return is, is.Namespace + "/" + is.Name, nil
}
