package manifestdir_test

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hcokit/hcokit/internal/manifestdir"
)

const obj = "kind: ConfigMap\nmetadata:\n  name: a\n"

// Every .yaml file under the directory, subdirectories too, in lexical
// order; nothing else; a missing directory holds none.
func TestRead(t *testing.T) {
	fsys := fstest.MapFS{
		"d/b.yaml":        {Data: []byte("# a comment\n---\n" + obj + "---\n")},
		"d/a.yaml":        {Data: []byte(obj)},
		"d/sub/c.yaml":    {Data: []byte(obj)},
		"d/notes.txt":     {Data: []byte("not yaml")},
		"d/d.yml":         {Data: []byte(obj)},
		"other/x.yaml":    {Data: []byte(obj)},
		"d/sub/deep.yaml": {Data: []byte(obj)},
	}
	files, err := manifestdir.Read(fsys, "d")
	require.NoError(t, err)
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
		assert.Contains(t, string(f.Doc), "name: a", f.Path)
	}
	assert.Equal(t, []string{"d/a.yaml", "d/b.yaml", "d/sub/c.yaml", "d/sub/deep.yaml"}, paths)

	files, err = manifestdir.Read(fsys, "missing")
	assert.NoError(t, err)
	assert.Empty(t, files)
}

// A file of no object or of two, and a directory that is a file, are
// errors that name the file.
func TestReadRefuses(t *testing.T) {
	for name, tc := range map[string]struct {
		fsys fstest.MapFS
		dir  string
		want string
	}{
		"two documents": {fstest.MapFS{"d/a.yaml": {Data: []byte(obj + "---\n" + obj)}}, "d", "d/a.yaml: 2 YAML documents"},
		"empty file":    {fstest.MapFS{"d/ok.yaml": {Data: []byte(obj)}, "d/z.yaml": {Data: []byte("# nothing\n")}}, "d", "d/z.yaml: 0 YAML documents"},
		"not a dir":     {fstest.MapFS{"d": {Data: []byte(obj)}}, "d", "d: not a directory"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := manifestdir.Read(tc.fsys, tc.dir)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// byName decodes a document into its text, named after its first line.
func byName(doc []byte) (string, string, error) {
	s := string(doc)
	if s == "bad\n" {
		return "", "", errors.New("cannot take it")
	}
	name, _, _ := strings.Cut(s, "\n")
	return s, name, nil
}

// Load decodes each file once; the same object twice counts once; two
// objects of one name, and a file the decoder refuses, are errors naming
// the files.
func TestLoad(t *testing.T) {
	objs, err := manifestdir.Load(fstest.MapFS{
		"d/a.yaml":            {Data: []byte("a\n")},
		"d/..data/a.yaml":     {Data: []byte("a\n")},
		"d/b.yaml":            {Data: []byte("b\nmore\n")},
		"d/elsewhere/ok.yaml": {Data: []byte("c\n")},
	}, "d", "Thing", byName)
	require.NoError(t, err)
	assert.Equal(t, []string{"a\n", "b\nmore\n", "c\n"}, objs)

	_, err = manifestdir.Load(fstest.MapFS{"d/a.yaml": {Data: []byte("a\n")}, "d/b.yaml": {Data: []byte("a\nother\n")}}, "d", "Thing", byName)
	require.Error(t, err)
	assert.Equal(t, `d/b.yaml: Thing "a" is also in d/a.yaml, with another content`, err.Error())

	_, err = manifestdir.Load(fstest.MapFS{"d/a.yaml": {Data: []byte("a\n")}, "d/b.yaml": {Data: []byte("bad\n")}}, "d", "Thing", byName)
	require.Error(t, err)
	assert.Equal(t, "d/b.yaml: cannot take it", err.Error())
}
