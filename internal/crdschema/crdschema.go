package crdschema

import (
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"sigs.k8s.io/yaml"

	"github.com/hcokit/hcokit/internal/testenv"
)

// HyperConverged returns the structural schema of the given version of the
// HyperConverged CRD.
func HyperConverged(version string) (*structuralschema.Structural, error) {
	root, err := testenv.RepoRoot()
	if err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(filepath.Join(root, "config", "crd", "bases", "hco.kubevirt.io_hyperconvergeds.yaml"))
	if err != nil {
		return nil, err
	}
	return Parse(raw, version)
}

// Parse returns the structural schema of the given version of the CRD in raw
// (one YAML or JSON CustomResourceDefinition, such as upstream HCO's
// deploy/crds/hco00.crd.yaml).
func Parse(raw []byte, version string) (*structuralschema.Structural, error) {
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(raw, &crd); err != nil {
		return nil, err
	}
	for _, v := range crd.Spec.Versions {
		if v.Name != version {
			continue
		}
		var internal apiextensions.JSONSchemaProps
		if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v.Schema.OpenAPIV3Schema, &internal, nil); err != nil {
			return nil, err
		}
		return structuralschema.NewStructural(&internal)
	}
	return nil, fmt.Errorf("the %s CRD has no version %q", crd.Name, version)
}
