package aie

import (
	ocpconfigv1 "github.com/openshift/api/config/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
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
	"github.com/hcokit/hcokit/wireform"
)

// Name is the operand's registry name.
const Name = "aie"

// ImageKey is the Environment.Images key of the webhook's image (upstream's
// AIE_WEBHOOK_IMAGE). Without it the operand wants nothing.
const ImageKey = "kubevirt-aie-webhook"

// Upstream's names (controllers/handlers/aie/common.go at 03da3cf).
const (
	// ObjectName names the ServiceAccount, Service, Deployment, ClusterRole,
	// ClusterRoleBinding and MutatingWebhookConfiguration.
	ObjectName = "kubevirt-aie-webhook"
	// SecretName is the Secret holding the serving certificate.
	SecretName = "kubevirt-aie-webhook-tls"
	// ConfigMapName is the launcher configuration an admin edits.
	ConfigMapName = "kubevirt-aie-launcher-config"
	// Component is the component label value.
	Component = "aie-webhook"
	// WebhookName is the mutating webhook's name.
	WebhookName   = "virt-launcher-mutator.kubevirt.io"
	certMountPath = "/tmp/k8s-webhook-server/serving-certs"
)

// StatusKind names the component in the HyperConverged's condition reasons.
const StatusKind = "AIEWebhook"

// Operand builds the AI-workload webhook's objects.
type Operand struct{}

var (
	_ hco.Operand       = Operand{}
	_ hco.ContentKeeper = Operand{}
)

// New returns the AIE webhook operand.
func New() Operand { return Operand{} }

// Name implements hco.Operand.
func (Operand) Name() string { return Name }

func typeMeta(gv, kind string) metav1.TypeMeta { return metav1.TypeMeta{APIVersion: gv, Kind: kind} }

// Kinds implements hco.Operand.
func (Operand) Kinds() []client.Object {
	return []client.Object{
		&corev1.ServiceAccount{TypeMeta: typeMeta("v1", "ServiceAccount")},
		&corev1.Service{TypeMeta: typeMeta("v1", "Service")},
		&appsv1.Deployment{TypeMeta: typeMeta("apps/v1", "Deployment")},
		&corev1.ConfigMap{TypeMeta: typeMeta("v1", "ConfigMap")},
		&rbacv1.ClusterRoleBinding{TypeMeta: typeMeta("rbac.authorization.k8s.io/v1", "ClusterRoleBinding")},
		&admissionregistrationv1.MutatingWebhookConfiguration{TypeMeta: typeMeta("admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration")},
	}
}

// Desired implements hco.Operand: upstream's seven objects but the
// ClusterRole, in upstream's order, while hc carries the annotation
// hco.kubevirt.io/deployAIE "true" and the environment has the image;
// nothing otherwise. The ClusterRole (ClusterRole) is the install's,
// shipped statically (config/rbac/operand_roles.yaml): the operator would
// otherwise need to read every VirtualMachineInstance and ConfigMap of the
// cluster to write it; binding it needs only bind on it, by name.
func (Operand) Desired(hc *hcov1.HyperConverged, facts hco.Facts) ([]client.Object, error) {
	image := facts.Images[ImageKey]
	if image == "" || hc.Annotations[featuregates.DeployAIEAnnotation] != "true" {
		return nil, nil
	}
	meta := func(name, namespace string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: hco.Labels(hc, facts.Environment, Component)}
	}
	return []client.Object{
		&corev1.ServiceAccount{TypeMeta: typeMeta("v1", "ServiceAccount"), ObjectMeta: meta(ObjectName, hc.Namespace)},
		&corev1.Service{TypeMeta: typeMeta("v1", "Service"), ObjectMeta: meta(ObjectName, hc.Namespace), Spec: corev1.ServiceSpec{
			Ports:    []corev1.ServicePort{{Name: "https", Port: 443, TargetPort: intstr.FromInt32(9443), Protocol: corev1.ProtocolTCP}},
			Selector: selector(hc),
		}},
		BuildDeployment(hc, facts, image),
		&corev1.ConfigMap{TypeMeta: typeMeta("v1", "ConfigMap"), ObjectMeta: meta(ConfigMapName, hc.Namespace),
			Data: map[string]string{"config.yaml": "rules:\n"}},
		&rbacv1.ClusterRoleBinding{TypeMeta: typeMeta("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"), ObjectMeta: meta(ObjectName, ""),
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: ObjectName},
			Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: ObjectName, Namespace: hc.Namespace}},
		},
		BuildMutatingWebhookConfiguration(hc, facts.Environment),
	}, nil
}

// ClusterRole is the webhook's ClusterRole, upstream's rules (read the
// VirtualMachineInstances and ConfigMaps), as the install ships it
// (config/rbac/operand_roles.yaml; a test keeps the two equal).
func ClusterRole() *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{
		TypeMeta: typeMeta("rbac.authorization.k8s.io/v1", "ClusterRole"),
		ObjectMeta: metav1.ObjectMeta{Name: ObjectName, Labels: map[string]string{
			hco.LabelComponent: Component, hco.LabelPartOf: hco.PartOfValue}},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{"kubevirt.io"}, Resources: []string{"virtualmachineinstances"}, Verbs: []string{"get", "list", "watch"}},
			{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list", "watch"}},
		},
	}
}

func selector(hc *hcov1.HyperConverged) map[string]string {
	return map[string]string{hco.LabelApp: hc.Name, hco.LabelComponent: Component}
}

