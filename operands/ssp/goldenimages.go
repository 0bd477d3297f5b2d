package ssp

import (
	_ "embed" // the common golden images, goldenimages.yaml
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"reflect"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	sspv1beta3 "kubevirt.io/ssp-operator/api/v1beta3"
	"sigs.k8s.io/yaml"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/featuregates"
)

// Annotations and names upstream HCO uses for golden images.
const (
	// EnableAnnotation on an entry of
	// spec.workloadSources.dataImportCronTemplates keeps the golden image of
	// that name when absent or "true" (any case); any other value drops it:
	// a common image the admin opts out of, or one of the admin's own.
	EnableAnnotation = "dataimportcrontemplate.kubevirt.io/enable"

	// ArchitecturesAnnotation lists, comma-separated, the CPU architectures
	// a golden image is built for. With the multi-arch gate it is narrowed
	// to the cluster's workload architectures; without, it is not passed
	// to SSP.
	ArchitecturesAnnotation = "ssp.kubevirt.io/dict.architectures"

	// ImmediateBindAnnotation asks CDI to bind the image's volume at once.
	// Every golden image SSP gets carries it ("true" unless the image says
	// otherwise), as upstream sets it.
	ImmediateBindAnnotation = "cdi.kubevirt.io/storage.bind.immediate.requested"

	// GateMultiArchBootImageImport is the spec.featureGates name that imports
	// golden images per CPU architecture (SSP's enableMultipleArchitectures).
	GateMultiArchBootImageImport = featuregates.GateEnableMultiArchBootImageImport

	// ConditionDeployed is the condition of a golden image's status that is
	// False when none of its architectures is among the cluster's workload
	// architectures; such an image is not passed to SSP.
	ConditionDeployed = "Deployed"

	// ReasonUnsupportedArchitectures is the reason of a False ConditionDeployed.
	ReasonUnsupportedArchitectures = "UnsupportedArchitectures"

	messageUnsupportedArchitectures = "DataImportCronTemplate has no supported architectures for the current cluster"

	dictsPath = "spec.workloadSources.dataImportCronTemplates"
)

//go:embed goldenimages.yaml
var goldenImagesYAML string

// DefaultGoldenImages returns the common golden images hcokit ships
// (goldenimages.yaml, upstream HCO's list), a fresh copy on every call.
func DefaultGoldenImages() ([]hcov1.DataImportCronTemplate, error) {
	return ParseGoldenImages([]byte(goldenImagesYAML))
}

// ParseGoldenImages reads a YAML (or JSON) list of DataImportCronTemplates,
// the format of goldenimages.yaml, rejecting unknown fields, and checks it
// with ValidateGoldenImages. A distribution uses it to load its own list for
// WithGoldenImages.
func ParseGoldenImages(data []byte) ([]hcov1.DataImportCronTemplate, error) {
	var list []hcov1.DataImportCronTemplate
	if err := yaml.UnmarshalStrict(data, &list); err != nil {
		return nil, fmt.Errorf("golden images: %w", err)
	}
	if err := ValidateGoldenImages(list); err != nil {
		return nil, err
	}
	return list, nil
}

