package memo

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
)

func configMap(rv string, data map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"data": data}}
	u.SetAPIVersion("v1")
	u.SetKind("ConfigMap")
	u.SetNamespace("ns")
	u.SetName("a")
	u.SetResourceVersion(rv)
	return u
}

// What the memo says of an object: nothing before a write; in sync without
// a comparison at the version it stored, or at the version a write replaced
// (the cache behind it); in sync by content when the server's copy moved
// but holds what it stored; not the same desire once the build changes.
func TestRecall(t *testing.T) {
	m := New()
	built := configMap("", map[string]any{"k": "v"})
	key := KeyOf(built)
	assert.Equal(t, Recalled{}, m.Recall(key, built, built, configMap("1", nil)), "nothing remembered")

	stored := configMap("2", map[string]any{"k": "v", "default": "x"})
	m.Remember(key, built, map[string]any{"data": map[string]any{"k": "v"}}, stored, "1")
	assert.True(t, m.Recall(key, built, built, configMap("2", nil)).Fast, "at the version stored")
	assert.True(t, m.Recall(key, built, built, configMap("1", nil)).Fast, "the cache behind the write")
	assert.True(t, m.InSyncAt(key, "2"))
	assert.False(t, m.InSyncAt(key, "3"))

	moved := configMap("3", map[string]any{"k": "v", "default": "x"})
	r := m.Recall(key, built, built, moved)
	assert.Equal(t, Recalled{Known: true, SameDesired: true, InSync: true}, r, "another version, the content stored")
	edited := configMap("3", map[string]any{"k": "edited", "default": "x"})
	assert.False(t, m.Recall(key, built, built, edited).InSync, "somebody changed it")

	rebuilt := configMap("", map[string]any{"k": "v"})
	r = m.Recall(key, rebuilt, rebuilt, configMap("2", nil))
	assert.True(t, r.Fast && r.Rebuilt, "a new build of the same content")
	m.BuiltAgain(key, rebuilt)
	assert.False(t, m.Recall(key, rebuilt, rebuilt, configMap("2", nil)).Rebuilt)

	other := configMap("", map[string]any{"k": "new"})
	assert.Equal(t, Recalled{Known: true}, m.Recall(key, other, other, configMap("2", nil)), "another desire")

	m.ForgetKind(key.GVK)
	assert.Equal(t, Recalled{}, m.Recall(key, built, built, configMap("2", nil)), "the kind's API went")
}

func TestStatusWritten(t *testing.T) {
	m := New()
	key := Key{GVK: configMap("", nil).GroupVersionKind()}
	m.StatusWritten(key, "5")
	assert.True(t, m.StatusBehind(key, "5"))
	assert.False(t, m.StatusBehind(key, "6"))
	assert.Equal(t, Recalled{}, m.Recall(key, configMap("", nil), configMap("", nil), configMap("5", nil)), "a status entry says nothing of content")
}

func TestLeaveAndTyped(t *testing.T) {
	m := New()
	built, theirs := configMap("", nil), configMap("1", nil)
	theirs.SetUID("theirs")
	key := KeyOf(built)
	assert.False(t, m.Leave(key, built, theirs), "first time")
	assert.True(t, m.Leave(key, built, theirs), "the same object again")
	assert.Same(t, theirs, m.LeftAlone(key, built))
	assert.Nil(t, m.LeftAlone(key, configMap("", nil)), "another build tries again")

	u := configMap("7", map[string]any{"k": "v"})
	first := m.Typed(u, clientgoscheme.Scheme)
	assert.IsType(t, &corev1.ConfigMap{}, first)
	assert.Same(t, first, m.Typed(u.DeepCopy(), clientgoscheme.Scheme), "converted once per resourceVersion")
	u.SetResourceVersion("8")
	assert.NotSame(t, first, m.Typed(u, clientgoscheme.Scheme))
	m.Forget(KeyOf(u))
	assert.NotSame(t, first, m.Typed(configMap("7", map[string]any{"k": "v"}), clientgoscheme.Scheme), "forgotten")
}