// Args are the webhook's flags: upstream's, with the TLS profile's minimum
// version and, below TLS 1.3, its ciphers (IANA names).
func Args(hc *hcov1.HyperConverged, clusterProfile *ocpconfigv1.TLSSecurityProfile) []string {
	spec := tlsprofile.Spec(tlsprofile.Resolve(hc.Spec.Security.TLSSecurityProfile, clusterProfile))
	args := []string{
		"--metrics-bind-address=:8443",
		"--metrics-secure=true",
		"--webhook-cert-path=" + certMountPath,
		"--metrics-cert-path=" + certMountPath,
	}
	return append(args, workload.TLSFlags("--", spec.MinTLSVersion, tlsprofile.IANACiphers(spec.Ciphers))...)
}

// BuildDeployment returns the webhook's Deployment, upstream's.
func BuildDeployment(hc *hcov1.HyperConverged, facts hco.Facts, image string) *appsv1.Deployment {
	probe := func(path string) *corev1.Probe {
		return &corev1.Probe{
			ProbeHandler:        corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromInt32(8081), Scheme: corev1.URISchemeHTTP}},
			InitialDelaySeconds: 5,
			PeriodSeconds:       10,
		}
	}
	return &appsv1.Deployment{
		TypeMeta:   typeMeta("apps/v1", "Deployment"),
		ObjectMeta: metav1.ObjectMeta{Name: ObjectName, Namespace: hc.Namespace, Labels: hco.Labels(hc, facts.Environment, Component)},
		Spec: appsv1.DeploymentSpec{
			Replicas: new(int32(1)),
			Selector: &metav1.LabelSelector{MatchLabels: selector(hc)},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: hco.Labels(hc, facts.Environment, Component)},
				Spec: corev1.PodSpec{
					ServiceAccountName: ObjectName,
					Containers: []corev1.Container{{
						Name:            "webhook",
						Image:           image,
						ImagePullPolicy: corev1.PullIfNotPresent,
						Args:            Args(hc, facts.ClusterTLSProfile),
						Ports: []corev1.ContainerPort{
							{Name: "https", ContainerPort: 9443, Protocol: corev1.ProtocolTCP},
							{Name: "metrics", ContainerPort: 8443, Protocol: corev1.ProtocolTCP},
							{Name: "health", ContainerPort: 8081, Protocol: corev1.ProtocolTCP},
						},
						Env: []corev1.EnvVar{{Name: "NAMESPACE", ValueFrom: &corev1.EnvVarSource{
							FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace", APIVersion: "v1"}}}},
						LivenessProbe:  probe("/healthz"),
						ReadinessProbe: probe("/readyz"),
						Resources: corev1.ResourceRequirements{
							Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("64Mi")},
							Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("200m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
						},
						VolumeMounts:    []corev1.VolumeMount{{Name: "tls-cert", MountPath: certMountPath, ReadOnly: true}},
						SecurityContext: workload.RestrictedSecurityContext(),
					}},
					Volumes: []corev1.Volume{{Name: "tls-cert", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: SecretName}}}},
				},
			},
		},
	}
}

// BuildMutatingWebhookConfiguration returns upstream's webhook
// configuration: virt-launcher pods, on create, through the Service. Its
// caBundle is not the operator's (see the package doc).
func BuildMutatingWebhookConfiguration(hc *hcov1.HyperConverged, env hco.Environment) *admissionregistrationv1.MutatingWebhookConfiguration {
	fail := admissionregistrationv1.Fail
	none := admissionregistrationv1.SideEffectClassNone
	scope := admissionregistrationv1.NamespacedScope
	return &admissionregistrationv1.MutatingWebhookConfiguration{
		TypeMeta:   typeMeta("admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration"),
		ObjectMeta: metav1.ObjectMeta{Name: ObjectName, Labels: hco.Labels(hc, env, Component)},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name:                    WebhookName,
			AdmissionReviewVersions: []string{"v1"},
			SideEffects:             &none,
			FailurePolicy:           &fail,
			ClientConfig: admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{
				Name: ObjectName, Namespace: hc.Namespace, Path: new("/mutate-pods"), Port: new(int32(443)),
			}},
			ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"kubevirt.io": "virt-launcher"}},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}, Scope: &scope},
			}},
		}},
	}
}

// KeptFields implements hco.ContentKeeper: the launcher ConfigMap's data
// (an admin's edits kept, a missing key seeded), the caBundle the
// certificate rotator injects, and the pull secrets a platform adds to the
// ServiceAccount.
func (Operand) KeptFields(gvk schema.GroupVersionKind, _ string) [][]string {
	if gvk.GroupKind() == (schema.GroupKind{Kind: "ConfigMap"}) {
		return [][]string{{"data"}}
	}
	return wireform.WorkloadKeptFields(gvk)
}

// Status implements hco.Operand: available once the Deployment exists, as
// upstream counts it (its generic Deployment handler reports no condition).
func (Operand) Status(observed []client.Object) hcostatus.Component {
	for _, o := range observed {
		if d, ok := o.(*appsv1.Deployment); ok && d != nil && d.Name == ObjectName {
			return hcostatus.Found(StatusKind)
		}
	}
	return hcostatus.NotFound(StatusKind)
}

// Images implements hco.Imager: the flag aie-webhook-image and the variable AIE_WEBHOOK_IMAGE
// (upstream's variable (deploy/operator.yaml at 03da3cf)).
func (Operand) Images() []hco.Image {
	return []hco.Image{{Key: ImageKey, Flag: "aie-webhook-image", Variable: "AIE_WEBHOOK_IMAGE",
		Usage: "Image of the AI-workload (AIE) webhook, deployed while the HyperConverged carries hco.kubevirt.io/deployAIE: \"true\"; empty disables the aie operand"}}
}