// ValidateGoldenImages checks a list of common golden images: each has a
// unique DNS-subdomain name and a spec with a five-field cron schedule, a
// managed DataSource, a registry source (url or imageStream) and a storage
// or pvc request; an ArchitecturesAnnotation, when present, lists no empty
// name. The error lists every problem, each naming the image.
func ValidateGoldenImages(list []hcov1.DataImportCronTemplate) error {
	var errs []error
	seen := map[string]bool{}
	for i, d := range list {
		id := fmt.Sprintf("golden image %d (%q)", i, d.Name)
		for _, msg := range validation.IsDNS1123Subdomain(d.Name) {
			errs = append(errs, fmt.Errorf("%s: metadata.name: %s", id, msg))
		}
		if seen[d.Name] {
			errs = append(errs, fmt.Errorf("%s: the name is used twice", id))
		}
		seen[d.Name] = true
		if archs, ok := d.Annotations[ArchitecturesAnnotation]; ok && slices.Contains(strings.Split(archs, ","), "") {
			errs = append(errs, fmt.Errorf("%s: annotation %s: %q lists an empty architecture", id, ArchitecturesAnnotation, archs))
		}
		if d.Spec == nil {
			errs = append(errs, fmt.Errorf("%s: spec is required", id))
			continue
		}
		if n := len(strings.Fields(d.Spec.Schedule)); n != 5 {
			errs = append(errs, fmt.Errorf("%s: spec.schedule %q: a cron schedule has 5 fields, not %d", id, d.Spec.Schedule, n))
		}
		if d.Spec.ManagedDataSource == "" {
			errs = append(errs, fmt.Errorf("%s: spec.managedDataSource is required", id))
		}
		dv := d.Spec.Template.Spec
		if dv.Source == nil || dv.Source.Registry == nil ||
			(ptr.Deref(dv.Source.Registry.URL, "") == "" && ptr.Deref(dv.Source.Registry.ImageStream, "") == "") {
			errs = append(errs, fmt.Errorf("%s: spec.template.spec.source.registry needs a url or an imageStream", id))
		}
		if dv.Storage == nil && dv.PVC == nil {
			errs = append(errs, fmt.Errorf("%s: spec.template.spec needs storage or pvc", id))
		}
	}
	return errors.Join(errs...)
}

// DataImportSchedule is the cron schedule of the common golden images for
// hc: recorded, the schedule the HyperConverged's status records
// (hco.Facts.DataImportSchedule: an object upstream HCO managed keeps
// upstream's choice), when set; else one derived from hc alone,
// "M H/12 * * *" with the minute (0-59) and hour (0-11) taken from an
// FNV-1a hash of metadata.uid (of namespace/name when there is no UID, as
// in an offline render). Upstream picks the minute and hour at random once
// and stores them; derived, the schedule is the same for every reconcile of
// the object, spread over clusters.
func DataImportSchedule(hc *hcov1.HyperConverged, recorded string) string {
	if recorded != "" {
		return recorded
	}
	seed := string(hc.UID)
	if seed == "" {
		seed = hc.Namespace + "/" + hc.Name
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(seed)) // a hash.Hash never fails to write
	sum := h.Sum32()
	return fmt.Sprintf("%d %d/12 * * *", sum%60, (sum/60)%12)
}

// Recorded is what the HyperConverged's status already records of the
// golden images, handed in by the caller, never read from hc: the schedule
// (status.dataImportSchedule) and the images
// (status.dataImportCronTemplates), whose Deployed conditions keep their
// transition time. The zero value records nothing.
type Recorded struct {
	Schedule string
	Images   []hcov1.DataImportCronTemplateStatus
}

