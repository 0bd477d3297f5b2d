package v1beta1_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/api/v1beta1"
)

// TestFieldMovesFollowConversion: for every row of the table that
// FieldPathsFromV1 reads, a value written alone at the row's v1beta1 path is
// at its v1 path after ConvertTo, and a value written alone at the v1 path is
// at the v1beta1 path after ConvertFrom. The table cannot drift from the
// conversion.
func TestFieldMovesFollowConversion(t *testing.T) {
	for seed := range int64(3) {
		old, hub := filledSpecs(seed)
		// The deprecated spellings inside a moved field are a conversion of
		// their own (TestConvertFieldByField); here the field moves as written.
		if p := old.Spec.PermittedHostDevices; p != nil {
			for i := range p.PciHostDevices {
				p.PciHostDevices[i].PCIDeviceSelector = p.PciHostDevices[i].Selector()
				p.PciHostDevices[i].PCIVendorSelector = ""
			}
		}
		if m := old.Spec.MediatedDevicesConfiguration; m != nil {
			m.MediatedDevicesTypes = nil
			for i := range m.NodeMediatedDeviceTypes {
				m.NodeMediatedDeviceTypes[i].MediatedDevicesTypes = nil
			}
		}
		old = canonicalV1beta1(t, &old)
		oldDoc := jsonDoc(t, &old)

		hub = canonicalV1(t, &hub)
		hubDoc := jsonDoc(t, &hub)

		for _, row := range v1beta1.FieldMoves {
			t.Run(fmt.Sprintf("seed%d/%s", seed, row.V1), func(t *testing.T) {
				value, ok := lookup(oldDoc, row.V1beta1)
				require.True(t, ok, "the filled v1beta1 object has no %s", row.V1beta1)
				var in v1beta1.HyperConverged
				require.NoError(t, json.Unmarshal(jsonOf(t, nested(row.V1beta1, value)), &in))
				var out hcov1.HyperConverged
				require.NoError(t, in.ConvertTo(&out))
				got, ok := lookup(jsonDoc(t, &out), row.V1)
				require.True(t, ok, "ConvertTo does not write %s from %s", row.V1, row.V1beta1)
				assert.JSONEq(t, string(jsonOf(t, value)), string(jsonOf(t, got)), "ConvertTo: %s -> %s", row.V1beta1, row.V1)

				value, ok = lookup(hubDoc, row.V1)
				require.True(t, ok, "the filled v1 object has no %s", row.V1)
				var v1in hcov1.HyperConverged
				require.NoError(t, json.Unmarshal(jsonOf(t, nested(row.V1, value)), &v1in))
				var v1beta1out v1beta1.HyperConverged
				require.NoError(t, v1beta1out.ConvertFrom(&v1in))
				got, ok = lookup(jsonDoc(t, &v1beta1out), row.V1beta1)
				require.True(t, ok, "ConvertFrom does not write %s from %s", row.V1beta1, row.V1)
				assert.JSONEq(t, string(jsonOf(t, value)), string(jsonOf(t, got)), "ConvertFrom: %s -> %s", row.V1, row.V1beta1)

				assert.Equal(t, row.V1beta1+".x: y", v1beta1.FieldPathsFromV1(row.V1+".x: y"))
			})
		}
	}
}

