package ssp_test

import (
	"regexp"
	"testing"

	ocpconfigv1 "github.com/openshift/api/config/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	sspv1beta3 "kubevirt.io/ssp-operator/api/v1beta3"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	hcov1beta1 "github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/nodefacts"
	"github.com/hcokit/hcokit/operands/ssp"
)

const (
	testNamespace = "kubevirt-hyperconverged"
	testUID       = "2f3c1d5e-7a7b-4c8e-9f00-1234567890ab"
)

var commonNames = []string{"centos-stream10-image-cron", "centos-stream9-image-cron", "fedora-image-cron"}

// fieldCase sets one HyperConverged field in both API versions and checks
// the SSP built from it.
type fieldCase struct {
	name    string
	v1      func(*hcov1.HyperConverged)
	v1beta1 func(*hcov1beta1.HyperConverged)
	check   func(t *testing.T, hc *hcov1.HyperConverged, got *sspv1beta3.SSP)
	// nodes are the node facts the SSP is built with; nil: unknown.
	nodes *nodefacts.Facts
}

// newV1 is a v1 HyperConverged as the API server stores it: defaulted.
func newV1(set func(*hcov1.HyperConverged)) *hcov1.HyperConverged {
	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: testNamespace, UID: testUID}}
	if set != nil {
		set(hc)
	}
	hcov1.Default(hc)
	return hc
}

// newV1beta1 is a defaulted v1beta1 HyperConverged converted to the hub.
func newV1beta1(t *testing.T, set func(*hcov1beta1.HyperConverged)) *hcov1.HyperConverged {
	t.Helper()
	old := &hcov1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: testNamespace, UID: testUID}}
	if set != nil {
		set(old)
	}
	hcov1beta1.Default(old)
	hc := &hcov1.HyperConverged{}
	require.NoError(t, old.ConvertTo(hc))
	return hc
}

func runBoth(t *testing.T, cases []fieldCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for version, hc := range map[string]*hcov1.HyperConverged{
				"v1":      newV1(tc.v1),
				"v1beta1": newV1beta1(t, tc.v1beta1),
			} {
				t.Run(version, func(t *testing.T) {
					objs, err := ssp.New().Desired(hc.DeepCopy(), hco.Facts{Nodes: tc.nodes})
					require.NoError(t, err)
					require.Len(t, objs, 1)
					got, ok := objs[0].(*sspv1beta3.SSP)
					require.True(t, ok, "%T", objs[0])
					tc.check(t, hc, got)
				})
			}
		})
	}
}

func names(dicts []sspv1beta3.DataImportCronTemplate) []string {
	var out []string
	for _, d := range dicts {
		out = append(out, d.Name)
	}
	return out
}

func find(t *testing.T, dicts []sspv1beta3.DataImportCronTemplate, name string) sspv1beta3.DataImportCronTemplate {
	t.Helper()
	for _, d := range dicts {
		if d.Name == name {
			return d
		}
	}
	t.Fatalf("no golden image %q in %v", name, names(dicts))
	return sspv1beta3.DataImportCronTemplate{}
}

// customImage is an admin's golden image.
func customImage(name string) hcov1.DataImportCronTemplate {
	return hcov1.DataImportCronTemplate{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: &cdiv1beta1.DataImportCronSpec{
			Schedule:          "5 4 * * *",
			ManagedDataSource: name,
			Template: cdiv1beta1.DataVolume{Spec: cdiv1beta1.DataVolumeSpec{
				Source:  &cdiv1beta1.DataVolumeSource{Registry: &cdiv1beta1.DataVolumeSourceRegistry{URL: ptr.To("docker://example.com/" + name)}},
				Storage: &cdiv1beta1.StorageSpec{},
			}},
		},
	}
}

func disabled(name, value string) hcov1.DataImportCronTemplate {
	return hcov1.DataImportCronTemplate{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{ssp.EnableAnnotation: value}}}
}

func enabledAs(name, value string) hcov1.DataImportCronTemplate {
	d := customImage(name)
	d.Annotations = map[string]string{ssp.EnableAnnotation: value}
	return d
}

