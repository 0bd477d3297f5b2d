package hco_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kvv1 "kubevirt.io/api/core/v1"

	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/hco"
)

const ann = v1beta1.KubeVirtJSONPatchAnnotation

func hcWith(value string) *v1beta1.HyperConverged {
	return &v1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{ann: value}}}
}

func kubevirt() *kvv1.KubeVirt {
	return &kvv1.KubeVirt{
		ObjectMeta: metav1.ObjectMeta{Name: "kv"},
		Spec:       kvv1.KubeVirtSpec{Configuration: kvv1.KubeVirtConfiguration{MigrationConfiguration: &kvv1.MigrationConfiguration{}}},
	}
}

func TestApplyJSONPatchAnnotationSeedExample(t *testing.T) {
	kv := kubevirt()
	applied, err := hco.ApplyJSONPatchAnnotation(hcWith(`[{"op": "add", "path": "/spec/configuration/migrations", "value": {"allowPostCopy": true}}]`), ann, kv)
	require.NoError(t, err)
	assert.True(t, applied)
	require.NotNil(t, kv.Spec.Configuration.MigrationConfiguration.AllowPostCopy)
	assert.True(t, *kv.Spec.Configuration.MigrationConfiguration.AllowPostCopy)
	assert.Equal(t, "kv", kv.Name, "the rest of the object is kept")
}

func TestApplyJSONPatchAnnotationAbsentOrBlank(t *testing.T) {
	for _, hc := range []*v1beta1.HyperConverged{{}, hcWith(""), hcWith("  \n")} {
		kv := kubevirt()
		applied, err := hco.ApplyJSONPatchAnnotation(hc, ann, kv)
		require.NoError(t, err)
		assert.False(t, applied)
		assert.Equal(t, kubevirt(), kv)
	}
}

func TestApplyJSONPatchAnnotationErrors(t *testing.T) {
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
		{"field the API does not have", `[{"op": "add", "path": "/spec/noSuchField", "value": 1}]`, `unknown field "noSuchField"`},
		{"wrong type", `[{"op": "add", "path": "/spec/configuration/migrations/allowPostCopy", "value": "yes"}]`, "is not valid for this API version"},
		// Each pair of copies doubles the document: unbounded, 60 operations
		// (3 KB of annotation) would need 2^30 times its size.
		{"copies that double the document", "[" + strings.TrimSuffix(strings.Repeat(`{"op": "copy", "from": "/spec", "path": "/spec/a"}, {"op": "copy", "from": "/spec", "path": "/spec/b"}, `, 30), ", ") + "]", "grows past 1048576 bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			kv := kubevirt()
			_, err := hco.ApplyJSONPatchAnnotation(hcWith(tc.patch), ann, kv)
			require.Error(t, err)
			var perr *hco.JSONPatchError
			require.True(t, errors.As(err, &perr))
			assert.Contains(t, err.Error(), `annotation "kubevirt.kubevirt.io/jsonpatch"`)
			assert.Contains(t, err.Error(), tc.want)
			assert.Equal(t, kubevirt(), kv, "a failed patch leaves the object unchanged")
		})
	}
}

func FuzzApplyJSONPatchAnnotation(f *testing.F) {
	f.Add(`[{"op": "add", "path": "/spec/configuration/migrations", "value": {"allowPostCopy": true}}]`)
	f.Add(`[{"op": "remove", "path": "/spec/configuration"}]`)
	f.Add(`[{"op": "copy", "from": "/spec/configuration", "path": "/spec/configuration/x"}]`)
	f.Fuzz(func(t *testing.T, patch string) {
		kv := kubevirt()
		applied, err := hco.ApplyJSONPatchAnnotation(hcWith(patch), ann, kv)
		if err != nil {
			var perr *hco.JSONPatchError
			if !errors.As(err, &perr) {
				t.Fatalf("error is not a JSONPatchError: %v", err)
			}
			if applied {
				t.Fatal("applied and failed at once")
			}
		}
		if kv.Name != "kv" {
			t.Fatal("a patch escaped /spec")
		}
	})
}
