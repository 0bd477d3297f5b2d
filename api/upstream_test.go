package api_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"

	"github.com/hcokit/hcokit/featuregates"
	"github.com/hcokit/hcokit/internal/crdschema"
)

// Reasons a difference from upstream is kept.
const (
	seed003    = "seed 003_bbf2f7447ec7d982.txt (live migration defaults: 64Mi, 800, 5, 2, 150)"
	seed003PCI = "seed 003_bbf2f7447ec7d982.txt writes pciHostDevices with pciVendorSelector, the older spelling " +
		"of pciDeviceSelector; v1beta1 takes either (exactly one), so the list cannot be keyed on, or require, pciDeviceSelector"
	hppExtension    = "hcokit extension: the operator owns the HostPathProvisioner CR when it is set"
	keptInV1beta1   = "a v1 field v1beta1 carries too, so that it survives an update through v1beta1"
	keptGates       = "v1beta1 keeps a gate it has no field for (a v1 gate) as a key of featureGates, so that it survives an update through v1beta1"
	mdevEnabledOnly = "hcokit's v1beta1 carries v1's mediatedDevicesConfiguration.enabled, and {enabled: false} alone (no types) is valid there, as in v1"
	sameDefault     = "accepts the same: workloadUpdateMethods defaults to [\"LiveMigrate\"] in both CRDs, and the API server " +
		"defaults before it validates, so upstream's required is always met"
)

// What a difference is about, besides a fact's JSON name (listType,
// required, rules, ...).
const (
	// extraField: hcokit's CRD has the field at path, and every field under
	// it; upstream's does not.
	extraField = "field"
	// defaultValue: the default at path differs, whether written at path or
	// inside the default of an object above it.
	defaultValue = "default"
)

// difference is one way hcokit's CRD differs from upstream's at path, kept
// for reason. hcokit and upstream are the JSON values ("absent" for none),
// empty for an extra field.
type difference struct{ version, path, what, hcokit, upstream, reason string }

// differences lists every way hcokit's CRD differs from upstream's. A
// difference not listed fails the test, and so does a listed one that no
// longer exists.
var differences = []difference{
	{"v1", "spec.storage.hostpathProvisioner", extraField, "", "", hppExtension},
	{"v1beta1", "spec.hostpathProvisioner", extraField, "", "", hppExtension},
	{"v1beta1", "spec.deployNetworkResourcesInjector", extraField, "", "", keptInV1beta1},
	{"v1beta1", "spec.mediatedDevicesConfiguration.enabled", extraField, "", "", keptInV1beta1},
	{"v1beta1", "spec.persistentReservationConfiguration", extraField, "", "", keptInV1beta1},
	{"v1beta1", "spec.featureGates", "preserveUnknownFields", "true", "absent", keptGates},
	{"v1beta1", "spec.permittedHostDevices.pciHostDevices[].pciVendorSelector", extraField, "", "", seed003PCI},
	{"v1beta1", "spec.permittedHostDevices.pciHostDevices", "listType", `"atomic"`, `"map"`, seed003PCI},
	{"v1beta1", "spec.permittedHostDevices.pciHostDevices", "listMapKeys", "absent", `["pciDeviceSelector"]`, seed003PCI},
	{"v1beta1", "spec.permittedHostDevices.pciHostDevices[]", "required", `["resourceName"]`, `["pciDeviceSelector","resourceName"]`, seed003PCI},
	{"v1beta1", "spec.mediatedDevicesConfiguration", "rules", "absent", `["(has(self.mediatedDeviceTypes) && size(self.mediatedDeviceTypes)>0) || (has(self.mediatedDevicesTypes) && size(self.mediatedDevicesTypes)>0)"]`, mdevEnabledOnly},
	{"v1", "spec.virtualization.workloadUpdateStrategy", "required", "absent", `["workloadUpdateMethods"]`, sameDefault},
	{"v1beta1", "spec.workloadUpdateStrategy", "required", "absent", `["workloadUpdateMethods"]`, sameDefault},
	{"v1", "spec.virtualization.liveMigrationConfig.bandwidthPerMigration", defaultValue, `"64Mi"`, "absent", seed003},
	{"v1", "spec.virtualization.liveMigrationConfig.completionTimeoutPerGiB", defaultValue, "800", "20", seed003},
	{"v1", "spec.virtualization.liveMigrationConfig.parallelOutboundMigrationsPerNode", defaultValue, "2", "1", seed003},
	{"v1beta1", "spec.liveMigrationConfig.bandwidthPerMigration", defaultValue, `"64Mi"`, "absent", seed003},
	{"v1beta1", "spec.liveMigrationConfig.completionTimeoutPerGiB", defaultValue, "800", "20", seed003},
	{"v1beta1", "spec.liveMigrationConfig.parallelOutboundMigrationsPerNode", defaultValue, "2", "1", seed003},
}

