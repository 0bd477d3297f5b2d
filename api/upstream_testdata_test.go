package api_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"

	"github.com/hcokit/hcokit/internal/crdschema"
)

// This file defines what testdata/upstream-<commit> holds and regenerates it
// from upstream HCO's files; upstream_test.go compares hcokit with it.

// upstreamCommit is the upstream HCO commit the test data is taken from
// (v1.20.0; the full hash is in the test data's README.md).
const upstreamCommit = "03da3cf"

var upstreamDir = filepath.Join("testdata", "upstream-"+upstreamCommit)

// apiVersions are the HyperConverged versions both CRDs serve.
var apiVersions = []string{"v1", "v1beta1"}

var (
	upstreamCRD   = flag.String("upstream-crd", "", "upstream HCO's deploy/crds/hco00.crd.yaml: TestRegenerateUpstreamTestdata rewrites "+upstreamDir+" from it")
	upstreamGates = flag.String("upstream-gates", "", "upstream HCO's pkg/featuregatedetails/feature-gates.json: TestRegenerateUpstreamTestdata rewrites "+upstreamDir+" from it")
)

// field is what a CRD schema says about one field: its type, default and the
// checks the API server makes on it. A zero value is absent. Type is the
// OpenAPI type, "int-or-string", or "preserve-unknown" for a field of any
// type; PreserveUnknownFields on an object keeps the fields its schema does
// not name.
type field struct {
	Type                  string   `json:"type"`
	PreserveUnknownFields bool     `json:"preserveUnknownFields,omitempty"`
	Enum                  []any    `json:"enum,omitempty"`
	Default               any      `json:"default,omitempty"`
	Nullable              bool     `json:"nullable,omitempty"`
	Format                string   `json:"format,omitempty"`
	Pattern               string   `json:"pattern,omitempty"`
	Minimum               *float64 `json:"minimum,omitempty"`
	ExclusiveMinimum      bool     `json:"exclusiveMinimum,omitempty"`
	Maximum               *float64 `json:"maximum,omitempty"`
	ExclusiveMaximum      bool     `json:"exclusiveMaximum,omitempty"`
	MultipleOf            *float64 `json:"multipleOf,omitempty"`
	MinLength             *int64   `json:"minLength,omitempty"`
	MaxLength             *int64   `json:"maxLength,omitempty"`
	MinItems              *int64   `json:"minItems,omitempty"`
	MaxItems              *int64   `json:"maxItems,omitempty"`
	UniqueItems           bool     `json:"uniqueItems,omitempty"`
	MinProperties         *int64   `json:"minProperties,omitempty"`
	MaxProperties         *int64   `json:"maxProperties,omitempty"`
	Required              []string `json:"required,omitempty"`
	ListType              string   `json:"listType,omitempty"`
	ListMapKeys           []string `json:"listMapKeys,omitempty"`
	MapType               string   `json:"mapType,omitempty"`
	// Rules are the x-kubernetes-validations rules (CEL), sorted.
	Rules []string `json:"rules,omitempty"`
}

