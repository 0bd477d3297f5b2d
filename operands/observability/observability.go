package observability

import (
	"strings"

	ocpconfigv1 "github.com/openshift/api/config/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/featuregates"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hcostatus"
	"github.com/hcokit/hcokit/operands/workload"
	"github.com/hcokit/hcokit/tlsprofile"
)

// Name is the operand's registry name.
const Name = "observability"

// ImageKey is the Environment.Images key of the controller's image. Without
// it the operand wants nothing.
const ImageKey = "virt-observability-controller"

// ObjectName is the name of every object of the operand (upstream's
// controllerName), and the value of its component label.
const ObjectName = "virt-observability-controller"

// ClusterRoleBindingName is upstream's name of the ClusterRoleBinding.
const ClusterRoleBindingName = ObjectName + "-rolebinding"

// StatusKind names the component in the HyperConverged's condition reasons.
const StatusKind = "ObservabilityController"

// MonitoringKinds are the Prometheus operator's kinds whose API must be
// served for the controller to be deployed (upstream's isPrometheusExists).
var MonitoringKinds = []schema.GroupVersionKind{
	{Group: "monitoring.coreos.com", Version: "v1", Kind: "PrometheusRule"},
	{Group: "monitoring.coreos.com", Version: "v1", Kind: "ServiceMonitor"},
}

// Operand builds the observability controller's objects.
type Operand struct{}

var _ hco.Operand = Operand{}

// New returns the observability operand.
func New() Operand { return Operand{} }

// Name implements hco.Operand.
func (Operand) Name() string { return Name }

// Kinds implements hco.Operand.
func (Operand) Kinds() []client.Object {
	return []client.Object{
		&corev1.ServiceAccount{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"}},
		&rbacv1.ClusterRoleBinding{TypeMeta: rbacType("ClusterRoleBinding")},
		&appsv1.Deployment{TypeMeta: metav1.TypeMeta{APIVersion: appsv1.SchemeGroupVersion.String(), Kind: "Deployment"}},
	}
}

func rbacType(kind string) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: kind}
}

// Desired implements hco.Operand: the ServiceAccount, ClusterRoleBinding
// and Deployment while the gate deployObservabilityController is enabled
// and the environment has the image; nothing otherwise. The ClusterRole
// (ClusterRole: reading and writing Secrets and Services in every
// namespace, among others) is shipped with the component that turns the
// operand on (config/components/observability): the operator would
// otherwise hold all of it to write it; binding it needs only bind on it.
func (Operand) Desired(hc *hcov1.HyperConverged, facts hco.Facts) ([]client.Object, error) {
	image := facts.Images[ImageKey]
	if image == "" || !featuregates.Enabled(hc.Spec.FeatureGates, featuregates.GateDeployObservabilityController) {
		return nil, nil
	}
	labels := func() map[string]string { return hco.Labels(hc, facts.Environment, ObjectName) }
	return []client.Object{
		&corev1.ServiceAccount{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"},
			ObjectMeta: metav1.ObjectMeta{Name: ObjectName, Namespace: hc.Namespace, Labels: labels()},
		},
		&rbacv1.ClusterRoleBinding{
			TypeMeta:   rbacType("ClusterRoleBinding"),
			ObjectMeta: metav1.ObjectMeta{Name: ClusterRoleBindingName, Labels: labels()},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: ObjectName},
			Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: ObjectName, Namespace: hc.Namespace}},
		},
		BuildDeployment(hc, facts, image),
	}, nil
}

// ClusterRole is the controller's ClusterRole as
// config/components/observability ships it (a test keeps the two equal).
func ClusterRole() *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{
		TypeMeta: rbacType("ClusterRole"),
		ObjectMeta: metav1.ObjectMeta{Name: ObjectName, Labels: map[string]string{
			hco.LabelComponent: ObjectName, hco.LabelPartOf: hco.PartOfValue}},
		Rules: Rules(),
	}
}

