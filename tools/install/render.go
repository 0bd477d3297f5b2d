package install

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// Edit is what an admin changes in a kustomization before building it, as
// the kustomize edit commands would.
type Edit struct {
	// Namespace, when set, replaces the namespace (kustomize edit set namespace).
	Namespace string
	// Components are added, relative to the kustomization (kustomize edit add component).
	Components []string
}

// Render builds the kustomization dir (a path under configRoot, the config/
// directory) after edit, and returns its objects. The edit is made on a copy
// in memory: configRoot is not changed. The copy holds config/ and the
// component operators' descriptions beside the operand modules
// (operands/*/operator), which config/operators refers to.
func Render(configRoot, dir string, edit Edit) ([]*unstructured.Unstructured, error) {
	mem := filesys.MakeFsInMemory()
	repo := filepath.Dir(configRoot)
	operators, err := filepath.Glob(filepath.Join(repo, "operands", "*", "operator"))
	if err != nil {
		return nil, err
	}
	for _, tree := range append([]string{configRoot}, operators...) {
		err := filepath.WalkDir(tree, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(repo, path)
			if err != nil {
				return err
			}
			return mem.WriteFile(filepath.Join("/", rel), data)
		})
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", tree, err)
		}
	}
	root := filepath.Join("/config", dir)
	if edit.Namespace != "" || len(edit.Components) > 0 {
		if err := editKustomization(mem, root, edit); err != nil {
			return nil, err
		}
	}
	resMap, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(mem, root)
	if err != nil {
		return nil, fmt.Errorf("kustomize build %s: %w", filepath.Join(configRoot, dir), err)
	}
	var out []*unstructured.Unstructured
	for _, r := range resMap.Resources() {
		// Through JSON, so that numbers are int64 or float64 as the
		// apimachinery helpers expect.
		raw, err := r.MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("kustomize build %s: %s: %w", dir, r.CurId(), err)
		}
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(raw); err != nil {
			return nil, fmt.Errorf("kustomize build %s: %s: %w", dir, r.CurId(), err)
		}
		out = append(out, u)
	}
	return out, nil
}

// editKustomization applies edit to the kustomization in dir.
func editKustomization(fsys filesys.FileSystem, dir string, edit Edit) error {
	path := filepath.Join(dir, konfig.DefaultKustomizationFileName())
	data, err := fsys.ReadFile(path)
	if err != nil {
		return fmt.Errorf("edit kustomization: %w", err)
	}
	var k types.Kustomization
	if err := yaml.Unmarshal(data, &k); err != nil {
		return fmt.Errorf("edit kustomization: parse %s: %w", path, err)
	}
	if edit.Namespace != "" {
		k.Namespace = edit.Namespace
	}
	k.Components = append(k.Components, edit.Components...)
	if data, err = yaml.Marshal(&k); err != nil {
		return err
	}
	return fsys.WriteFile(path, data)
}
