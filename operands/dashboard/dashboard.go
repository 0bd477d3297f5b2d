package dashboard

import (
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hcostatus"
)

// Name is the operand's registry name.
const Name = "dashboard"

// Dir is upstream's directory of dashboards under the operator's working
// directory (DashboardManifestLocation).
const Dir = "dashboard"

// Namespace is where the console reads dashboards from, and where Load
// wants them.
const Namespace = "openshift-config-managed"

// StatusKind names the component in the HyperConverged's condition reasons.
const StatusKind = "DashboardConfigMap"

// Operand makes the dashboard ConfigMaps it was given.
type Operand struct {
	configMaps []corev1.ConfigMap
}

var (
	_ hco.Operand         = Operand{}
	_ hco.OpenShiftOnly   = Operand{}
	_ hco.OtherNamespacer = Operand{}
)

// New returns the dashboard operand for cms (copied), in their order. Each
// needs a name and a namespace, Namespace for the console to show it and
// for the operator's permissions (config/openshift); Load checks
// those of the files it reads.
func New(cms ...corev1.ConfigMap) Operand {
	o := Operand{configMaps: make([]corev1.ConfigMap, len(cms))}
	for i := range cms {
		cms[i].DeepCopyInto(&o.configMaps[i])
	}
	return o
}

// Names returns the namespace/name of the ConfigMaps, in order.
func (o Operand) Names() []string {
	out := make([]string, len(o.configMaps))
	for i, cm := range o.configMaps {
		out[i] = cm.Namespace + "/" + cm.Name
	}
	return out
}

// Name implements hco.Operand.
func (Operand) Name() string { return Name }

// OpenShiftOnly implements hco.OpenShiftOnly: upstream deploys dashboards
// on OpenShift only, whose console reads them.
func (Operand) OpenShiftOnly() bool { return true }

func configMapType() metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: corev1.SchemeGroupVersion.String(), Kind: "ConfigMap"}
}

// Kinds implements hco.Operand.
func (Operand) Kinds() []client.Object {
	return []client.Object{&corev1.ConfigMap{TypeMeta: configMapType()}}
}

// OtherNamespaces implements hco.OtherNamespacer: on OpenShift, the
// namespaces of the ConfigMaps (Namespace); none elsewhere, or without
// dashboards.
func (o Operand) OtherNamespaces(openShift bool) map[schema.GroupVersionKind][]string {
	if !openShift || len(o.configMaps) == 0 {
		return nil
	}
	var namespaces []string
	for _, cm := range o.configMaps {
		if !slices.Contains(namespaces, cm.Namespace) {
			namespaces = append(namespaces, cm.Namespace)
		}
	}
	return map[schema.GroupVersionKind][]string{corev1.SchemeGroupVersion.WithKind("ConfigMap"): namespaces}
}

// Desired implements hco.Operand: on OpenShift, the dashboards (Build);
// elsewhere nothing.
func (o Operand) Desired(hc *hcov1.HyperConverged, facts hco.Facts) ([]client.Object, error) {
	if !facts.Platform.OpenShift || len(o.configMaps) == 0 {
		return nil, nil
	}
	objs := make([]client.Object, len(o.configMaps))
	for i := range o.configMaps {
		objs[i] = Build(hc, facts.Environment, &o.configMaps[i])
	}
	return objs, nil
}

// Build returns the dashboard cm as the operator makes it for hc: its
// name, namespace, annotations and content, and its labels with upstream's
// (component compute) set over them, as upstream's handler has it.
func Build(hc *hcov1.HyperConverged, env hco.Environment, cm *corev1.ConfigMap) *corev1.ConfigMap {
	labels := maps.Clone(cm.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	maps.Copy(labels, hco.Labels(hc, env, hco.ComponentCompute))
	out := cm.DeepCopy()
	out.TypeMeta = configMapType()
	out.ObjectMeta = metav1.ObjectMeta{Name: cm.Name, Namespace: cm.Namespace, Labels: labels, Annotations: out.Annotations}
	return out
}

// Status implements hco.Operand. A ConfigMap has no status: the component
// is available once one exists, as upstream counts it.
func (Operand) Status(observed []client.Object) hcostatus.Component {
	for _, o := range observed {
		if cm, ok := o.(*corev1.ConfigMap); ok && cm != nil {
			return hcostatus.Found(StatusKind)
		}
	}
	return hcostatus.NotFound(StatusKind)
}
