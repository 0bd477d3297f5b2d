package manifestdir

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// File is one manifest file: its path in the fs.FS, and its YAML document.
type File struct {
	Path string
	Doc  []byte
}

// Read returns the manifest files of dir in fsys: every file whose name
// ends in .yaml, in subdirectories too, in lexical order. A dir that does
// not exist holds none. A file that is not one YAML document (none, or
// more than one: upstream would read the first only), and a dir that is a
// file, are errors naming it.
func Read(fsys fs.FS, dir string) ([]File, error) {
	info, err := fs.Stat(fsys, dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, err
	case !info.IsDir():
		return nil, fmt.Errorf("%s: not a directory", dir)
	}
	var out []File
	err = fs.WalkDir(fsys, dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(d.Name(), ".yaml") {
			return err
		}
		raw, err := fs.ReadFile(fsys, path)
		if err != nil {
			return err
		}
		doc, err := oneDocument(raw)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, File{Path: path, Doc: doc})
		return nil
	})
	return out, err
}

// Load decodes the manifest files of dir in fsys (Read) with decode, which
// returns the object of a document and its name, or why it cannot take it.
// An error names the file. Two files of one name are an error naming both,
// unless their objects are equal (a Kubernetes volume's links to its files
// show each twice): then the first counts.
func Load[T any](fsys fs.FS, dir, kind string, decode func(doc []byte) (T, string, error)) ([]T, error) {
	files, err := Read(fsys, dir)
	if err != nil {
		return nil, err
	}
	var out []T
	at := map[string]int{} // name: index in out and from
	var from []string
	for _, f := range files {
		obj, name, err := decode(f.Doc)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Path, err)
		}
		if i, seen := at[name]; seen {
			if equality.Semantic.DeepEqual(out[i], obj) {
				continue
			}
			return nil, fmt.Errorf("%s: %s %q is also in %s, with another content", f.Path, kind, name, from[i])
		}
		at[name] = len(out)
		out = append(out, obj)
		from = append(from, f.Path)
	}
	return out, nil
}

// oneDocument returns the one YAML document of raw.
func oneDocument(raw []byte) ([]byte, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(raw)))
	var docs [][]byte
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if !empty(doc) {
			docs = append(docs, doc)
		}
	}
	if len(docs) != 1 {
		return nil, fmt.Errorf("%d YAML documents; want one object per file", len(docs))
	}
	return docs[0], nil
}

// empty reports whether a YAML document holds nothing but blank lines,
// comments and a document separator.
func empty(doc []byte) bool {
	for _, line := range bytes.Split(doc, []byte("\n")) {
		if l := bytes.TrimSpace(line); len(l) > 0 && l[0] != '#' && !bytes.Equal(l, []byte("---")) {
			return false
		}
	}
	return true
}