// TestFieldMovesCoverEveryField: every field of a v1 and of a v1beta1
// object, every one set, is a row of the table (or inside one), but for the
// fields that have no counterpart in the other version.
func TestFieldMovesCoverEveryField(t *testing.T) {
	v1Paths := map[string]bool{}
	v1beta1Paths := map[string]bool{}
	for _, row := range v1beta1.FieldMoves {
		assert.False(t, v1Paths[row.V1], "%s has two rows", row.V1)
		assert.False(t, v1beta1Paths[row.V1beta1], "%s has two rows", row.V1beta1)
		v1Paths[row.V1], v1beta1Paths[row.V1beta1] = true, true
		for _, other := range v1beta1.FieldMoves {
			assert.False(t, other.V1 != row.V1 && strings.HasPrefix(other.V1, row.V1),
				"%s is a prefix of %s: FieldPathsFromV1 would depend on the rows' order", row.V1, other.V1)
		}
	}
	// Gates: v1's list and v1beta1's booleans (FeatureGatesJSON tests them).
	// Observability is v1's only; the others are v1beta1's fields v1 dropped
	// (kept in FieldsAnnotation).
	v1Only := []string{"spec.featureGates", "spec.observability"}
	v1beta1Only := []string{"spec.featureGates", "spec.obsoleteCPUs.minCPUModel",
		"spec.localStorageClassName", "spec.vddkInitImage", "spec.tektonPipelinesNamespace", "spec.tektonTasksNamespace"}

	for seed := range int64(3) {
		old, hub := filledSpecs(seed)
		for _, path := range uncovered(jsonDoc(t, &hub), "spec", v1Paths, v1Only) {
			t.Errorf("v1 field %s has no row in fieldMoves", path)
		}
		for _, path := range uncovered(jsonDoc(t, &old), "spec", v1beta1Paths, v1beta1Only) {
			t.Errorf("v1beta1 field %s has no row in fieldMoves", path)
		}
	}
}

// filledSpecs returns a v1beta1 and a v1 HyperConverged with every field set.
func filledSpecs(seed int64) (v1beta1.HyperConverged, hcov1.HyperConverged) {
	fill := filler(seed).NilChance(0).NumElements(1, 1)
	var old v1beta1.HyperConverged
	fill.Fill(&old.Spec)
	var hub hcov1.HyperConverged
	fill.Fill(&hub.Spec)
	// The meta fuzzer's *int is nil half the time, whatever the nil chance.
	if r := old.Spec.ResourceRequirements; r.VmiCPUAllocationRatio == nil {
		r.VmiCPUAllocationRatio = ptr(4)
	}
	if v := &hub.Spec.Virtualization; v.VmiCPUAllocationRatio == nil {
		v.VmiCPUAllocationRatio = ptr(4)
	}
	return old, hub
}

// uncovered walks doc from path and returns the paths that are neither a
// row, nor inside one, nor one of the exceptions.
func uncovered(doc map[string]any, path string, rows map[string]bool, except []string) []string {
	var out []string
	value, _ := lookup(doc, path)
	fields, ok := value.(map[string]any)
	if !ok {
		return []string{path}
	}
	for name := range fields {
		p := path + "." + name
		switch {
		case rows[p] || slices.Contains(except, p):
		case hasRowUnder(rows, p):
			out = append(out, uncovered(doc, p, rows, except)...)
		default:
			out = append(out, p)
		}
	}
	return out
}

func hasRowUnder(rows map[string]bool, path string) bool {
	for r := range rows {
		if strings.HasPrefix(r, path+".") {
			return true
		}
	}
	return false
}

// lookup returns the value at a dotted path of JSON field names.
func lookup(doc map[string]any, path string) (any, bool) {
	var cur any = doc
	for name := range strings.SplitSeq(path, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[name]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// nested is a JSON document with value at path and nothing else.
func nested(path string, value any) map[string]any {
	names := strings.Split(path, ".")
	doc := map[string]any{names[len(names)-1]: value}
	for i := len(names) - 2; i >= 0; i-- {
		doc = map[string]any{names[i]: doc}
	}
	return doc
}

func jsonOf(t *testing.T, v any) []byte {
	t.Helper()
	raw, err := json.Marshal(v)
	require.NoError(t, err)
	return raw
}

// jsonDoc is obj's wire form without empty objects (see wire).
func jsonDoc(t *testing.T, obj any) map[string]any {
	t.Helper()
	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(wire(t, obj)), &doc))
	return doc
}
