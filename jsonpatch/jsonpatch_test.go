package jsonpatch_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/hcokit/hcokit/jsonpatch"
)

// The operator's own behaviour on operands (decoded over the object, fields
// a Go type lacks, the errors) is tested through hco.DesiredObjects in
// package hco; this is the package's contract alone.

func TestParse(t *testing.T) {
	p, err := jsonpatch.Parse("a", "  \n")
	assert.NoError(t, err)
	assert.Nil(t, p, "blank: no patch")
	assert.False(t, jsonpatch.IsSet(" "))

	p, err = jsonpatch.Parse("a", `[{"op": "add", "path": "/spec/x", "value": 1}, {"op": "remove", "path": "/spec"}]`)
	require.NoError(t, err)
	assert.Len(t, p, 2)

	_, err = jsonpatch.Parse("a", `[{"op": "copy", "from": "/metadata", "path": "/spec/x"}]`)
	var perr *jsonpatch.Error
	require.True(t, errors.As(err, &perr))
	assert.Equal(t, jsonpatch.Error{Annotation: "a", Operation: 0, Reason: `copy from "/metadata": only paths under /spec may be patched`}, *perr)
}

func TestApplyDecodesOverTheObjectAndKeepsWhatItsTypeLacks(t *testing.T) {
	obj := &corev1.ConfigMap{Data: map[string]string{"kept": "yes"}}
	built := []byte(`{"metadata": {"name": "c"}, "data": {"kept": "yes"}, "spec": {"a": 1}}`)
	p, err := jsonpatch.Parse("a", `[{"op": "add", "path": "/spec/b", "value": true}, {"op": "remove", "path": "/spec/a"}]`)
	require.NoError(t, err)
	out, err := jsonpatch.Apply("a", p, obj, "ConfigMap", built)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"b": true}, out["spec"], "spec is no ConfigMap field: taken from the patched document")
	assert.Equal(t, map[string]any{"kept": "yes"}, out["data"])
	assert.Equal(t, map[string]string{"kept": "yes"}, obj.Data, "the object is not changed")

	_, err = jsonpatch.Apply("a", p, obj, "ConfigMap", []byte(`{"spec": {}}`))
	var perr *jsonpatch.Error
	require.True(t, errors.As(err, &perr))
	assert.Equal(t, 1, perr.Operation, "the operation to blame: removing a missing /spec/a")
}
