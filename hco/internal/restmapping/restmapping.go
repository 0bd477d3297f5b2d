package restmapping

import (
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Remembering returns m, answering RESTMapping from memory once m has found
// the mapping: controller-runtime's cache asks it on every read (is the
// kind namespaced?), and the dynamic mapper's answer walks every API group,
// allocating a no-match error for each: a fifth of the CPU of a reconcile
// with nothing to do, measured. A kind not found is asked again every
// time; a found one is kept, as the dynamic mapper keeps it.
func Remembering(m meta.RESTMapper) meta.RESTMapper {
	return &mappingCache{RESTMapper: m, found: map[string]meta.RESTMapping{}}
}

type mappingCache struct {
	meta.RESTMapper
	mu    sync.RWMutex
	found map[string]meta.RESTMapping
}

// RESTMapping implements meta.RESTMapper.
func (m *mappingCache) RESTMapping(gk schema.GroupKind, versions ...string) (*meta.RESTMapping, error) {
	key := gk.String() + "/" + strings.Join(versions, ",")
	m.mu.RLock()
	found, ok := m.found[key]
	m.mu.RUnlock()
	if ok {
		return &found, nil
	}
	mapping, err := m.RESTMapper.RESTMapping(gk, versions...)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	m.found[key] = *mapping
	m.mu.Unlock()
	return mapping, nil
}
