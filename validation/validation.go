package validation

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hostdevices"
	"github.com/hcokit/hcokit/jsonpatch"
	"github.com/hcokit/hcokit/migration"
)

// MinCertDuration is the shortest certificate duration or renewBefore accepted
// in spec.security.certConfig.
const MinCertDuration = 10 * time.Minute

// Options is what validation needs besides the HyperConverged.
type Options struct {
	// Registry holds the enabled operands. Each one's desired objects are
	// built, so that a jsonpatch annotation that does not apply to its
	// operand's object is refused. Nil: annotations are only parsed.
	Registry *hco.Registry
	// Environment is passed to the operands.
	Environment hco.Environment
}

// Identity checks the rule for creating a HyperConverged: it is a singleton,
// named hcov1.HyperConvergedName, in the operator namespace.
func Identity(hc *hcov1.HyperConverged, namespace string) field.ErrorList {
	var errs field.ErrorList
	if hc.Namespace != namespace {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "namespace"), hc.Namespace,
			fmt.Sprintf("the HyperConverged must be created in the operator namespace %q", namespace)))
	}
	if hc.Name != hcov1.HyperConvergedName {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), hc.Name,
			fmt.Sprintf("the HyperConverged is a singleton; name it %q", hcov1.HyperConvergedName)))
	}
	return errs
}

// Spec checks the contents of hc: the spec and the jsonpatch annotations. It
// does not look at the name, namespace or the cluster.
func Spec(hc *hcov1.HyperConverged, opts Options) field.ErrorList {
	spec := field.NewPath("spec")
	var errs field.ErrorList
	placements := spec.Child("deployment", "nodePlacements")
	virt := spec.Child("virtualization")
	errs = append(errs, Placement(hc.Spec.InfraPlacement(), placements.Child("infra"))...)
	errs = append(errs, Placement(hc.Spec.WorkloadPlacement(), placements.Child("workload"))...)
	errs = append(errs, bandwidth(hc.Spec.Virtualization.LiveMigrationConfig.BandwidthPerMigration, virt.Child("liveMigrationConfig", "bandwidthPerMigration"))...)
	errs = append(errs, CertConfig(hc.Spec.Security.CertConfig, spec.Child("security", "certConfig"))...)
	errs = append(errs, TLSSecurityProfile(hc.Spec.Security.TLSSecurityProfile, spec.Child("security", "tlsSecurityProfile"))...)
	errs = append(errs, hostDevices(hc.Spec.Virtualization.PermittedHostDevices, virt.Child("permittedHostDevices"))...)
	errs = append(errs, goldenImageSwitches(hc.Spec.WorkloadSources.DataImportCronTemplates, spec.Child("workloadSources", "dataImportCronTemplates"))...)
	errs = append(errs, jsonPatches(hc, opts, len(errs) > 0)...)
	return errs
}

// dictEnableAnnotation switches a golden image on or off (operands/ssp's
// EnableAnnotation; upstream's name).
const dictEnableAnnotation = "dataimportcrontemplate.kubevirt.io/enable"

// goldenImageSwitches checks, as upstream's webhook does, that a golden
// image's enable annotation is "true" or "false" (any case): the operator
// would read any other value as "false" and drop the image silently.
func goldenImageSwitches(dicts []hcov1.DataImportCronTemplate, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, d := range dicts {
		v, ok := d.Annotations[dictEnableAnnotation]
		if ok && !strings.EqualFold(v, "true") && !strings.EqualFold(v, "false") {
			errs = append(errs, field.Invalid(path.Index(i).Child("metadata", "annotations").Key(dictEnableAnnotation), v,
				`must be "true" or "false": "false" leaves the golden image out, "true" (or no annotation) keeps it`))
		}
	}
	return errs
}

func bandwidth(s *string, path *field.Path) field.ErrorList {
	if s == nil {
		return nil
	}
	if _, err := migration.ParseBandwidth(*s); err != nil {
		return field.ErrorList{field.Invalid(path, *s,
			`must be a non-negative quantity of bytes per second, such as "64Mi" ("0" for no limit)`)}
	}
	return nil
}

// CertConfig checks the certificate rotation policy: every duration and
// renewBefore at least MinCertDuration, renewBefore not above its duration,
// and the server duration not above the CA duration. Unset values are not
// checked (the CRD defaults them).
func CertConfig(c hcov1.HyperConvergedCertConfig, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, certRotation(c.CA.Duration, c.CA.RenewBefore, path.Child("ca"))...)
	errs = append(errs, certRotation(c.Server.Duration, c.Server.RenewBefore, path.Child("server"))...)
	if c.CA.Duration != nil && c.Server.Duration != nil && c.Server.Duration.Duration > c.CA.Duration.Duration {
		errs = append(errs, field.Invalid(path.Child("server", "duration"), c.Server.Duration.Duration.String(),
			fmt.Sprintf("must not exceed %s (%s): a server certificate cannot outlive its CA; lower server.duration or raise ca.duration",
				path.Child("ca", "duration"), c.CA.Duration.Duration)))
	}
	return errs
}