func TestGoldenImagesFromHyperConverged(t *testing.T) {
	withDicts := func(dicts ...hcov1.DataImportCronTemplate) (func(*hcov1.HyperConverged), func(*hcov1beta1.HyperConverged)) {
		return func(hc *hcov1.HyperConverged) { hc.Spec.WorkloadSources.DataImportCronTemplates = dicts },
			func(hc *hcov1beta1.HyperConverged) { hc.Spec.DataImportCronTemplates = dicts }
	}
	modified := customImage("fedora-image-cron")
	modified.Namespace = "my-images"
	modified.Spec.Schedule = ""
	modified.Annotations = map[string]string{"example.com/note": "mine"}
	modified.Labels = map[string]string{"example.com/ignored": "true"}
	modV1, modV1beta1 := withDicts(modified, customImage("my-image"))

	offV1, offV1beta1 := withDicts(disabled("fedora-image-cron", "false"), disabled("centos-stream9-image-cron", "False"),
		enabledAs("centos-stream10-image-cron", "TRUE"), customImage("my-image"), disabled("my-other-image", "no"))

	customOnlyV1, customOnlyV1beta1 := withDicts(customImage("my-image"), customImage("fedora-image-cron"))

	runBoth(t, []fieldCase{{
		name:    "defaults: the common images, with the derived schedule",
		v1:      func(*hcov1.HyperConverged) {},
		v1beta1: func(*hcov1beta1.HyperConverged) {},
		check: func(t *testing.T, hc *hcov1.HyperConverged, got *sspv1beta3.SSP) {
			dicts := got.Spec.CommonTemplates.DataImportCronTemplates
			assert.Equal(t, commonNames, names(dicts))
			for _, d := range dicts {
				assert.Equal(t, ssp.DataImportSchedule(hc, ""), d.Spec.Schedule, d.Name)
				assert.Equal(t, "true", d.Annotations[ssp.ImmediateBindAnnotation], d.Name)
				assert.NotContains(t, d.Annotations, ssp.ArchitecturesAnnotation, "gate off: %s", d.Name)
				assert.Empty(t, d.Namespace, d.Name)
			}
			assert.Equal(t, "docker://quay.io/containerdisks/fedora:latest", *find(t, dicts, "fedora-image-cron").Spec.Template.Spec.Source.Registry.URL)
		},
	}, {
		name:    "enableCommonBootImageImport false: none",
		v1:      func(hc *hcov1.HyperConverged) { hc.Spec.WorkloadSources.EnableCommonBootImageImport = ptr.To(false) },
		v1beta1: func(hc *hcov1beta1.HyperConverged) { hc.Spec.EnableCommonBootImageImport = ptr.To(false) },
		check: func(t *testing.T, _ *hcov1.HyperConverged, got *sspv1beta3.SSP) {
			assert.Nil(t, got.Spec.CommonTemplates.DataImportCronTemplates)
		},
	}, {
		name: "enableCommonBootImageImport false: the admin's own only; one named as a common image is dropped, as upstream",
		v1: func(hc *hcov1.HyperConverged) {
			customOnlyV1(hc)
			hc.Spec.WorkloadSources.EnableCommonBootImageImport = ptr.To(false)
		},
		v1beta1: func(hc *hcov1beta1.HyperConverged) {
			customOnlyV1beta1(hc)
			hc.Spec.EnableCommonBootImageImport = ptr.To(false)
		},
		check: func(t *testing.T, _ *hcov1.HyperConverged, got *sspv1beta3.SSP) {
			dicts := got.Spec.CommonTemplates.DataImportCronTemplates
			assert.Equal(t, []string{"my-image"}, names(dicts))
			assert.Equal(t, "5 4 * * *", dicts[0].Spec.Schedule, "the admin's own keep their schedule")
			assert.Equal(t, "true", dicts[0].Annotations[ssp.ImmediateBindAnnotation])
		},
	}, {
		name: "commonBootImageNamespace: the common images' namespace",
		v1: func(hc *hcov1.HyperConverged) {
			hc.Spec.WorkloadSources.CommonBootImageNamespace = ptr.To("os-images")
			hc.Spec.WorkloadSources.DataImportCronTemplates = []hcov1.DataImportCronTemplate{customImage("my-image")}
		},
		v1beta1: func(hc *hcov1beta1.HyperConverged) {
			hc.Spec.CommonBootImageNamespace = ptr.To("os-images")
			hc.Spec.DataImportCronTemplates = []hcov1.DataImportCronTemplate{customImage("my-image")}
		},
		check: func(t *testing.T, _ *hcov1.HyperConverged, got *sspv1beta3.SSP) {
			for _, d := range got.Spec.CommonTemplates.DataImportCronTemplates {
				want := "os-images"
				if d.Name == "my-image" {
					want = ""
				}
				assert.Equal(t, want, d.Namespace, d.Name)
			}
		},
	}, {
		name:    "an entry named as a common image modifies it; others are added",
		v1:      modV1,
		v1beta1: modV1beta1,
		check: func(t *testing.T, hc *hcov1.HyperConverged, got *sspv1beta3.SSP) {
			dicts := got.Spec.CommonTemplates.DataImportCronTemplates
			assert.Equal(t, append(commonNames, "my-image"), names(dicts))
			fedora := find(t, dicts, "fedora-image-cron")
			assert.Equal(t, "docker://example.com/fedora-image-cron", *fedora.Spec.Template.Spec.Source.Registry.URL)
			assert.Equal(t, ssp.DataImportSchedule(hc, ""), fedora.Spec.Schedule, "no schedule: the common one")
			assert.Equal(t, "my-images", fedora.Namespace)
			assert.Equal(t, "mine", fedora.Annotations["example.com/note"])
			assert.Equal(t, "true", fedora.Annotations[ssp.ImmediateBindAnnotation], "the common annotations stay")
			assert.NotContains(t, fedora.Labels, "example.com/ignored", "labels are the common image's, as upstream")
			assert.Nil(t, fedora.Spec.GarbageCollect, "the spec is the admin's, whole")
		},
	}, {
		name:    "the enable annotation drops an image unless it says true",
		v1:      offV1,
		v1beta1: offV1beta1,
		check: func(t *testing.T, _ *hcov1.HyperConverged, got *sspv1beta3.SSP) {
			assert.Equal(t, []string{"centos-stream10-image-cron", "my-image"}, names(got.Spec.CommonTemplates.DataImportCronTemplates))
		},
	}})
}