// GoldenImageStatuses computes the golden images for hc, in the form of
// status.dataImportCronTemplates, as upstream HCO does:
//
//   - the common images (CommonTemplate), with the schedule
//     DataImportSchedule(hc, recorded.Schedule) and, when spec.workloadSources
//     .commonBootImageNamespace is set, in that namespace; none when
//     spec.workloadSources.enableCommonBootImageImport is false;
//   - an entry of spec.workloadSources.dataImportCronTemplates named as a
//     common image drops it when EnableAnnotation says so, else replaces its
//     spec and namespace and adds its annotations (Modified); an empty
//     schedule keeps the common one. Its labels are not taken;
//   - the other enabled entries are the admin's own images. One named as a
//     common image is dropped while the common images are off.
//   - every image with a spec and no retentionPolicy or importsToKeep gets
//     None and 1: upstream sets them on the common images as it loads them
//     and its mutating webhook on the admin's entries as they are stored
//     (CDI's own defaults, All and 3, would keep old imports for nothing);
//   - with the enableMultiArchBootImageImport gate, an image's
//     ArchitecturesAnnotation is narrowed to workloadArchitectures (the
//     node facts' architectures of the workload nodes; the original kept in
//     OriginalSupportedArchitectures); when none is left, ConditionDeployed
//     is False and SSP does not get the image. While the workload
//     architectures are unknown (empty, e.g. an offline render) nothing is
//     narrowed.
//
// The list is sorted by name. common is not changed. now is the transition
// time of a Deployed condition that recorded.Images does not already hold
// (a held one keeps its time). An error names the entry of
// spec.workloadSources.dataImportCronTemplates to fix: no name, a name used
// twice, or an enabled entry without a spec.
func GoldenImageStatuses(hc *hcov1.HyperConverged, common []hcov1.DataImportCronTemplate, workloadArchitectures []string, recorded Recorded, now metav1.Time) ([]hcov1.DataImportCronTemplateStatus, error) {
	ws := hc.Spec.WorkloadSources
	custom := map[string]hcov1.DataImportCronTemplate{}
	for i, d := range ws.DataImportCronTemplates {
		switch _, dup := custom[d.Name]; {
		case d.Name == "":
			return nil, fmt.Errorf("%s[%d]: metadata.name is required", dictsPath, i)
		case dup:
			return nil, fmt.Errorf("%s[%d]: %q is defined more than once", dictsPath, i, d.Name)
		case enabled(d) && d.Spec == nil:
			return nil, fmt.Errorf("%s[%d] (%q): spec is required unless annotation %s is \"false\"", dictsPath, i, d.Name, EnableAnnotation)
		}
		custom[d.Name] = d
	}
	multiArch := featuregates.MultiArchBootImageImportEnabled(&hc.Spec)
	schedule := DataImportSchedule(hc, recorded.Schedule)

	var out []hcov1.DataImportCronTemplateStatus
	isCommon := map[string]bool{}
	for _, c := range common {
		isCommon[c.Name] = true
	}
	if ptr.Deref(ws.EnableCommonBootImageImport, true) {
		for _, c := range common {
			st := hcov1.DataImportCronTemplateStatus{DataImportCronTemplate: *c.DeepCopy()}
			st.Status.CommonTemplate = true
			if st.Spec == nil {
				st.Spec = &cdiv1beta1.DataImportCronSpec{}
			}
			st.Spec.Schedule = schedule
			if d, found := custom[c.Name]; found {
				if !enabled(d) {
					continue
				}
				modifyCommon(&st, d, multiArch)
			} else if ns := ptr.Deref(ws.CommonBootImageNamespace, ""); ns != "" {
				st.Namespace = ns
			}
			out = append(out, st)
		}
	}
	for _, d := range ws.DataImportCronTemplates {
		if enabled(d) && !isCommon[d.Name] {
			out = append(out, hcov1.DataImportCronTemplateStatus{DataImportCronTemplate: *d.DeepCopy()})
		}
	}

	for i := range out {
		keepOneImport(out[i].Spec)
	}

	archs := workloadArchitectures
	if multiArch && len(archs) > 0 {
		prev := map[string][]metav1.Condition{}
		for _, p := range recorded.Images {
			prev[p.Name] = p.Status.Conditions
		}
		for i := range out {
			narrowArchitectures(&out[i], archs, prev[out[i].Name], now)
		}
	}
	slices.SortFunc(out, func(a, b hcov1.DataImportCronTemplateStatus) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// keepOneImport sets a golden image's retentionPolicy to None and its
// importsToKeep to 1 where they are unset, as upstream HCO does
// (controllers/handlers/golden-images/golden_images.go ensureDICTFields,
// pkg/webhooks/mutator getDICTPatches at 03da3cf).
func keepOneImport(spec *cdiv1beta1.DataImportCronSpec) {
	if spec == nil {
		return
	}
	if spec.RetentionPolicy == nil {
		spec.RetentionPolicy = ptr.To(cdiv1beta1.DataImportCronRetainNone)
	}
	if spec.ImportsToKeep == nil {
		spec.ImportsToKeep = ptr.To[int32](1)
	}
}

// modifyCommon applies the admin's entry d to the common image st: d's
// spec (with the common schedule when d has none) and namespace, d's
// annotations over the common ones. With the multi-arch gate the
// architectures stay the common image's unless d changes the registry
// source, in which case they are d's (none when d has none).
func modifyCommon(st *hcov1.DataImportCronTemplateStatus, d hcov1.DataImportCronTemplate, multiArch bool) {
	spec := d.Spec.DeepCopy()
	if spec.Schedule == "" {
		spec.Schedule = st.Spec.Schedule
	}
	registryChanged := registryOf(spec) != nil && !reflect.DeepEqual(registryOf(spec), registryOf(st.Spec))
	if ann := maps.Clone(d.Annotations); ann != nil {
		if multiArch && !registryChanged {
			if archs, ok := st.Annotations[ArchitecturesAnnotation]; ok {
				ann[ArchitecturesAnnotation] = archs
			} else {
				delete(ann, ArchitecturesAnnotation)
			}
		}
		if st.Annotations == nil {
			st.Annotations = map[string]string{}
		}
		maps.Copy(st.Annotations, ann)
	}
	if multiArch && registryChanged {
		if _, ok := d.Annotations[ArchitecturesAnnotation]; !ok {
			delete(st.Annotations, ArchitecturesAnnotation)
		}
	}
	st.Spec = spec
	st.Namespace = d.Namespace
	st.Status.Modified = true
}

// narrowArchitectures keeps, in st's ArchitecturesAnnotation, the
// architectures among archs, and sets or removes ConditionDeployed.
func narrowArchitectures(st *hcov1.DataImportCronTemplateStatus, archs []string, prev []metav1.Condition, now metav1.Time) {
	original, ok := st.Annotations[ArchitecturesAnnotation]
	if !ok {
		return
	}
	var kept []string
	for _, a := range strings.Split(original, ",") {
		if slices.Contains(archs, a) {
			kept = append(kept, a)
		}
	}
	st.Annotations[ArchitecturesAnnotation] = strings.Join(kept, ",")
	st.Status.OriginalSupportedArchitectures = original
	if len(kept) > 0 {
		meta.RemoveStatusCondition(&st.Status.Conditions, ConditionDeployed)
		return
	}
	cond := metav1.Condition{
		Type:               ConditionDeployed,
		Status:             metav1.ConditionFalse,
		Reason:             ReasonUnsupportedArchitectures,
		Message:            messageUnsupportedArchitectures,
		LastTransitionTime: now,
	}
	if p := meta.FindStatusCondition(prev, ConditionDeployed); p != nil && p.Status == cond.Status {
		cond.LastTransitionTime = p.LastTransitionTime
	}
	meta.SetStatusCondition(&st.Status.Conditions, cond)
}

// ForSSP turns golden image statuses (GoldenImageStatuses) into SSP's
// spec.commonTemplates.dataImportCronTemplates, as upstream does: without
// the images whose ConditionDeployed is False (with the multi-arch gate),
// each with ImmediateBindAnnotation "true" unless it says otherwise, and
// without ArchitecturesAnnotation when the gate is off. Nil when empty.
func ForSSP(statuses []hcov1.DataImportCronTemplateStatus, multiArch bool) []sspv1beta3.DataImportCronTemplate {
	var out []sspv1beta3.DataImportCronTemplate
	for _, st := range statuses {
		if multiArch && meta.IsStatusConditionFalse(st.Status.Conditions, ConditionDeployed) {
			continue
		}
		d := sspv1beta3.DataImportCronTemplate{ObjectMeta: *st.ObjectMeta.DeepCopy()}
		if st.Spec != nil {
			st.Spec.DeepCopyInto(&d.Spec)
		}
		if d.Annotations == nil {
			d.Annotations = map[string]string{}
		}
		if _, set := d.Annotations[ImmediateBindAnnotation]; !set {
			d.Annotations[ImmediateBindAnnotation] = "true"
		}
		if !multiArch {
			delete(d.Annotations, ArchitecturesAnnotation)
		}
		out = append(out, d)
	}
	return out
}

// enabled reports whether an admin's entry is on (EnableAnnotation absent or "true").
func enabled(d hcov1.DataImportCronTemplate) bool {
	v, found := d.Annotations[EnableAnnotation]
	return !found || strings.EqualFold(v, "true")
}

// registryOf is the registry source of a golden image's spec, nil when none.
func registryOf(s *cdiv1beta1.DataImportCronSpec) *cdiv1beta1.DataVolumeSourceRegistry {
	if s == nil || s.Template.Spec.Source == nil {
		return nil
	}
	return s.Template.Spec.Source.Registry
}
