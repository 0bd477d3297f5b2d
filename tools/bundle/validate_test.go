package bundle_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/operator-framework/api/pkg/manifests"
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
var validators = withDefaults(validation.DefaultBundleValidators,
	validation.OperatorHubV2Validator,
	validation.StandardCapabilitiesValidator,
	validation.StandardCategoriesValidator,
	validation.ObjectValidator,
	validation.GoodPracticesValidator,
	validation.AlphaDeprecatedAPIsValidator,
)

func withDefaults(defaults validator.Validators, more ...validator.Validator) validator.Validators {
	return append(append(validator.Validators{}, defaults...), more...)
}

// TestCommittedBundleValid loads the committed bundle/ the way OLM's tools
// do and fails on any error of the validators; warnings are logged.
func TestCommittedBundleValid(t *testing.T) {
	b, err := manifests.GetBundleFromDir(filepath.Join(root, "bundle"))
	if err != nil {
		t.Fatalf("loading bundle/: %v", err)
	}
	if b.CSV == nil || len(b.V1CRDs) == 0 {
		t.Fatalf("bundle/ has no CSV or no CRD: CSV %v, %d CRDs", b.CSV != nil, len(b.V1CRDs))
	}
	objs := append(b.ObjectsToValidate(), map[string]string{"k8s-version": b.CSV.Spec.MinKubeVersion})
	for _, r := range validators.Validate(objs...) {
		for _, e := range r.Errors {
			t.Errorf("%s: %v", r.Name, e)
		}
		for _, w := range r.Warnings {
			t.Logf("warning: %s: %v", r.Name, w)
		}
	}
}

// TestCommittedBundleUpToDate regenerates the bundle at the committed CSV's
// version and compares it with the committed files (make bundle after a
// change of config/, README.md or examples/hyperconverged.yaml).
func TestCommittedBundleUpToDate(t *testing.T) {
	b, err := manifests.GetBundleFromDir(filepath.Join(root, "bundle"))
	if err != nil {
		t.Fatalf("loading bundle/: %v", err)
	}
	got, err := bundle.Build(root, b.CSV.Spec.Version.String())
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