func TestSSPFieldsFromHyperConverged(t *testing.T) {
	modern := &ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileModernType, Modern: &ocpconfigv1.ModernTLSProfile{}}
	customEmpty := &ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileCustomType}
	runBoth(t, []fieldCase{{
		name:    "defaults",
		v1:      func(*hcov1.HyperConverged) {},
		v1beta1: func(*hcov1beta1.HyperConverged) {},
		check: func(t *testing.T, _ *hcov1.HyperConverged, got *sspv1beta3.SSP) {
			assert.Equal(t, &sspv1beta3.TokenGenerationService{Enabled: false}, got.Spec.TokenGenerationService, "deployVmConsoleProxy defaults to false")
			assert.Equal(t, &ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileIntermediateType, Intermediate: &ocpconfigv1.IntermediateTLSProfile{}}, got.Spec.TLSSecurityProfile)
			assert.Equal(t, ptr.To(false), got.Spec.EnableMultipleArchitectures)
			assert.Equal(t, ptr.To(ssp.TemplateValidatorReplicas), got.Spec.TemplateValidator.Replicas)
			assert.Nil(t, got.Spec.Cluster, "no node facts, no cluster")
			assert.Equal(t, "openshift", got.Spec.CommonTemplates.Namespace)
			assert.Equal(t, ssp.CRName, got.Name)
			assert.Equal(t, testNamespace, got.Namespace)
		},
	}, {
		name:    "deployVmConsoleProxy true: tokenGenerationService enabled",
		v1:      func(hc *hcov1.HyperConverged) { hc.Spec.Deployment.DeployVMConsoleProxy = ptr.To(true) },
		v1beta1: func(hc *hcov1beta1.HyperConverged) { hc.Spec.DeployVMConsoleProxy = ptr.To(true) },
		check: func(t *testing.T, _ *hcov1.HyperConverged, got *sspv1beta3.SSP) {
			assert.Equal(t, &sspv1beta3.TokenGenerationService{Enabled: true}, got.Spec.TokenGenerationService)
		},
	}, {
		name:    "tlsSecurityProfile is passed on",
		v1:      func(hc *hcov1.HyperConverged) { hc.Spec.Security.TLSSecurityProfile = modern.DeepCopy() },
		v1beta1: func(hc *hcov1beta1.HyperConverged) { hc.Spec.TLSSecurityProfile = modern.DeepCopy() },
		check: func(t *testing.T, _ *hcov1.HyperConverged, got *sspv1beta3.SSP) {
			assert.Equal(t, modern, got.Spec.TLSSecurityProfile)
		},
	}, {
		name:    "a Custom tlsSecurityProfile without settings gets Intermediate's",
		v1:      func(hc *hcov1.HyperConverged) { hc.Spec.Security.TLSSecurityProfile = customEmpty.DeepCopy() },
		v1beta1: func(hc *hcov1beta1.HyperConverged) { hc.Spec.TLSSecurityProfile = customEmpty.DeepCopy() },
		check: func(t *testing.T, hc *hcov1.HyperConverged, got *sspv1beta3.SSP) {
			p := got.Spec.TLSSecurityProfile
			require.NotNil(t, p.Custom)
			intermediate := ocpconfigv1.TLSProfiles[ocpconfigv1.TLSProfileIntermediateType]
			assert.Equal(t, intermediate.Ciphers, p.Custom.Ciphers)
			assert.Equal(t, intermediate.MinTLSVersion, p.Custom.MinTLSVersion)
			assert.Nil(t, hc.Spec.Security.TLSSecurityProfile.Custom, "the HyperConverged is not changed")
		},
	}, {
		name: "enableMultiArchBootImageImport: enableMultipleArchitectures, cluster, architectures narrowed",
		v1: func(hc *hcov1.HyperConverged) {
			hc.Spec.FeatureGates = hcov1.FeatureGates{{Name: ssp.GateMultiArchBootImageImport}}
		},
		v1beta1: func(hc *hcov1beta1.HyperConverged) {
			hc.Spec.FeatureGates.Others = map[string]bool{ssp.GateMultiArchBootImageImport: true}
		},
		nodes: &nodefacts.Facts{WorkloadArchitectures: []string{"arm64"}, ControlPlaneArchitectures: []string{"amd64"}},
		check: func(t *testing.T, _ *hcov1.HyperConverged, got *sspv1beta3.SSP) {
			assert.Equal(t, ptr.To(true), got.Spec.EnableMultipleArchitectures)
			assert.Equal(t, &sspv1beta3.Cluster{WorkloadArchitectures: []string{"arm64"}, ControlPlaneArchitectures: []string{"amd64"}}, got.Spec.Cluster)
			dicts := got.Spec.CommonTemplates.DataImportCronTemplates
			assert.Equal(t, commonNames, names(dicts))
			for _, d := range dicts {
				assert.Equal(t, "arm64", d.Annotations[ssp.ArchitecturesAnnotation], d.Name)
			}
		},
	}, {
		name: "enableMultiArchBootImageImport: an image for none of the workload architectures is not passed on",
		v1: func(hc *hcov1.HyperConverged) {
			hc.Spec.FeatureGates = hcov1.FeatureGates{{Name: ssp.GateMultiArchBootImageImport}}
			hc.Spec.WorkloadSources.DataImportCronTemplates = []hcov1.DataImportCronTemplate{customImage("my-image")}
		},
		v1beta1: func(hc *hcov1beta1.HyperConverged) {
			hc.Spec.FeatureGates.Others = map[string]bool{ssp.GateMultiArchBootImageImport: true}
			hc.Spec.DataImportCronTemplates = []hcov1.DataImportCronTemplate{customImage("my-image")}
		},
		nodes: &nodefacts.Facts{WorkloadArchitectures: []string{"ppc64le"}},
		check: func(t *testing.T, _ *hcov1.HyperConverged, got *sspv1beta3.SSP) {
			assert.Equal(t, []string{"my-image"}, names(got.Spec.CommonTemplates.DataImportCronTemplates), "an image without architectures is not narrowed")
		},
	}, {
		name: "enableMultiArchBootImageImport off: the gate listed as False",
		v1: func(hc *hcov1.HyperConverged) {
			hc.Spec.FeatureGates = hcov1.FeatureGates{{Name: ssp.GateMultiArchBootImageImport, State: ptr.To(hcov1.FeatureGateDisabled)}}
		},
		v1beta1: func(hc *hcov1beta1.HyperConverged) {
			hc.Spec.FeatureGates.Others = map[string]bool{ssp.GateMultiArchBootImageImport: false}
		},
		nodes: &nodefacts.Facts{WorkloadArchitectures: []string{"ppc64le"}},
		check: func(t *testing.T, _ *hcov1.HyperConverged, got *sspv1beta3.SSP) {
			assert.Equal(t, ptr.To(false), got.Spec.EnableMultipleArchitectures)
			assert.Equal(t, commonNames, names(got.Spec.CommonTemplates.DataImportCronTemplates), "nothing is narrowed")
			assert.Equal(t, &sspv1beta3.Cluster{WorkloadArchitectures: []string{"ppc64le"}}, got.Spec.Cluster, "the cluster is told in any case, as upstream")
		},
	}})
}