// Rules are the controller's permissions, upstream's at 03da3cf.
func Rules() []rbacv1.PolicyRule {
	read := []string{"get", "list", "watch"}
	write := []string{"get", "list", "watch", "create", "update", "delete"}
	return []rbacv1.PolicyRule{
		{APIGroups: []string{"kubevirt.io"}, Resources: []string{"virtualmachines", "virtualmachineinstances", "virtualmachineinstancemigrations", "kubevirts"}, Verbs: read},
		{APIGroups: []string{"instancetype.kubevirt.io"}, Resources: []string{"virtualmachineinstancetypes", "virtualmachineclusterinstancetypes", "virtualmachinepreferences", "virtualmachineclusterpreferences"}, Verbs: read},
		{APIGroups: []string{""}, Resources: []string{"pods", "persistentvolumeclaims"}, Verbs: read},
		{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get"}},
		{APIGroups: []string{""}, Resources: []string{"services", "secrets"}, Verbs: write},
		{APIGroups: []string{"apps"}, Resources: []string{"controllerrevisions"}, Verbs: read},
		{APIGroups: []string{"monitoring.coreos.com"}, Resources: []string{"prometheusrules", "servicemonitors"}, Verbs: write},
		{APIGroups: []string{"authentication.k8s.io"}, Resources: []string{"tokenreviews"}, Verbs: []string{"create"}},
		{APIGroups: []string{"authorization.k8s.io"}, Resources: []string{"subjectaccessreviews"}, Verbs: []string{"create"}},
	}
}

// Args are the controller's flags: metrics and probes, the TLS profile
// (its type; a Custom one's minimum version and, below TLS 1.3, ciphers),
// and spec.observability's allow lists, as upstream builds them.
func Args(hc *hcov1.HyperConverged, clusterProfile *ocpconfigv1.TLSSecurityProfile) []string {
	profile := tlsprofile.Resolve(hc.Spec.Security.TLSSecurityProfile, clusterProfile)
	args := []string{
		"--metrics-bind-address=:8443",
		"--metrics-secure=true",
		"--health-probe-bind-address=:8081",
		"--leader-elect=false",
		"--tls-security-profile=" + string(profile.Type),
	}
	if profile.Type == ocpconfigv1.TLSProfileCustomType {
		args = append(args, "--tls-min-version="+string(profile.Custom.MinTLSVersion))
		if profile.Custom.MinTLSVersion < ocpconfigv1.VersionTLS13 && len(profile.Custom.Ciphers) > 0 {
			args = append(args, "--tls-cipher-suites="+strings.Join(profile.Custom.Ciphers, ","))
		}
	}
	if o := hc.Spec.Observability; o != nil {
		var metrics []string
		if o.Workloads != nil {
			metrics = o.Workloads.AllowedMetrics
		}
		for _, l := range []struct {
			flag   string
			values []string
		}{{"--metrics-allowlist", metrics}, {"--alerts-allowlist", o.AllowedAlerts}, {"--recording-rules-allowlist", o.AllowedRecordingRules}} {
			if len(l.values) > 0 {
				args = append(args, l.flag+"="+strings.Join(l.values, ","))
			}
		}
	}
	return args
}

// BuildDeployment returns the controller's Deployment, upstream's.
func BuildDeployment(hc *hcov1.HyperConverged, facts hco.Facts, image string) *appsv1.Deployment {
	selector := map[string]string{hco.LabelApp: hc.Name, hco.LabelComponent: ObjectName}
	probe := func(path string, delay, period int32) *corev1.Probe {
		return &corev1.Probe{
			ProbeHandler:        corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromInt32(8081)}},
			InitialDelaySeconds: delay,
			PeriodSeconds:       period,
		}
	}
	fieldEnv := func(name, path string) corev1.EnvVar {
		return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: path}}}
	}
	runtimeDefault := &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}
	return &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: appsv1.SchemeGroupVersion.String(), Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: ObjectName, Namespace: hc.Namespace, Labels: hco.Labels(hc, facts.Environment, ObjectName)},
		Spec: appsv1.DeploymentSpec{
			Replicas: new(int32(1)),
			Selector: &metav1.LabelSelector{MatchLabels: selector},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: hco.Labels(hc, facts.Environment, ObjectName)},
				Spec: corev1.PodSpec{
					ServiceAccountName: ObjectName,
					PriorityClassName:  "system-cluster-critical",
					Tolerations:        []corev1.Toleration{{Key: "CriticalAddonsOnly", Operator: corev1.TolerationOpExists}},
					SecurityContext:    &corev1.PodSecurityContext{RunAsNonRoot: new(true), SeccompProfile: runtimeDefault},
					Containers: []corev1.Container{{
						Name:  "manager",
						Image: image,
						Args:  Args(hc, facts.ClusterTLSProfile),
						Env:   []corev1.EnvVar{fieldEnv("POD_NAMESPACE", "metadata.namespace"), fieldEnv("POD_SERVICE_ACCOUNT", "spec.serviceAccountName")},
						Ports: []corev1.ContainerPort{
							{ContainerPort: 8443, Name: "metrics", Protocol: corev1.ProtocolTCP},
							{ContainerPort: 8081, Name: "health", Protocol: corev1.ProtocolTCP},
						},
						ImagePullPolicy: corev1.PullIfNotPresent,
						Resources: corev1.ResourceRequirements{
							Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("64Mi")},
							Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("128Mi")},
						},
						SecurityContext:          workload.RestrictedSecurityContext(),
						LivenessProbe:            probe("/healthz", 15, 20),
						ReadinessProbe:           probe("/readyz", 5, 10),
						TerminationMessagePath:   corev1.TerminationMessagePathDefault,
						TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
					}},
				},
			},
		},
	}
}

// Status implements hco.Operand: available once the Deployment exists, as
// upstream counts it.
func (Operand) Status(observed []client.Object) hcostatus.Component {
	for _, o := range observed {
		if d, ok := o.(*appsv1.Deployment); ok && d != nil && d.Name == ObjectName {
			return hcostatus.Found(StatusKind)
		}
	}
	return hcostatus.NotFound(StatusKind)
}

// Images implements hco.Imager: the flag observability-controller-image and the variable OBSERVABILITY_CONTROLLER_IMAGE
// (upstream's variable (deploy/operator.yaml at 03da3cf)).
func (Operand) Images() []hco.Image {
	return []hco.Image{{Key: ImageKey, Flag: "observability-controller-image", Variable: "OBSERVABILITY_CONTROLLER_IMAGE",
		Usage: "Image of the virt-observability-controller (deployed while the deployObservabilityController gate is enabled and the Prometheus operator's API is served); empty disables the observability operand"}}
}