// TestCRDMatchesUpstream compares our generated CRD's spec, per version, with
// upstream HCO's (testdata/upstream-<commit>): every upstream field exists
// with the same type and enum and, where upstream has them, the same
// validations; hcokit adds no field; defaults match, both as written and as
// the API server fills an empty spec. Only the listed differences are
// allowed. All differences are reported at once.
func TestCRDMatchesUpstream(t *testing.T) {
	seen := map[difference]bool{} // the listed differences found
	for _, v := range apiVersions {
		var upstream map[string]field
		require.NoError(t, readTestdata(v+".json", &upstream))
		ours := oursFields(t, v)

		t.Run(v+"/fields", func(t *testing.T) { compareFields(t, v, ours, upstream, seen) })
		t.Run(v+"/defaults", func(t *testing.T) {
			for _, p := range slices.Sorted(maps.Keys(upstream)) {
				o, ok := ours[p]
				if ok && defaultsDiffer(v, p, o.Default, upstream[p].Default, seen) {
					t.Errorf("%s %s: default hcokit %s, upstream %s: write upstream's default at this level in api/%s "+
						"(+kubebuilder:default) and run make generate, or list the difference in differences with its reason",
						v, p, encode(o.Default), encode(upstream[p].Default), v)
				}
			}
		})
		t.Run(v+"/defaults of an empty spec", func(t *testing.T) {
			o, u := leaves(effectiveSpec(ours), "spec"), leaves(effectiveSpec(upstream), "spec")
			for _, p := range slices.Sorted(maps.Keys(merge(o, u))) {
				d := difference{v, p, defaultValue, encode(o[p]), encode(u[p]), ""}
				if d.hcokit == d.upstream || isExtra(v, p) || listed(d, seen) {
					continue
				}
				t.Errorf("%s spec: {} gets %s = %s from hcokit's CRD, %s from upstream's: move the default to upstream's level "+
					"in api/%s and run make generate, or list the difference in differences with its reason",
					v, p, d.hcokit, d.upstream, v)
			}
		})
	}

	t.Run("listed differences", func(t *testing.T) {
		for _, d := range differences {
			if seen[d] {
				continue
			}
			if d.what == extraField {
				t.Errorf("%s %s is listed as a field hcokit adds (%s), but hcokit no longer has it or upstream has it too: remove it from differences",
					d.version, d.path, d.reason)
				continue
			}
			t.Errorf("%s %s is listed as a difference in %s (hcokit %s, upstream %s: %s), but it no longer exists: remove it from differences",
				d.version, d.path, d.what, d.hcokit, d.upstream, d.reason)
		}
	})
}

// TestFeatureGatesMatchUpstream checks that hcokit knows every gate of
// upstream's table and gives it upstream's meaning when spec.featureGates
// does not list it: beta gates on, alpha and deprecated ones off.
func TestFeatureGatesMatchUpstream(t *testing.T) {
	var phases map[string]string
	require.NoError(t, readTestdata("feature-gates.json", &phases))
	known := append(featuregates.Known(), featuregates.Deprecated()...)
	for _, name := range slices.Sorted(maps.Keys(phases)) {
		phase := phases[name]
		if !slices.Contains(known, name) {
			t.Errorf("gate %s (upstream: %s) is unknown to hcokit: add it to featuregates.Known() (acted on) or featuregates.Deprecated() (accepted and ignored)",
				name, phase)
			continue
		}
		if got, want := featuregates.Default(name), phase == "beta"; got != want {
			t.Errorf("gate %s (upstream: %s): featuregates.Default says %s when it is not listed, upstream %s: fix featuregates.Default",
				name, phase, onOff(got), onOff(want))
		}
	}
}

// compareFields reports every upstream field hcokit lacks or describes
// differently, and every field hcokit adds, unless differences lists it. A
// missing or added object is reported once, not with each field under it.
// Type, enum and preserveUnknownFields must be the same; other facts where
// upstream has them (a check hcokit adds is not upstream's business).
func compareFields(t *testing.T, v string, ours, upstream map[string]field, seen map[difference]bool) {
	for _, p := range slices.Sorted(maps.Keys(upstream)) {
		o, ok := ours[p]
		if !ok {
			if _, parentOK := ours[parentOf(p)]; parentOK {
				t.Errorf("%s %s: upstream has this field (%s%s), hcokit does not: add it to api/%s and run make generate",
					v, p, upstream[p].Type, countUnder(upstream, p), v)
			}
			continue
		}
		of, uf := facts(o), facts(upstream[p])
		for _, name := range slices.Sorted(maps.Keys(merge(of, uf))) {
			_, upstreamHas := uf[name]
			d := difference{v, p, name, encode(of[name]), encode(uf[name]), ""}
			if d.hcokit == d.upstream || !upstreamHas && !slices.Contains([]string{"type", "enum", "preserveUnknownFields"}, name) || listed(d, seen) {
				continue
			}
			t.Errorf("%s %s: %s hcokit %s, upstream %s: make api/%s say the same and run make generate, or list the difference in differences with its reason",
				v, p, name, d.hcokit, d.upstream, v)
		}
	}
	for _, p := range slices.Sorted(maps.Keys(ours)) {
		if _, ok := upstream[p]; ok {
			continue
		}
		if _, parentOK := upstream[parentOf(p)]; !parentOK || listed(difference{v, p, extraField, "", "", ""}, seen) {
			continue // reported with its parent, or listed
		}
		t.Errorf("%s %s: hcokit has this field (%s%s), upstream does not: remove it from api/%s and run make generate, "+
			"or list it in differences with its reason", v, p, ours[p].Type, countUnder(ours, p), v)
	}
}