func TestDeployVMConsoleProxyUnset(t *testing.T) {
	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: testNamespace}}
	got, err := ssp.Build(hc, hco.Facts{})
	require.NoError(t, err)
	assert.Nil(t, got.Spec.TokenGenerationService, "unset (not defaulted): SSP's default")
	assert.Len(t, got.Spec.CommonTemplates.DataImportCronTemplates, len(commonNames), "enableCommonBootImageImport unset means on")
}

func TestInvalidGoldenImagesNameTheField(t *testing.T) {
	noSpec := customImage("no-spec")
	noSpec.Spec = nil
	for name, tc := range map[string]struct {
		dicts []hcov1.DataImportCronTemplate
		want  string
	}{
		"twice":        {[]hcov1.DataImportCronTemplate{customImage("a"), customImage("a")}, `spec.workloadSources.dataImportCronTemplates[1]: "a" is defined more than once`},
		"no name":      {[]hcov1.DataImportCronTemplate{customImage("")}, `spec.workloadSources.dataImportCronTemplates[0]: metadata.name is required`},
		"enabled bare": {[]hcov1.DataImportCronTemplate{customImage("a"), noSpec}, `spec.workloadSources.dataImportCronTemplates[1] ("no-spec"): spec is required unless annotation dataimportcrontemplate.kubevirt.io/enable is "false"`},
	} {
		t.Run(name, func(t *testing.T) {
			hc := newV1(func(hc *hcov1.HyperConverged) { hc.Spec.WorkloadSources.DataImportCronTemplates = tc.dicts })
			_, err := ssp.New().Desired(hc, hco.Facts{})
			require.Error(t, err)
			assert.Equal(t, tc.want, err.Error())
		})
	}
	hc := newV1(func(hc *hcov1.HyperConverged) {
		hc.Spec.WorkloadSources.DataImportCronTemplates = []hcov1.DataImportCronTemplate{disabled("fedora-image-cron", "false")}
	})
	_, err := ssp.New().Desired(hc, hco.Facts{})
	assert.NoError(t, err, "a disabled entry needs no spec")
}