// fieldsOf adds to out the facts of s, at path, and of every field under it:
// path.name for a property, path[] for a list's items, path{} for a map's
// values. Enum values, required names and rules are sorted, so that only
// what they allow is compared, not the order they are written in.
func fieldsOf(s *structuralschema.Structural, path string, out map[string]field) {
	f := field{Type: s.Type, Default: s.Default.Object, Nullable: s.Nullable, ListMapKeys: s.XListMapKeys}
	switch {
	case s.XIntOrString:
		f.Type = "int-or-string"
	case s.XPreserveUnknownFields && f.Type == "":
		f.Type = "preserve-unknown"
	case s.XPreserveUnknownFields:
		f.PreserveUnknownFields = true
	}
	if s.XListType != nil {
		f.ListType = *s.XListType
	}
	if s.XMapType != nil {
		f.MapType = *s.XMapType
	}
	if v := s.ValueValidation; v != nil {
		f.Format, f.Pattern = v.Format, v.Pattern
		f.Minimum, f.ExclusiveMinimum, f.Maximum, f.ExclusiveMaximum = v.Minimum, v.ExclusiveMinimum, v.Maximum, v.ExclusiveMaximum
		f.MultipleOf, f.MinLength, f.MaxLength = v.MultipleOf, v.MinLength, v.MaxLength
		f.MinItems, f.MaxItems, f.UniqueItems = v.MinItems, v.MaxItems, v.UniqueItems
		f.MinProperties, f.MaxProperties = v.MinProperties, v.MaxProperties
		for _, e := range v.Enum {
			f.Enum = append(f.Enum, e.Object)
		}
		slices.SortFunc(f.Enum, func(a, b any) int { return strings.Compare(encode(a), encode(b)) })
		f.Required = slices.Sorted(slices.Values(v.Required))
	}
	for _, r := range s.XValidations {
		f.Rules = append(f.Rules, r.Rule)
	}
	slices.Sort(f.Rules)
	out[path] = f
	for name, p := range s.Properties {
		fieldsOf(&p, path+"."+name, out)
	}
	if s.Items != nil {
		fieldsOf(s.Items, path+"[]", out)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil {
		fieldsOf(s.AdditionalProperties.Structural, path+"{}", out)
	}
}

// specFields returns the facts of every field under .spec of the given
// version of the CRD in raw.
func specFields(raw []byte, version string) (map[string]field, error) {
	s, err := crdschema.Parse(raw, version)
	if err != nil {
		return nil, err
	}
	spec, ok := s.Properties["spec"]
	if !ok {
		return nil, fmt.Errorf("the %s schema has no spec", version)
	}
	out := map[string]field{}
	fieldsOf(&spec, "spec", out)
	return out, nil
}

// TestRegenerateUpstreamTestdata rewrites testdata/upstream-<commit> from
// upstream HCO's CRD and feature gate table at that commit; it runs only when
// both flags are given (see the test data's README.md).
func TestRegenerateUpstreamTestdata(t *testing.T) {
	if *upstreamCRD == "" && *upstreamGates == "" {
		t.Skip("regenerates " + upstreamDir + " only with -upstream-crd and -upstream-gates")
	}
	require.NotEmpty(t, *upstreamCRD, "-upstream-crd")
	require.NotEmpty(t, *upstreamGates, "-upstream-gates")

	raw, err := os.ReadFile(*upstreamCRD)
	require.NoError(t, err)
	for _, v := range apiVersions {
		fields, err := specFields(raw, v)
		require.NoError(t, err, v)
		require.NoError(t, writeSorted(filepath.Join(upstreamDir, v+".json"), fields))
	}

	raw, err = os.ReadFile(*upstreamGates)
	require.NoError(t, err)
	var gates []struct{ Name, Phase string }
	require.NoError(t, json.Unmarshal(raw, &gates))
	phases := map[string]string{}
	for _, g := range gates {
		require.NotEmpty(t, g.Name)
		require.NotEmpty(t, g.Phase, g.Name)
		phases[g.Name] = g.Phase
	}
	require.NoError(t, writeSorted(filepath.Join(upstreamDir, "feature-gates.json"), phases))
}

// writeSorted writes m as a JSON object with one key per line, sorted, so
// that a change upstream is a one-line diff.
func writeSorted[V any](file string, m map[string]V) error {
	var b bytes.Buffer
	b.WriteString("{\n")
	keys := slices.Sorted(maps.Keys(m))
	for i, k := range keys {
		sep := ","
		if i == len(keys)-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "%s: %s%s\n", encode(k), encode(m[k]), sep)
	}
	b.WriteString("}\n")
	return os.WriteFile(file, b.Bytes(), 0o644)
}

// readTestdata decodes the JSON file name of the test data into v.
func readTestdata(name string, v any) error {
	raw, err := os.ReadFile(filepath.Join(upstreamDir, name))
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, v)
}

// encode is v as compact JSON, without escaping <, > and & (CEL rules read
// as written); "absent" for nil.
func encode(v any) string {
	if v == nil {
		return "absent"
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprintf("%#v", v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