func certRotation(duration, renewBefore *metav1.Duration, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, f := range []struct {
		name string
		d    *metav1.Duration
	}{{"duration", duration}, {"renewBefore", renewBefore}} {
		if f.d != nil && f.d.Duration < MinCertDuration {
			errs = append(errs, field.Invalid(path.Child(f.name), f.d.Duration.String(),
				fmt.Sprintf("must be at least %s", MinCertDuration)))
		}
	}
	if duration != nil && renewBefore != nil && renewBefore.Duration > duration.Duration {
		errs = append(errs, field.Invalid(path.Child("renewBefore"), renewBefore.Duration.String(),
			fmt.Sprintf("must not exceed %s (%s); lower renewBefore or raise duration", path.Child("duration"), duration.Duration)))
	}
	return errs
}

func hostDevices(p *hcov1.PermittedHostDevices, path *field.Path) field.ErrorList {
	if p == nil {
		return nil
	}
	var errs field.ErrorList
	for i, d := range p.PciHostDevices {
		entry := path.Child("pciHostDevices").Index(i)
		switch {
		case d.PCIDeviceSelector == "":
			errs = append(errs, field.Required(entry.Child("pciDeviceSelector"),
				`set it to the device's VENDOR:DEVICE id in hex, e.g. "10DE:1EB8" (see lspci -nn)`))
		case !hostdevices.ValidPCISelector(d.PCIDeviceSelector):
			errs = append(errs, field.Invalid(entry.Child("pciDeviceSelector"), d.PCIDeviceSelector,
				`must be VENDOR:DEVICE in hex, e.g. "10DE:1EB8" (see lspci -nn)`))
		}
	}
	return errs
}

// jsonPatches checks every jsonpatch annotation: an RFC 6902 patch touching
// only /spec, which applies to the object of its operand. When the spec
// already has errors, operand errors other than jsonpatch errors are not
// reported again.
func jsonPatches(hc *hcov1.HyperConverged, opts Options, specHasErrors bool) field.ErrorList {
	annotations := field.NewPath("metadata", "annotations")
	var errs field.ErrorList
	reported := map[string]bool{}
	for _, key := range hcov1.JSONPatchAnnotations() {
		if _, err := jsonpatch.Parse(key, hc.GetAnnotations()[key]); err != nil {
			errs = append(errs, field.Invalid(annotations.Key(key), field.OmitValueType{}, patchDetail(err)))
			reported[key] = true
		}
	}
	if opts.Registry == nil {
		return errs
	}
	for _, op := range opts.Registry.Operands() {
		// Through the library's one path, so that a patch is checked as the
		// reconciler applies it. It works on a copy of hc.
		if _, err := hco.DesiredObjects(op, hc, hco.OfflineFacts(opts.Environment)); err != nil {
			var pe *jsonpatch.Error
			switch {
			case errors.As(err, &pe):
				if !reported[pe.Annotation] {
					errs = append(errs, field.Invalid(annotations.Key(pe.Annotation), field.OmitValueType{}, patchDetail(err)))
					reported[pe.Annotation] = true
				}
			case !specHasErrors:
				errs = append(errs, field.Invalid(field.NewPath("spec"), field.OmitValueType{},
					fmt.Sprintf("operand %s cannot be built from this HyperConverged: %v", op.Name(), err)))
			}
		}
	}
	return errs
}

func patchDetail(err error) string {
	return strings.TrimSuffix(err.Error(), ".") + "; fix the patch or remove the annotation"
}

// Changed reports whether an update changes what this package validates: the
// spec or a jsonpatch annotation. Updates that change neither (finalizers,
// labels, other annotations) are not re-validated, so an object accepted
// under older rules can still be finalized.
func Changed(old, updated *hcov1.HyperConverged) bool {
	if !equality.Semantic.DeepEqual(old.Spec, updated.Spec) {
		return true
	}
	for _, key := range hcov1.JSONPatchAnnotations() {
		if old.GetAnnotations()[key] != updated.GetAnnotations()[key] {
			return true
		}
	}
	return false
}

// WorkloadPlacementChanged reports whether an update changes
// spec.deployment.nodePlacements.workload. An absent and an empty placement
// are the same.
func WorkloadPlacementChanged(old, updated *hcov1.HyperConverged) bool {
	a, b := old.Spec.WorkloadPlacement(), updated.Spec.WorkloadPlacement()
	if a == nil {
		a = &hcov1.NodePlacement{}
	}
	if b == nil {
		b = &hcov1.NodePlacement{}
	}
	return !equality.Semantic.DeepEqual(a, b)
}

// Message turns errs into one denial message, one error per clause.
func Message(errs field.ErrorList) string {
	parts := make([]string, len(errs))
	for i, e := range errs {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "; ")
}