// oursFields returns the facts of every field under .spec of our generated
// CRD's version v, in the form the test data has (decoded from JSON).
func oursFields(t *testing.T, v string) map[string]field {
	t.Helper()
	s, err := crdschema.HyperConverged(v)
	require.NoError(t, err)
	spec, ok := s.Properties["spec"]
	require.True(t, ok, "the %s schema has a spec", v)
	fields := map[string]field{}
	fieldsOf(&spec, "spec", fields)
	raw, err := json.Marshal(fields)
	require.NoError(t, err)
	var out map[string]field
	require.NoError(t, json.Unmarshal(raw, &out))
	return out
}

// facts are a field's facts but its default, by JSON name.
func facts(f field) map[string]any {
	f.Default = nil
	raw, _ := json.Marshal(f)
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	return out
}

// defaultsDiffer reports whether the defaults o (hcokit's) and u
// (upstream's) written at path differ other than as differences lists,
// compared value by value inside objects.
func defaultsDiffer(v, path string, o, u any, seen map[difference]bool) bool {
	lo, lu := leaves(o, path), leaves(u, path)
	differ := false
	for p := range merge(lo, lu) {
		d := difference{v, p, defaultValue, encode(lo[p]), encode(lu[p]), ""}
		if d.hcokit != d.upstream && !listed(d, seen) {
			differ = true
		}
	}
	return differ
}

// listed reports whether differences lists d (whatever its reason), and
// marks the entry seen.
func listed(d difference, seen map[difference]bool) bool {
	i := slices.IndexFunc(differences, func(l difference) bool {
		l.reason = ""
		return l == d
	})
	if i >= 0 {
		seen[differences[i]] = true
	}
	return i >= 0
}

// isExtra reports whether path is, or is under, a field differences lists
// as one hcokit adds.
func isExtra(v, path string) bool {
	return slices.ContainsFunc(differences, func(d difference) bool {
		return d.version == v && d.what == extraField && isUnder(path, d.path)
	})
}

// effectiveSpec is what the API server makes of spec: {} with the schema
// the fields describe: its structural defaulting, run on the schema rebuilt
// from the fields.
func effectiveSpec(fields map[string]field) map[string]any {
	spec := map[string]any{}
	structuraldefaulting.Default(spec, schemaOf(fields, "spec"))
	return spec
}

// schemaOf rebuilds the structural schema at path from the fields, as far
// as defaulting reads it: types, defaults, nullability, properties, items
// and map values.
func schemaOf(fields map[string]field, path string) *structuralschema.Structural {
	f := fields[path]
	s := &structuralschema.Structural{Generic: structuralschema.Generic{
		Type: f.Type, Default: structuralschema.JSON{Object: f.Default}, Nullable: f.Nullable,
	}}
	items, values, props := path+"[]", path+"{}", path+"."
	for p := range fields {
		switch name, ok := strings.CutPrefix(p, props); {
		case p == items:
			s.Items = schemaOf(fields, p)
		case p == values:
			s.AdditionalProperties = &structuralschema.StructuralOrBool{Structural: schemaOf(fields, p)}
		case ok && !strings.ContainsAny(name, ".[{"):
			if s.Properties == nil {
				s.Properties = map[string]structuralschema.Structural{}
			}
			s.Properties[name] = *schemaOf(fields, p)
		}
	}
	return s
}

// leaves flattens v, found at path, into the values it holds by path: each
// non-empty object is walked into; anything else (an empty object, a list, a
// scalar) is one value. Nothing for nil.
func leaves(v any, path string) map[string]any {
	out := map[string]any{}
	if m, ok := v.(map[string]any); ok && len(m) > 0 {
		for k, x := range m {
			maps.Copy(out, leaves(x, path+"."+k))
		}
	} else if v != nil {
		out[path] = v
	}
	return out
}

// parentOf is the path of the object or list that holds path.
func parentOf(path string) string {
	if strings.HasSuffix(path, "[]") || strings.HasSuffix(path, "{}") {
		return path[:len(path)-2]
	}
	return path[:max(strings.LastIndex(path, "."), 0)]
}

// isUnder reports whether path is top or a field under it.
func isUnder(path, top string) bool {
	return path == top || strings.HasPrefix(path, top+".") || strings.HasPrefix(path, top+"[]") || strings.HasPrefix(path, top+"{}")
}

// countUnder says how many fields lie under path, if any.
func countUnder(fields map[string]field, path string) string {
	n := 0
	for p := range fields {
		if p != path && isUnder(p, path) {
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", with %d fields under it", n)
}

func merge[V any](a, b map[string]V) map[string]V {
	out := maps.Clone(a)
	maps.Copy(out, b)
	return out
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