func TestDataImportSchedule(t *testing.T) {
	cron := regexp.MustCompile(`^([0-9]|[1-5][0-9]) ([0-9]|1[01])/12 \* \* \*$`)
	hc := newV1(nil)
	s := ssp.DataImportSchedule(hc, "")
	assert.Regexp(t, cron, s)
	assert.Equal(t, s, ssp.DataImportSchedule(hc.DeepCopy(), ""), "stable")

	spread := map[string]bool{}
	for _, uid := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		other := hc.DeepCopy()
		other.UID = types.UID("uid-" + uid)
		got := ssp.DataImportSchedule(other, "")
		assert.Regexp(t, cron, got)
		spread[got] = true
	}
	assert.Greater(t, len(spread), 1, "different objects, different schedules")

	noUID := hc.DeepCopy()
	noUID.UID = ""
	assert.Regexp(t, cron, ssp.DataImportSchedule(noUID, ""))
	assert.Equal(t, ssp.DataImportSchedule(noUID, ""), ssp.DataImportSchedule(noUID.DeepCopy(), ""), "namespace/name when no UID")

	assert.Equal(t, "17 3/12 * * *", ssp.DataImportSchedule(hc, "17 3/12 * * *"), "upstream's recorded choice wins")
	got, err := ssp.Build(hc, hco.Facts{DataImportSchedule: "17 3/12 * * *"})
	require.NoError(t, err)
	for _, d := range got.Spec.CommonTemplates.DataImportCronTemplates {
		assert.Equal(t, "17 3/12 * * *", d.Spec.Schedule, d.Name)
	}
}

