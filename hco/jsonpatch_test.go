package hco_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	kvv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hcostatus"
	"github.com/hcokit/hcokit/jsonpatch"
)

const ann = hcov1.KubeVirtJSONPatchAnnotation

func hcWith(value string) *hcov1.HyperConverged {
	return &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Annotations: map[string]string{ann: value}}}
}

// patchable is a JSONPatcher operand whose one object is kv, as built.
type patchable struct{ kv *kvv1.KubeVirt }

func (patchable) Name() string                { return "patchable" }
func (patchable) Kinds() []client.Object      { return []client.Object{&kvv1.KubeVirt{}} }
func (patchable) JSONPatchAnnotation() string { return ann }
func (p patchable) Desired(*hcov1.HyperConverged, hco.Facts) ([]client.Object, error) {
	return []client.Object{p.kv}, nil
}
func (patchable) Status([]client.Object) hcostatus.Component { return hcostatus.NotFound("KubeVirt") }

// desired is kv's wire form, hc's patch applied, through the library's one path.
func desired(hc *hcov1.HyperConverged, kv *kvv1.KubeVirt) (*unstructured.Unstructured, error) {
	objs, err := hco.DesiredObjects(patchable{kv}, hc, hco.Facts{})
	if err != nil {
		return nil, err
	}
	return objs[0], nil
}

func kubevirt() *kvv1.KubeVirt {
	bandwidth := resource.MustParse("64Mi")
	return &kvv1.KubeVirt{
		TypeMeta:   metav1.TypeMeta{APIVersion: "kubevirt.io/v1", Kind: "KubeVirt"},
		ObjectMeta: metav1.ObjectMeta{Name: "kv", Labels: map[string]string{hco.LabelManagedBy: hco.ManagedByValue, hco.LabelApp: hcov1.HyperConvergedName}},
		Spec: kvv1.KubeVirtSpec{
			ProductName: "hyperconverged-cluster",
			Configuration: kvv1.KubeVirtConfiguration{MigrationConfiguration: &kvv1.MigrationConfiguration{
				BandwidthPerMigration: &bandwidth, ProgressTimeout: ptr.To[int64](150),
			}},
			Workloads: &kvv1.ComponentConfig{NodePlacement: &kvv1.NodePlacement{Tolerations: []corev1.Toleration{
				{Key: "k", Operator: corev1.TolerationOpEqual, Value: "v", Effect: corev1.TaintEffectNoSchedule},
			}}},
		},
	}
}

// patched applies patch to kubevirt() and returns the result as a map.
func patched(t *testing.T, patch string) map[string]any {
	t.Helper()
	out, err := desired(hcWith(patch), kubevirt())
	require.NoError(t, err)
	return out.Object
}

func nested(t *testing.T, obj map[string]any, path ...string) any {
	t.Helper()
	v, found, err := unstructured.NestedFieldNoCopy(obj, path...)
	require.NoError(t, err)
	if !found {
		return nil
	}
	return v
}

// Seed 003's example, as upstream applies it: the patched document is
// decoded over the object built, so an object-valued add changes only the
// members it names.
func TestJSONPatchAnnotationSeedExampleKeepsTheSettings(t *testing.T) {
	obj := patched(t, `[{"op": "add", "path": "/spec/configuration/migrations", "value": {"allowPostCopy": true}}]`)
	assert.Equal(t, true, nested(t, obj, "spec", "configuration", "migrations", "allowPostCopy"))
	assert.Equal(t, "64Mi", nested(t, obj, "spec", "configuration", "migrations", "bandwidthPerMigration"))
	assert.Equal(t, int64(150), nested(t, obj, "spec", "configuration", "migrations", "progressTimeout"))
	assert.Equal(t, "kv", nested(t, obj, "metadata", "name"), "the rest of the object is kept")
	assert.Equal(t, "KubeVirt", nested(t, obj, "kind"))
}

func TestJSONPatchAnnotationRemoveCannotUnsetWhatTheOperatorSets(t *testing.T) {
	obj := patched(t, `[{"op": "remove", "path": "/spec/configuration/migrations/progressTimeout"}]`)
	assert.Equal(t, int64(150), nested(t, obj, "spec", "configuration", "migrations", "progressTimeout"), "as upstream")
}

