package bundle_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/operator-framework/api/pkg/manifests"
	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	"github.com/operator-framework/api/pkg/validation"
	validator "github.com/operator-framework/api/pkg/validation/interfaces"

	"github.com/hcokit/hcokit/tools/bundle"
)

// root is the repository root, seen from this package's directory.
const root = "../.."

// validators are the operator-framework's own: the defaults (CSV, CRDs,
// bundle), OperatorHub's, good practices, the objects' and deprecated APIs.
// Left out: the community-operators repository's own checks (they read its
// index layout) and the multi-architecture check (it pulls the images).
func validators() validator.Validators {
	return append(append(validator.Validators{}, validation.DefaultBundleValidators...),
		validation.OperatorHubV2Validator,
		validation.StandardCapabilitiesValidator,
		validation.StandardCategoriesValidator,
		validation.ObjectValidator,
		validation.GoodPracticesValidator,
		validation.AlphaDeprecatedAPIsValidator,
	)
}

// TestCommittedBundleValid loads the committed bundle/ the way OLM's tools
// do and fails on any error of the validators; warnings are logged.
func TestCommittedBundleValid(t *testing.T) {
	errs, warnings := validate(t, filepath.Join(root, "bundle"))
	for _, e := range errs {
		t.Error(e)
	}
	for _, w := range warnings {
		t.Logf("warning: %s", w)
	}
}

// TestValidatorsRefuseConversionOutsideAllNamespaces shows the validators
// at work on what the bundle must avoid: OLM serves CRD conversion only to
// an operator installed for all namespaces.
func TestValidatorsRefuseConversionOutsideAllNamespaces(t *testing.T) {
	b := build(t, nil)
	for i := range b.CSV.Spec.InstallModes {
		b.CSV.Spec.InstallModes[i].Supported = b.CSV.Spec.InstallModes[i].Type != v1alpha1.InstallModeTypeAllNamespaces
	}
	dir := t.TempDir()
	files, err := b.Files()
	if err != nil {
		t.Fatal(err)
	}
	if err := bundle.Write(dir, files); err != nil {
		t.Fatal(err)
	}
	errs, _ := validate(t, filepath.Join(dir, "bundle"))
	if !slices.ContainsFunc(errs, func(s string) bool {
		return strings.Contains(s, "only AllNamespaces InstallModeType is supported when conversionCRDs is present")
	}) {
		t.Errorf("validator errors %q: want the one on conversionCRDs outside AllNamespaces", errs)
	}
}

// validate runs the validators on the bundle in dir.
func validate(t *testing.T, dir string) (errs, warnings []string) {
	t.Helper()
	b, err := manifests.GetBundleFromDir(dir)
	if err != nil {
		t.Fatalf("loading %s: %v", dir, err)
	}
	if b.CSV == nil || len(b.V1CRDs) == 0 {
		t.Fatalf("%s has no CSV or no CRD: CSV %v, %d CRDs", dir, b.CSV != nil, len(b.V1CRDs))
	}
	objs := append(b.ObjectsToValidate(), map[string]string{"k8s-version": b.CSV.Spec.MinKubeVersion})
	for _, r := range validators().Validate(objs...) {
		for _, e := range r.Errors {
			errs = append(errs, r.Name+": "+e.Error())
		}
		for _, w := range r.Warnings {
			warnings = append(warnings, r.Name+": "+w.Error())
		}
	}
	return errs, warnings
}

// TestCommittedBundleUpToDate regenerates the bundle at the committed CSV's
// version and compares it with the committed files (make bundle after a
// change of config/, README.md or examples/hyperconverged.yaml).
func TestCommittedBundleUpToDate(t *testing.T) {
	b, err := manifests.GetBundleFromDir(filepath.Join(root, "bundle"))
	if err != nil {
		t.Fatalf("loading bundle/: %v", err)
	}
	got, err := bundle.Build(root, b.CSV.Spec.Version.String(), bundle.DefaultImage)
	if err != nil {
		t.Fatal(err)
	}
	files, err := got.Files()
	if err != nil {
		t.Fatal(err)
	}
	stale, err := bundle.Stale(root, files)
	if err != nil {
		t.Fatal(err)
	}
	if len(stale) > 0 {
		t.Errorf("stale bundle files: %s; run make bundle and commit the result", strings.Join(stale, ", "))
	}
}
