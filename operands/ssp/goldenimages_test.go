package ssp_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/operands/ssp"
)

func TestDefaultGoldenImagesParseAndAreValid(t *testing.T) {
	list, err := ssp.DefaultGoldenImages()
	require.NoError(t, err)
	require.NoError(t, ssp.ValidateGoldenImages(list))
	require.Len(t, list, len(commonNames))
	for _, d := range list {
		assert.Contains(t, commonNames, d.Name)
		assert.True(t, strings.HasSuffix(d.Name, "-image-cron"), d.Name)
		assert.True(t, strings.HasPrefix(*d.Spec.Template.Spec.Source.Registry.URL, "docker://quay.io/containerdisks/"), d.Name)
		assert.NotEmpty(t, d.Spec.Template.Spec.Storage.Resources.Requests.Storage(), d.Name)
		assert.Equal(t, "Outdated", string(*d.Spec.GarbageCollect), d.Name)
		assert.Equal(t, int32(1), *d.Spec.ImportsToKeep, d.Name)
		assert.Equal(t, "true", d.Annotations[ssp.ImmediateBindAnnotation], d.Name)
		assert.ElementsMatch(t, []string{"amd64", "arm64", "s390x"}, strings.Split(d.Annotations[ssp.ArchitecturesAnnotation], ","), d.Name)
	}

	again, err := ssp.DefaultGoldenImages()
	require.NoError(t, err)
	list[0].Name = "changed"
	assert.NotEqual(t, "changed", again[0].Name, "a fresh copy every call")
}