// A field the Go type lacks lands: the API server, not the Go type, says
// what is valid. It survives inside list items too.
func TestJSONPatchAnnotationKeepsFieldsTheGoTypeLacks(t *testing.T) {
	obj := patched(t, `[
		{"op": "add", "path": "/spec/configuration/notInTheGoType", "value": {"a": 1}},
		{"op": "add", "path": "/spec/workloads/nodePlacement/tolerations/0/futureField", "value": "x"},
		{"op": "replace", "path": "/spec/productName", "value": "acme"}]`)
	assert.Equal(t, map[string]any{"a": int64(1)}, nested(t, obj, "spec", "configuration", "notInTheGoType"))
	tolerations := nested(t, obj, "spec", "workloads", "nodePlacement", "tolerations").([]any)
	require.Len(t, tolerations, 1)
	assert.Equal(t, map[string]any{"key": "k", "operator": "Equal", "value": "v", "effect": "NoSchedule", "futureField": "x"}, tolerations[0])
	assert.Equal(t, "acme", nested(t, obj, "spec", "productName"))
}

func TestJSONPatchAnnotationAbsentOrBlank(t *testing.T) {
	unpatched, err := desired(&hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName}}, kubevirt())
	require.NoError(t, err)
	assert.Equal(t, int64(150), nested(t, unpatched.Object, "spec", "configuration", "migrations", "progressTimeout"))
	assert.Nil(t, nested(t, unpatched.Object, "status"))
	for _, hc := range []*hcov1.HyperConverged{hcWith(""), hcWith("  \n")} {
		out, err := desired(hc, kubevirt())
		require.NoError(t, err)
		assert.Equal(t, unpatched, out, "no patch: the object's wire form")
	}
}

func TestJSONPatchAnnotationErrors(t *testing.T) {
	tests := []struct {
		name, patch, want string
	}{
		{"not json", `{"op": add`, "not an RFC 6902 JSON patch"},
		{"object, not array", `{"op": "add", "path": "/spec/x", "value": 1}`, "not an RFC 6902 JSON patch"},
		{"outside spec", `[{"op": "add", "path": "/metadata/labels/x", "value": "y"}]`, `operation 0: add "/metadata/labels/x": only paths under /spec may be patched`},
		{"status", `[{"op": "replace", "path": "/status", "value": {}}]`, "only paths under /spec"},
		{"spec prefix trick", `[{"op": "add", "path": "/specx", "value": 1}]`, "only paths under /spec"},
		{"move from outside spec", `[{"op": "move", "from": "/metadata/name", "path": "/spec/productName"}]`, "move from \"/metadata/name\""},
		{"unknown op", `[{"op": "merge", "path": "/spec/x", "value": 1}]`, "unsupported operation"},
		{"does not apply", `[{"op": "add", "path": "/spec/configuration/migrations/allowPostCopy", "value": true}, {"op": "replace", "path": "/spec/nope/deeper", "value": 1}]`, "operation 1: does not apply to KubeVirt"},
		{"failed test", `[{"op": "test", "path": "/spec/productName", "value": "other"}]`, "operation 0: does not apply"},
		{"wrong type", `[{"op": "add", "path": "/spec/configuration/migrations/allowPostCopy", "value": "yes"}]`, "does not fit its API"},
		// Each pair of copies doubles the document: unbounded, 60 operations
		// (3 KB of annotation) would need 2^30 times its size.
		{"copies that double the document", "[" + strings.TrimSuffix(strings.Repeat(`{"op": "copy", "from": "/spec", "path": "/spec/a"}, {"op": "copy", "from": "/spec", "path": "/spec/b"}, `, 30), ", ") + "]", "grows past 1048576 bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			kv := kubevirt()
			out, err := desired(hcWith(tc.patch), kv)
			assert.Nil(t, out)
			require.Error(t, err)
			var perr *jsonpatch.Error
			require.True(t, errors.As(err, &perr))
			assert.Contains(t, err.Error(), `annotation "kubevirt.kubevirt.io/jsonpatch"`)
			assert.Contains(t, err.Error(), tc.want)
			assert.Equal(t, kubevirt(), kv, "a failed patch leaves the object unchanged")
		})
	}
}

func FuzzJSONPatchAnnotation(f *testing.F) {
	f.Add(`[{"op": "add", "path": "/spec/configuration/migrations", "value": {"allowPostCopy": true}}]`)
	f.Add(`[{"op": "remove", "path": "/spec/configuration"}]`)
	f.Add(`[{"op": "copy", "from": "/spec/configuration", "path": "/spec/configuration/x"}]`)
	f.Fuzz(func(t *testing.T, patch string) {
		kv := kubevirt()
		out, err := desired(hcWith(patch), kv)
		if err != nil {
			var perr *jsonpatch.Error
			if !errors.As(err, &perr) {
				t.Fatalf("error is not a *jsonpatch.Error: %v", err)
			}
			return
		}
		if out.GetName() != "kv" || out.GetKind() != "KubeVirt" {
			t.Fatal("a patch escaped /spec")
		}
		if !reflect.DeepEqual(kv, kubevirt()) {
			t.Fatal("the object built was changed")
		}
	})
}
