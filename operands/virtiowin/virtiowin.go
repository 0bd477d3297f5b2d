package virtiowin

import (
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hcostatus"
)

// Name is the operand's registry name.
const Name = "virtiowin"

// ImageKey is the Environment.Images key of the virtio-win container disk.
const ImageKey = "virtio-win"

// ObjectName is the name of the ConfigMap, the Role and the RoleBinding.
const ObjectName = "virtio-win"

// ImageDataKey is the ConfigMap's key naming the image.
const ImageDataKey = "virtio-win-image"

// Operand builds the virtio-win ConfigMap and its reader Role and binding.
type Operand struct{}

var (
	_ hco.OpenShiftOnly = Operand{}
	_ hco.Operand       = Operand{}
	_ hco.Imager        = Operand{}
)

// New returns the virtio-win operand.
func New() Operand { return Operand{} }

// Name implements hco.Operand.
func (Operand) Name() string { return Name }

// OpenShiftOnly implements hco.OpenShiftOnly: upstream deploys it on
// OpenShift only.
func (Operand) OpenShiftOnly() bool { return true }

var (
	configMapType   = metav1.TypeMeta{APIVersion: corev1.SchemeGroupVersion.String(), Kind: "ConfigMap"}
	roleType        = metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "Role"}
	roleBindingType = metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "RoleBinding"}
)

// Kinds implements hco.Operand.
func (Operand) Kinds() []client.Object {
	return []client.Object{&rbacv1.Role{TypeMeta: roleType}, &rbacv1.RoleBinding{TypeMeta: roleBindingType}, &corev1.ConfigMap{TypeMeta: configMapType}}
}

// Desired implements hco.Operand: on OpenShift, the Role and the
// RoleBinding, then the ConfigMap when the environment has the image;
// nothing elsewhere.
func (Operand) Desired(hc *hcov1.HyperConverged, facts hco.Facts) ([]client.Object, error) {
	if !facts.Platform.OpenShift {
		return nil, nil
	}
	env := facts.Environment
	objs := []client.Object{BuildRole(hc, env), BuildRoleBinding(hc, env)}
	if image := env.Images[ImageKey]; image != "" {
		objs = append(objs, BuildConfigMap(hc, env, image))
	}
	return objs, nil
}

// BuildConfigMap returns the ConfigMap naming image.
func BuildConfigMap(hc *hcov1.HyperConverged, env hco.Environment, image string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		TypeMeta:   configMapType,
		ObjectMeta: metav1.ObjectMeta{Name: ObjectName, Namespace: hc.Namespace, Labels: hco.Labels(hc, env, hco.ComponentDeployment)},
		Data:       map[string]string{ImageDataKey: image},
	}
}

// BuildRole returns the Role that reads the ConfigMap.
func BuildRole(hc *hcov1.HyperConverged, env hco.Environment) *rbacv1.Role {
	return &rbacv1.Role{
		TypeMeta:   roleType,
		ObjectMeta: metav1.ObjectMeta{Name: ObjectName, Namespace: hc.Namespace, Labels: hco.Labels(hc, env, hco.ComponentDeployment)},
		Rules: []rbacv1.PolicyRule{{
			APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{ObjectName}, Verbs: []string{"get"},
		}},
	}
}

// BuildRoleBinding grants the Role to every authenticated user (its
// component label is upstream's: storage).
func BuildRoleBinding(hc *hcov1.HyperConverged, env hco.Environment) *rbacv1.RoleBinding {
	return &rbacv1.RoleBinding{
		TypeMeta:   roleBindingType,
		ObjectMeta: metav1.ObjectMeta{Name: ObjectName, Namespace: hc.Namespace, Labels: hco.Labels(hc, env, hco.ComponentStorage)},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: ObjectName},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.GroupKind, Name: "system:authenticated"}},
	}
}

// StatusKind names the component in the HyperConverged's condition reasons.
const StatusKind = "VirtioWin"

// Status implements hco.Operand: available once the Role exists, as
// upstream counts objects whose handlers report no condition.
func (Operand) Status(observed []client.Object) hcostatus.Component {
	for _, o := range observed {
		if r, ok := o.(*rbacv1.Role); ok && r != nil && r.Name == ObjectName {
			return hcostatus.Found(StatusKind)
		}
	}
	return hcostatus.NotFound(StatusKind)
}

// Images implements hco.Imager: upstream's variable VIRTIOWIN_CONTAINER.
func (Operand) Images() []hco.Image {
	return []hco.Image{{Key: ImageKey, Flag: "virtio-win-image", Variable: "VIRTIOWIN_CONTAINER",
		Usage: "Container disk of the virtio-win drivers, named in the virtio-win ConfigMap on OpenShift; empty leaves the ConfigMap out"}}
}
