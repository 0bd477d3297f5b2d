package dashboard

import (
	"errors"
	"fmt"
	"io/fs"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/hcokit/hcokit/internal/manifestdir"
)

// Load reads the dashboards of dir in fsys as upstream HCO reads its
// dashboard/ directory (GetDashboardHandlers at 03da3cf): every file whose
// name ends in .yaml, in subdirectories too, in lexical order, one
// ConfigMap each, its unknown fields ignored. A dir that does not exist
// holds none. A file Load cannot take is an error naming it (upstream logs
// it and goes on without it, or, for a ConfigMap without labels, panics):
// YAML that does not parse, more than one object, another kind, no name, a
// namespace other than Namespace (none included: upstream could not create
// it), or the name of another file's ConfigMap with another content (the
// same one twice, as a Kubernetes volume's links to its files show it,
// counts once).
func Load(fsys fs.FS, dir string) ([]corev1.ConfigMap, error) {
	return manifestdir.Load(fsys, dir, "ConfigMap", decode)
}

// decode decodes one dashboard ConfigMap.
func decode(doc []byte) (corev1.ConfigMap, string, error) {
	var cm corev1.ConfigMap
	if err := yaml.Unmarshal(doc, &cm); err != nil {
		return cm, "", fmt.Errorf("not a ConfigMap: %w", err)
	}
	want := configMapType()
	switch {
	case cm.Kind != "" && cm.Kind != want.Kind, cm.APIVersion != "" && cm.APIVersion != want.APIVersion:
		return cm, "", fmt.Errorf("apiVersion %q, kind %q: want a %s of %s", cm.APIVersion, cm.Kind, want.Kind, want.APIVersion)
	case cm.Name == "":
		return cm, "", errors.New("metadata.name is empty")
	case cm.Namespace != Namespace:
		return cm, "", fmt.Errorf("metadata.namespace %q: a dashboard goes in %s, where the console reads them (and where the operator may write ConfigMaps)", cm.Namespace, Namespace)
	}
	cm.TypeMeta = want
	return cm, cm.Name, nil
}
