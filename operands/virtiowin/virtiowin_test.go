package virtiowin_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/operands/virtiowin"
)

const image = "quay.io/kubevirt/virtio-container-disk@sha256:6b823946eb7493347a93d6daa16b4101a68e16a0ee1766e01ac3adf82e4b5838"

func hc() *hcov1.HyperConverged {
	return &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: hcov1.DefaultNamespace}}
}

func facts(openShift bool, images map[string]string) hco.Facts {
	return hco.Facts{Environment: hco.Environment{Namespace: hcov1.DefaultNamespace, Version: "1.20.0", Images: images},
		Platform: hco.Platform{OpenShift: openShift}}
}

// The objects are upstream's (its handlers' output at 03da3cf,
// testdata/upstream-03da3cf), by kind.
func TestDesiredIsUpstreams(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "upstream-03da3cf", "objects.yaml"))
	require.NoError(t, err)
	want := map[string]map[string]any{}
	for _, doc := range strings.Split(string(raw), "\n---\n") {
		var m map[string]any
		require.NoError(t, yaml.Unmarshal([]byte(strings.TrimPrefix(doc, "---\n")), &m))
		kind := "ConfigMap"
		switch {
		case m["rules"] != nil:
			kind = "Role"
		case m["roleRef"] != nil:
			kind = "RoleBinding"
		}
		want[kind] = m
	}
	objs, err := hco.DesiredObjects(virtiowin.New(), hc(), facts(true, map[string]string{virtiowin.ImageKey: image}))
	require.NoError(t, err)
	require.Len(t, objs, 3)
	for _, o := range objs {
		b, err := json.Marshal(o.Object)
		require.NoError(t, err)
		var got map[string]any
		require.NoError(t, json.Unmarshal(b, &got))
		delete(got, "apiVersion")
		delete(got, "kind")
		delete(got["metadata"].(map[string]any), "creationTimestamp")
		assert.Equal(t, want[o.GetKind()], got, o.GetKind())
	}
}

// Off OpenShift nothing; on OpenShift without the image, the Role and its
// binding alone, as upstream.
func TestDesiredByPlatformAndImage(t *testing.T) {
	objs, err := virtiowin.New().Desired(hc(), facts(false, map[string]string{virtiowin.ImageKey: image}))
	require.NoError(t, err)
	assert.Empty(t, objs)
	objs, err = virtiowin.New().Desired(hc(), facts(true, nil))
	require.NoError(t, err)
	require.Len(t, objs, 2)
	assert.Equal(t, "Role", objs[0].GetObjectKind().GroupVersionKind().Kind)
}
