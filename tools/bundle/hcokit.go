package bundle

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"
)

// The paths Build reads, relative to the repository root.
const (
	OverlayDir  = "config/overlays/olm"
	ReadmePath  = "README.md"
	ExamplePath = "examples/hyperconverged.yaml"
	// ExampleV1beta1Path is the same HyperConverged in the older version.
	ExampleV1beta1Path = "examples/v1beta1/hyperconverged.yaml"
)

// DefaultImage is the stock operator image's repository.
const DefaultImage = "quay.io/hcokit/hco-operator"

// Build generates hcokit's bundle for version from the repository at root:
// the manifests of config/overlays/olm, the description at the top of
// README.md and the alm-examples examples/hyperconverged.yaml (v1) and
// examples/v1beta1/hyperconverged.yaml.
// image is the operator image's repository (DefaultImage for the committed
// bundle): the Deployments' images of DefaultImage are replaced by it, and
// all are tagged with version, or named by digest when one is given
// (BuildDigest).
func Build(root, version, image string) (*Bundle, error) {
	return BuildDigest(root, version, image, "")
}

// BuildDigest is Build with the operator image named by digest
// ("sha256:<64 hex digits>"; empty: by the version's tag).
func BuildDigest(root, version, image, digest string) (*Bundle, error) {
	if digest != "" && !validDigest(digest) {
		return nil, fmt.Errorf("image digest %q: want sha256: and 64 lower-case hex digits, as `docker buildx imagetools inspect` or `crane digest` print it", digest)
	}
	objs, err := Kustomize(root, filepath.Join(root, OverlayDir))
	if err != nil {
		return nil, err
	}
	md, err := HcokitMetadata(root, version)
	if err != nil {
		return nil, err
	}
	md.ImageFrom, md.Image, md.Digest = DefaultImage, image, digest
	return Generate(objs, md)
}

// validDigest reports whether d is a sha256 image digest.
func validDigest(d string) bool {
	hex, ok := strings.CutPrefix(d, "sha256:")
	return ok && len(hex) == 64 && strings.Trim(hex, "0123456789abcdef") == ""
}

// HcokitMetadata is the Metadata of the stock hco-operator at version.
func HcokitMetadata(root, version string) (Metadata, error) {
	readme, err := os.ReadFile(filepath.Join(root, ReadmePath))
	if err != nil {
		return Metadata{}, err
	}
	summary, description, err := readmeIntro(string(readme))
	if err != nil {
		return Metadata{}, fmt.Errorf("%s: %w", ReadmePath, err)
	}
	var examples []map[string]any
	for _, p := range []string{ExamplePath, ExampleV1beta1Path} {
		data, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			return Metadata{}, err
		}
		var hc map[string]any
		if err := yaml.Unmarshal(data, &hc); err != nil {
			return Metadata{}, fmt.Errorf("%s: %w", p, err)
		}
		examples = append(examples, hc)
	}
	const repo = "https://github.com/hcokit/hcokit"
	return Metadata{
		Package:        "hcokit-operator",
		Version:        version,
		Channel:        "candidate", // OLM's channel naming: candidate, fast, stable
		Image:          DefaultImage,
		VersionEnv:     "HCO_KV_IO_VERSION",
		MinKubeVersion: "1.30.0", // webhook matchConditions and CRD validation rules are GA there
		DisplayName:    "hcokit HyperConverged Operator",
		Summary:        summary,
		Description:    description + "\n\nInstalling with OLM: " + repo + "/blob/main/docs/olm.md",
		Repository:     repo,
		Provider:       "hcokit",
		Maturity:       "alpha",
		Capabilities:   "Basic Install",
		Keywords:       []string{"KubeVirt", "HyperConverged", "Virtualization", "VM", "CDI", "SSP"},
		Examples:       examples,
	}, nil
}

// readmeIntro returns the first paragraph of the README's introduction (the
// text between the title and the first section) on one line, and the whole
// introduction.
func readmeIntro(readme string) (summary, description string, err error) {
	_, rest, ok := strings.Cut(readme, "\n")
	if !strings.HasPrefix(readme, "# ") || !ok {
		return "", "", fmt.Errorf("does not start with a title line (# name)")
	}
	intro, _, _ := strings.Cut(rest, "\n## ")
	intro = strings.TrimSpace(intro)
	if intro == "" {
		return "", "", fmt.Errorf("no introduction between the title and the first section")
	}
	first, _, _ := strings.Cut(intro, "\n\n")
	return strings.Join(strings.Fields(first), " "), intro, nil
}
