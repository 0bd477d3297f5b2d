package bundle

import (
	"fmt"
	"path/filepath"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// originAnnotation is where kustomize records the file an object came from
// (buildMetadata: [originAnnotations] in the overlay).
const originAnnotation = "config.kubernetes.io/origin"

// Object is one object of the kustomize output and the file it came from,
// relative to the repository root ("" when kustomize did not record it).
type Object struct {
	*unstructured.Unstructured
	Origin string
}

// Kustomize builds the kustomization in dir (kustomize build dir) and
// returns its objects in kustomize's order, with the origin annotation moved
// into Object.Origin. root is the repository root the origins are made
// relative to.
func Kustomize(root, dir string) ([]Object, error) {
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	resMap, err := k.Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		return nil, fmt.Errorf("kustomize build %s: %w", dir, err)
	}
	var objs []Object
	for _, r := range resMap.Resources() {
		origin := ""
		if o, err := r.GetOrigin(); err == nil && o != nil && o.Path != "" {
			origin = o.Path
			if rel, err := filepath.Rel(root, filepath.Join(dir, o.Path)); err == nil {
				origin = rel
			}
		}
		data, err := r.MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("kustomize build %s: %s %s: %w", dir, r.GetKind(), r.GetName(), err)
		}
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(data); err != nil {
			return nil, fmt.Errorf("kustomize build %s: %s %s: %w", dir, r.GetKind(), r.GetName(), err)
		}
		if a := u.GetAnnotations(); a != nil {
			delete(a, originAnnotation)
			if len(a) == 0 {
				a = nil
			}
			u.SetAnnotations(a)
		}
		objs = append(objs, Object{Unstructured: u, Origin: origin})
	}
	return objs, nil
}