func TestWithGoldenImages(t *testing.T) {
	mine := []hcov1.DataImportCronTemplate{customImage("distro-image-cron")}
	op := ssp.New(ssp.WithGoldenImages(mine))
	mine[0].Name = "changed-after-new"

	hc := newV1(func(hc *hcov1.HyperConverged) {
		hc.Spec.WorkloadSources.DataImportCronTemplates = []hcov1.DataImportCronTemplate{customImage("fedora-image-cron")}
	})
	objs, err := op.Desired(hc, hco.Facts{})
	require.NoError(t, err)
	dicts := objs[0].(*sspv1beta3.SSP).Spec.CommonTemplates.DataImportCronTemplates
	assert.Equal(t, []string{"distro-image-cron", "fedora-image-cron"}, names(dicts), "the distribution's list replaces the stock one; fedora is now the admin's own")
	assert.Equal(t, ssp.DataImportSchedule(hc, ""), dicts[0].Spec.Schedule, "a common image gets the stable schedule")

	objs, err = ssp.New(ssp.WithGoldenImages(nil)).Desired(newV1(nil), hco.Facts{})
	require.NoError(t, err)
	assert.Nil(t, objs[0].(*sspv1beta3.SSP).Spec.CommonTemplates.DataImportCronTemplates, "an empty list: no common images")

	bad := customImage("bad")
	bad.Spec.Schedule = "daily"
	_, err = ssp.New(ssp.WithGoldenImages([]hcov1.DataImportCronTemplate{bad})).Desired(newV1(nil), hco.Facts{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "ssp.WithGoldenImages")
	assert.Contains(t, err.Error(), `golden image 0 ("bad"): spec.schedule "daily"`)

	stock, err := ssp.New().Desired(newV1(nil), hco.Facts{})
	require.NoError(t, err)
	zero, err := ssp.Operand{}.Desired(newV1(nil), hco.Facts{})
	require.NoError(t, err)
	assert.Equal(t, stock, zero, "New without options builds what the zero value builds")
}

func TestJSONPatchStillApplies(t *testing.T) {
	hc := newV1(nil)
	hc.Annotations = map[string]string{hcov1.SSPJSONPatchAnnotation: `[{"op": "replace", "path": "/spec/templateValidator/replicas", "value": 3}]`}
	objs, err := hco.DesiredObjects(ssp.New(), hc, hco.Facts{})
	require.NoError(t, err)
	require.Len(t, objs, 1)
}

// TestFactsAreAnArgument: the node architectures and the cluster's TLS
// profile reach the SSP as the facts argument, with no status on the
// HyperConverged.
func TestFactsAreAnArgument(t *testing.T) {
	hc := newV1(nil)
	old := &ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileOldType, Old: &ocpconfigv1.OldTLSProfile{}}
	facts := hco.Facts{Nodes: &nodefacts.Facts{WorkloadArchitectures: []string{"arm64"}, ControlPlaneArchitectures: []string{"amd64"}}, ClusterTLSProfile: old}
	objs, err := ssp.New().Desired(hc, facts)
	require.NoError(t, err)
	got := objs[0].(*sspv1beta3.SSP)
	assert.Equal(t, &sspv1beta3.Cluster{WorkloadArchitectures: []string{"arm64"}, ControlPlaneArchitectures: []string{"amd64"}}, got.Spec.Cluster)
	assert.Equal(t, old, got.Spec.TLSSecurityProfile, "the cluster's profile where the HyperConverged has none")
	assert.Equal(t, hcov1.HyperConvergedStatus{}, hc.Status)
}
