package restmapping_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/hcokit/hcokit/hco/internal/restmapping"
)

// countingMapper finds only ConfigMaps, and counts what it is asked.
type countingMapper struct {
	meta.RESTMapper
	asked int
}

func (m *countingMapper) RESTMapping(gk schema.GroupKind, versions ...string) (*meta.RESTMapping, error) {
	m.asked++
	if gk.Kind != "ConfigMap" {
		return nil, &meta.NoKindMatchError{GroupKind: gk, SearchedVersions: versions}
	}
	return &meta.RESTMapping{Resource: corev1.SchemeGroupVersion.WithResource("configmaps"),
		GroupVersionKind: corev1.SchemeGroupVersion.WithKind("ConfigMap"), Scope: meta.RESTScopeNamespace}, nil
}

// A mapping found is answered from memory; one not found is asked again
// (its API may appear).
func TestMappingCache(t *testing.T) {
	inner := &countingMapper{}
	m := restmapping.Remembering(inner)
	for range 3 {
		mapping, err := m.RESTMapping(schema.GroupKind{Kind: "ConfigMap"}, "v1")
		require.NoError(t, err)
		assert.Equal(t, meta.RESTScopeNameNamespace, mapping.Scope.Name())
	}
	assert.Equal(t, 1, inner.asked)
	for range 2 {
		_, err := m.RESTMapping(schema.GroupKind{Group: "ssp.kubevirt.io", Kind: "SSP"}, "v1beta3")
		assert.True(t, meta.IsNoMatchError(err))
	}
	assert.Equal(t, 3, inner.asked)
}