func TestValidateGoldenImages(t *testing.T) {
	for name, tc := range map[string]struct {
		change func(*hcov1.DataImportCronTemplate)
		want   string
	}{
		"bad name":       {func(d *hcov1.DataImportCronTemplate) { d.Name = "Bad_Name" }, `golden image 0 ("Bad_Name"): metadata.name: a lowercase RFC 1123 subdomain`},
		"no spec":        {func(d *hcov1.DataImportCronTemplate) { d.Spec = nil }, `golden image 0 ("ok"): spec is required`},
		"schedule":       {func(d *hcov1.DataImportCronTemplate) { d.Spec.Schedule = "@daily" }, `spec.schedule "@daily": a cron schedule has 5 fields, not 1`},
		"no data source": {func(d *hcov1.DataImportCronTemplate) { d.Spec.ManagedDataSource = "" }, `spec.managedDataSource is required`},
		"no registry":    {func(d *hcov1.DataImportCronTemplate) { d.Spec.Template.Spec.Source = nil }, `spec.template.spec.source.registry needs a url or an imageStream`},
		"empty url":      {func(d *hcov1.DataImportCronTemplate) { d.Spec.Template.Spec.Source.Registry.URL = ptr.To("") }, `needs a url or an imageStream`},
		"no storage":     {func(d *hcov1.DataImportCronTemplate) { d.Spec.Template.Spec.Storage = nil }, `spec.template.spec needs storage or pvc`},
		"empty arch": {func(d *hcov1.DataImportCronTemplate) {
			d.Annotations = map[string]string{ssp.ArchitecturesAnnotation: "amd64,"}
		}, `lists an empty architecture`},
		"valid (reference)": {func(*hcov1.DataImportCronTemplate) {}, ""},
	} {
		t.Run(name, func(t *testing.T) {
			list, err := ssp.DefaultGoldenImages()
			require.NoError(t, err)
			d := *list[0].DeepCopy()
			d.Name = "ok"
			tc.change(&d)
			err = ssp.ValidateGoldenImages([]hcov1.DataImportCronTemplate{d})
			if tc.want == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	list, err := ssp.DefaultGoldenImages()
	require.NoError(t, err)
	err = ssp.ValidateGoldenImages(append(list, list[0]))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the name is used twice")
}

func TestParseGoldenImagesIsStrict(t *testing.T) {
	_, err := ssp.ParseGoldenImages([]byte(`- metadata: {name: a}
  spec: {schedul: "0 0 * * *"}
`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "schedul")
}

func TestGoldenImageStatuses(t *testing.T) {
	common, err := ssp.DefaultGoldenImages()
	require.NoError(t, err)
	now := metav1.NewTime(time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC))

	modified := customImage("fedora-image-cron")
	hc := newV1(func(hc *hcov1.HyperConverged) {
		hc.Spec.WorkloadSources.DataImportCronTemplates = []hcov1.DataImportCronTemplate{
			modified, customImage("my-image"), disabled("centos-stream9-image-cron", "false"),
		}
	})
	got, err := ssp.GoldenImageStatuses(hc, common, nil, ssp.Recorded{}, now)
	require.NoError(t, err)
	type flags struct{ common, modified bool }
	want := map[string]flags{
		"centos-stream10-image-cron": {common: true},
		"fedora-image-cron":          {common: true, modified: true},
		"my-image":                   {},
	}
	require.Len(t, got, len(want))
	for i, st := range got {
		if i > 0 {
			assert.Less(t, got[i-1].Name, st.Name, "sorted by name")
		}
		assert.Equal(t, want[st.Name], flags{st.Status.CommonTemplate, st.Status.Modified}, st.Name)
		assert.Empty(t, st.Status.Conditions, st.Name)
		if st.Name == "my-image" {
			assert.NotContains(t, st.Annotations, ssp.ArchitecturesAnnotation)
		} else {
			assert.Contains(t, st.Annotations, ssp.ArchitecturesAnnotation, "%s: the status keeps what the images say", st.Name)
		}
	}
	assert.Equal(t, "docker://quay.io/containerdisks/fedora:latest", *common[2].Spec.Template.Spec.Source.Registry.URL, "common is not changed")
	assert.Equal(t, "0 */12 * * *", common[0].Spec.Schedule, "common is not changed")
}

// Every golden image keeps one import and none of its DataSource's old
// ones unless it says otherwise, as upstream: the common ones, the admin's
// modified and added ones (upstream's mutating webhook fills them in).
func TestGoldenImageStatusesKeepOneImport(t *testing.T) {
	common, err := ssp.DefaultGoldenImages()
	require.NoError(t, err)
	for i := range common {
		common[i].Spec.ImportsToKeep = nil
	}
	kept := customImage("kept")
	kept.Spec.RetentionPolicy = ptr.To(cdiv1beta1.DataImportCronRetainAll)
	kept.Spec.ImportsToKeep = ptr.To[int32](3)
	hc := newV1(func(hc *hcov1.HyperConverged) {
		hc.Spec.WorkloadSources.DataImportCronTemplates = []hcov1.DataImportCronTemplate{
			customImage("fedora-image-cron"), customImage("my-image"), kept,
		}
	})
	got, err := ssp.GoldenImageStatuses(hc, common, nil, ssp.Recorded{}, metav1.Now())
	require.NoError(t, err)
	require.Len(t, got, len(common)+2)
	for _, st := range got {
		want, keep := cdiv1beta1.DataImportCronRetainNone, int32(1)
		if st.Name == "kept" {
			want, keep = cdiv1beta1.DataImportCronRetainAll, 3
		}
		assert.Equal(t, want, *st.Spec.RetentionPolicy, st.Name)
		assert.Equal(t, keep, *st.Spec.ImportsToKeep, st.Name)
	}
	assert.Nil(t, hc.Spec.WorkloadSources.DataImportCronTemplates[0].Spec.RetentionPolicy, "hc is not changed")
	assert.Nil(t, common[0].Spec.RetentionPolicy, "common is not changed")
}

func TestGoldenImageStatusesMultiArch(t *testing.T) {
	common, err := ssp.DefaultGoldenImages()
	require.NoError(t, err)
	then := metav1.NewTime(time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC))
	now := metav1.NewTime(time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC))

	ownRegistry := customImage("centos-stream9-image-cron") // no architectures annotation, another registry
	sameRegistry := *common[2].DeepCopy()                   // fedora, the admin's annotations on the same registry
	sameRegistry.Annotations = map[string]string{ssp.ArchitecturesAnnotation: "ppc64le", "example.com/x": "y"}
	hc := newV1(func(hc *hcov1.HyperConverged) {
		hc.Spec.FeatureGates = hcov1.FeatureGates{{Name: ssp.GateMultiArchBootImageImport}}
		hc.Spec.WorkloadSources.DataImportCronTemplates = []hcov1.DataImportCronTemplate{ownRegistry, sameRegistry}
	})
	recorded := ssp.Recorded{Images: []hcov1.DataImportCronTemplateStatus{{
		DataImportCronTemplate: hcov1.DataImportCronTemplate{ObjectMeta: metav1.ObjectMeta{Name: "centos-stream10-image-cron"}},
		Status: hcov1.DataImportCronStatus{Conditions: []metav1.Condition{{
			Type: ssp.ConditionDeployed, Status: metav1.ConditionFalse, Reason: ssp.ReasonUnsupportedArchitectures, LastTransitionTime: then,
		}}},
	}}}
	got, err := ssp.GoldenImageStatuses(hc, common, []string{"ppc64le"}, recorded, now)
	require.NoError(t, err)
	byName := map[string]hcov1.DataImportCronTemplateStatus{}
	for _, st := range got {
		byName[st.Name] = st
	}

	c10 := byName["centos-stream10-image-cron"]
	assert.Equal(t, "", c10.Annotations[ssp.ArchitecturesAnnotation])
	assert.Equal(t, "amd64,arm64,s390x", c10.Status.OriginalSupportedArchitectures)
	cond := meta.FindStatusCondition(c10.Status.Conditions, ssp.ConditionDeployed)
	require.NotNil(t, cond)
	assert.Equal(t, metav1.ConditionFalse, cond.Status)
	assert.Equal(t, ssp.ReasonUnsupportedArchitectures, cond.Reason)
	assert.Equal(t, then, cond.LastTransitionTime, "a condition already held keeps its time")

	fedora := byName["fedora-image-cron"]
	assert.Equal(t, "y", fedora.Annotations["example.com/x"])
	assert.Equal(t, "arm64,s390x,amd64", fedora.Status.OriginalSupportedArchitectures, "same registry: the common image's architectures, not the admin's")
	assert.Equal(t, now, meta.FindStatusCondition(fedora.Status.Conditions, ssp.ConditionDeployed).LastTransitionTime, "a new condition: now")

	c9 := byName["centos-stream9-image-cron"]
	assert.NotContains(t, c9.Annotations, ssp.ArchitecturesAnnotation, "another registry without architectures: none")
	assert.Empty(t, c9.Status.Conditions)

	assert.Equal(t, []string{"centos-stream9-image-cron"}, names(ssp.ForSSP(got, true)), "images for none of the workload architectures do not reach SSP")
	assert.Len(t, ssp.ForSSP(got, false), 3, "without the gate nothing is left out")

	got, err = ssp.GoldenImageStatuses(hc, common, nil, recorded, now)
	require.NoError(t, err)
	for _, st := range got {
		assert.Empty(t, st.Status.Conditions, "%s: unknown workload architectures narrow nothing", st.Name)
	}
}

func TestForSSPAnnotations(t *testing.T) {
	st := []hcov1.DataImportCronTemplateStatus{{DataImportCronTemplate: customImage("a")}, {DataImportCronTemplate: customImage("b")}}
	st[1].Annotations = map[string]string{ssp.ImmediateBindAnnotation: "false", ssp.ArchitecturesAnnotation: "amd64"}
	out := ssp.ForSSP(st, false)
	assert.Equal(t, "true", out[0].Annotations[ssp.ImmediateBindAnnotation])
	assert.Equal(t, "false", out[1].Annotations[ssp.ImmediateBindAnnotation], "the image's own value stays")
	assert.NotContains(t, out[1].Annotations, ssp.ArchitecturesAnnotation, "gate off")
	assert.Equal(t, "amd64", ssp.ForSSP(st, true)[1].Annotations[ssp.ArchitecturesAnnotation])
	assert.Equal(t, "amd64", st[1].Annotations[ssp.ArchitecturesAnnotation], "the statuses are not changed")
	assert.Nil(t, ssp.ForSSP(nil, false))
}

func TestContributeStatus(t *testing.T) {
	hc := newV1(func(hc *hcov1.HyperConverged) {
		hc.Spec.WorkloadSources.DataImportCronTemplates = []hcov1.DataImportCronTemplate{customImage("my-image")}
	})
	st := hc.Status.DeepCopy()
	st.ObservedGeneration = 7
	require.NoError(t, ssp.New().ContributeStatus(hc, hco.Facts{}, metav1.Now(), st))
	assert.Equal(t, ssp.DataImportSchedule(hc, ""), st.DataImportSchedule)
	assert.Len(t, st.DataImportCronTemplates, len(commonNames)+1)
	assert.Equal(t, int64(7), st.ObservedGeneration, "nothing else changes")

	// What SSP gets is what the status says was applied.
	got, err := ssp.Build(hc, hco.Facts{})
	require.NoError(t, err)
	assert.Equal(t, names(ssp.ForSSP(st.DataImportCronTemplates, false)), names(got.Spec.CommonTemplates.DataImportCronTemplates))

	bad := hc.DeepCopy()
	bad.Spec.WorkloadSources.DataImportCronTemplates = append(bad.Spec.WorkloadSources.DataImportCronTemplates, customImage("my-image"))
	st = hc.Status.DeepCopy()
	require.Error(t, ssp.New().ContributeStatus(bad, hco.Facts{}, metav1.Now(), st))
	assert.Empty(t, st.DataImportCronTemplates, "nothing set on an error")
}
