package netresinjector

import (
	"fmt"

	ocpconfigv1 "github.com/openshift/api/config/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hcostatus"
	"github.com/hcokit/hcokit/nodefacts"
	"github.com/hcokit/hcokit/operands/workload"
	"github.com/hcokit/hcokit/tlsprofile"
	"github.com/hcokit/hcokit/wireform"
)

// Name is the operand's registry name.
const Name = "netresinjector"

// ImageKey is the Environment.Images key of the injector's image (upstream's
// NETWORK_RESOURCES_INJECTOR_IMAGE). Without it the operand wants nothing.
const ImageKey = "network-resources-injector"

// Upstream's object names (common.go at 03da3cf).
const (
	ClusterRoleName        = "virt-network-resources-injector"
	ClusterRoleBindingName = ClusterRoleName + "-role-binding"
	ServiceAccountName     = "virt-network-resources-injector-sa"
	ServiceName            = "virt-network-resources-injector-service"
	DeploymentName         = "virt-network-resources-injector"
	PDBName                = DeploymentName + "-pdb"
	// SecretName is the Secret holding the serving certificate, which the
	// Deployment mounts; the install creates it and the webhook's rotator
	// fills it (see the package doc).
	SecretName = "virt-network-resources-injector-secret"
	// WebhookConfigName is the MutatingWebhookConfiguration's name.
	WebhookConfigName = "virt-network-resources-injector-config"
	// WebhookName is the name of its one webhook.
	WebhookName = "virt-network-resources-injector-config.k8s.io"
)

// Component is the app.kubernetes.io/component label of every object, and,
// with the app label, the pods' selector (upstream's AppComponentNetResInjector).
const Component = "virt-network-resources-injector"

// StatusKind names the component in the HyperConverged's condition reasons
// ("NetworkResourcesInjectorNotAvailable").
const StatusKind = "NetworkResourcesInjector"

// Upstream's values.
const (
	tlsMountPath = "/etc/tls"
	// port is the injector's HTTPS port; the Service exposes it as 443.
	port        = 6443
	servicePort = 443
	// Node role labels of upstream's affinity (pkg/nodeinfo).
	labelControlPlane         = "node-role.kubernetes.io/control-plane"
	labelKubeVirtControlPlane = "node-role.kubevirt.io/control-plane"
	labelWorker               = "node-role.kubernetes.io/worker"
	// multusNetworksAnnotation is the annotation a pod names its networks in.
	multusNetworksAnnotation = "k8s.v1.cni.cncf.io/networks"
)

// Operand builds the network-resources-injector's objects.
type Operand struct{}

var (
	_ hco.Operand       = Operand{}
	_ hco.ContentKeeper = Operand{}
)

// New returns the network-resources-injector operand.
func New() Operand { return Operand{} }

// Name implements hco.Operand.
func (Operand) Name() string { return Name }

func typeMeta(gv fmt.Stringer, kind string) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: gv.String(), Kind: kind}
}

var (
	clusterRoleType        = typeMeta(rbacv1.SchemeGroupVersion, "ClusterRole")
	clusterRoleBindingType = typeMeta(rbacv1.SchemeGroupVersion, "ClusterRoleBinding")
	serviceAccountType     = typeMeta(corev1.SchemeGroupVersion, "ServiceAccount")
	serviceType            = typeMeta(corev1.SchemeGroupVersion, "Service")
	deploymentType         = typeMeta(appsv1.SchemeGroupVersion, "Deployment")
	pdbType                = typeMeta(policyv1.SchemeGroupVersion, "PodDisruptionBudget")
	webhookConfigType      = typeMeta(admissionregistrationv1.SchemeGroupVersion, "MutatingWebhookConfiguration")
)

// Kinds implements hco.Operand.
func (Operand) Kinds() []client.Object {
	return []client.Object{
		&rbacv1.ClusterRoleBinding{TypeMeta: clusterRoleBindingType},
		&corev1.ServiceAccount{TypeMeta: serviceAccountType},
		&corev1.Service{TypeMeta: serviceType},
		&appsv1.Deployment{TypeMeta: deploymentType},
		&policyv1.PodDisruptionBudget{TypeMeta: pdbType},
		&admissionregistrationv1.MutatingWebhookConfiguration{TypeMeta: webhookConfigType},
	}
}

// Enabled is upstream's ShouldDeployNetworkResourcesInjector:
// spec.deployment.deployNetworkResourcesInjector, true when unset.
func Enabled(hc *hcov1.HyperConverged) bool {
	return ptr.Deref(hc.Spec.Deployment.DeployNetworkResourcesInjector, true)
}

// Desired implements hco.Operand: upstream's objects in upstream's order
// (NewOperandHandler at 03da3cf) but the ClusterRole, or nothing when the
// HyperConverged turns the injector off or the environment has no image for
// ImageKey. The ClusterRole (ClusterRole) is the install's, shipped
// statically (config/rbac/operand_roles.yaml): whoever writes a ClusterRole
// must hold what it grants, and the operator then would need to read every
// ConfigMap and NetworkAttachmentDefinition of the cluster; binding it needs
// only bind on it, by name.
func (Operand) Desired(hc *hcov1.HyperConverged, facts hco.Facts) ([]client.Object, error) {
	image := facts.Images[ImageKey]
	if image == "" || !Enabled(hc) {
		return nil, nil
	}
	svc, mwc := BuildService(hc, facts.Environment), BuildWebhookConfiguration(hc, facts.Environment)
	if facts.Platform.OpenShift {
		UseServiceCA(svc, mwc)
	}
	return []client.Object{
		BuildClusterRoleBinding(hc, facts.Environment),
		BuildServiceAccount(hc, facts.Environment),
		svc,
		BuildDeployment(hc, facts, image),
		BuildPDB(hc, facts.Environment),
		mwc,
	}, nil
}

// OpenShift's service CA annotations, upstream's on OpenShift
// (controllers/handlers/netresinjector at 03da3cf).
const (
	// ServingCertAnnotation on the Service: the service CA operator writes
	// the serving certificate of <ServiceName>.<namespace>.svc into the
	// Secret it names.
	ServingCertAnnotation = "service.beta.openshift.io/serving-cert-secret-name"
	// InjectCABundleAnnotation on the webhook configuration: the service CA
	// operator writes its CA into each webhook's caBundle.
	InjectCABundleAnnotation = "service.beta.openshift.io/inject-cabundle"
)

// UseServiceCA annotates svc and mwc as upstream does on OpenShift, so
// that the platform's service CA issues the injector's serving certificate
// into SecretName and injects its CA into mwc (the operator keeps the
// caBundle as found). The OpenShift install then leaves that Secret to the
// platform (config/overlays/openshift: no --injector-cert-secret).
func UseServiceCA(svc *corev1.Service, mwc *admissionregistrationv1.MutatingWebhookConfiguration) {
	svc.Annotations = map[string]string{ServingCertAnnotation: SecretName}
	mwc.Annotations = map[string]string{InjectCABundleAnnotation: "true"}
}

// KeptFields implements hco.ContentKeeper: the caBundle the certificate
// rotator writes into the webhook configuration, and what a platform adds
// to a ServiceAccount.
func (Operand) KeptFields(gvk schema.GroupVersionKind, _ string) [][]string {
	return wireform.WorkloadKeptFields(gvk)
}

func labels(hc *hcov1.HyperConverged, env hco.Environment) map[string]string {
	return hco.Labels(hc, env, Component)
}

// selector selects the injector's pods: upstream's app and component labels.
func selector(hc *hcov1.HyperConverged) map[string]string {
	return map[string]string{hco.LabelApp: hc.Name, hco.LabelComponent: Component}
}

// ClusterRole is the ClusterRole of the injector, upstream's rules (read
// the NetworkAttachmentDefinitions and ConfigMaps), as the install ships it
// (config/rbac/operand_roles.yaml; a test keeps the two equal).
func ClusterRole() *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{
		TypeMeta: clusterRoleType,
		ObjectMeta: metav1.ObjectMeta{Name: ClusterRoleName, Labels: map[string]string{
			hco.LabelComponent: Component, hco.LabelPartOf: hco.PartOfValue}},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{"k8s.cni.cncf.io"}, Resources: []string{"network-attachment-definitions"}, Verbs: []string{"watch", "list", "get"}},
			{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"watch", "list", "get"}},
		},
	}
}

// BuildClusterRoleBinding binds the ClusterRole to the injector's ServiceAccount.
func BuildClusterRoleBinding(hc *hcov1.HyperConverged, env hco.Environment) *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{
		TypeMeta:   clusterRoleBindingType,
		ObjectMeta: metav1.ObjectMeta{Name: ClusterRoleBindingName, Labels: labels(hc, env)},
		RoleRef:    rbacv1.RoleRef{Kind: "ClusterRole", Name: ClusterRoleName, APIGroup: rbacv1.GroupName},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: ServiceAccountName, Namespace: hc.Namespace}},
	}
}

// BuildServiceAccount returns the injector's ServiceAccount.
func BuildServiceAccount(hc *hcov1.HyperConverged, env hco.Environment) *corev1.ServiceAccount {
	return &corev1.ServiceAccount{
		TypeMeta:   serviceAccountType,
		ObjectMeta: metav1.ObjectMeta{Name: ServiceAccountName, Namespace: hc.Namespace, Labels: labels(hc, env)},
	}
}

// BuildService returns the Service the webhook configuration calls: port
// 443 to the pods' 6443 (on OpenShift annotated by UseServiceCA).
func BuildService(hc *hcov1.HyperConverged, env hco.Environment) *corev1.Service {
	return &corev1.Service{
		TypeMeta:   serviceType,
		ObjectMeta: metav1.ObjectMeta{Name: ServiceName, Namespace: hc.Namespace, Labels: labels(hc, env)},
		Spec: corev1.ServiceSpec{
			Ports:    []corev1.ServicePort{{Port: servicePort, TargetPort: intstr.FromInt32(port), Protocol: corev1.ProtocolTCP}},
			Selector: selector(hc),
		},
	}
}

// Replicas is upstream's rule: two when the infrastructure is highly
// available (two workers or more), else one. Unknown node facts (an offline
// render) count as highly available, as for the other operands.
func Replicas(nodes *nodefacts.Facts) int32 {
	if nodes == nil || nodes.InfrastructureHighlyAvailable() {
		return 2
	}
	return 1
}

// BuildDeployment returns the injector's Deployment running image, as
// upstream's newDeployment: placed on the control plane by preference (not
// by the HyperConverged's placements, as upstream), its TLS arguments from
// the TLS profile (spec.security.tlsSecurityProfile, else the cluster's).
func BuildDeployment(hc *hcov1.HyperConverged, facts hco.Facts, image string) *appsv1.Deployment {
	profile := tlsprofile.Spec(tlsprofile.Resolve(hc.Spec.Security.TLSSecurityProfile, facts.ClusterTLSProfile))
	preferNode := func(key string, op corev1.NodeSelectorOperator, weight int32) corev1.PreferredSchedulingTerm {
		return corev1.PreferredSchedulingTerm{
			Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: key, Operator: op}}},
			Weight:     weight,
		}
	}
	affinity := &corev1.Affinity{
		NodeAffinity: &corev1.NodeAffinity{
			PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{
				preferNode(labelControlPlane, corev1.NodeSelectorOpExists, 100),
				preferNode(labelKubeVirtControlPlane, corev1.NodeSelectorOpExists, 100),
				preferNode(labelWorker, corev1.NodeSelectorOpDoesNotExist, 50),
			},
		},
		PodAntiAffinity: &corev1.PodAntiAffinity{
			PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{
				PodAffinityTerm: corev1.PodAffinityTerm{
					LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
						Key: hco.LabelComponent, Operator: metav1.LabelSelectorOpIn, Values: []string{Component},
					}}},
					TopologyKey: corev1.LabelHostname,
				},
				Weight: 1,
			}},
		},
	}
	return &appsv1.Deployment{
		TypeMeta:   deploymentType,
		ObjectMeta: metav1.ObjectMeta{Name: DeploymentName, Namespace: hc.Namespace, Labels: labels(hc, facts.Environment)},
		Spec: appsv1.DeploymentSpec{
			Replicas: new(Replicas(facts.Nodes)),
			Selector: &metav1.LabelSelector{MatchLabels: selector(hc)},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{
					Labels:      labels(hc, facts.Environment),
					Annotations: map[string]string{"openshift.io/required-scc": "restricted-v2"},
				},
				Spec: corev1.PodSpec{
					ServiceAccountName: ServiceAccountName,
					PriorityClassName:  "system-cluster-critical",
					Affinity:           affinity,
					NodeSelector:       map[string]string{corev1.LabelOSStable: "linux"},
					Tolerations: []corev1.Toleration{
						{Key: "CriticalAddonsOnly", Operator: corev1.TolerationOpExists},
						{Effect: corev1.TaintEffectNoSchedule, Key: labelControlPlane, Operator: corev1.TolerationOpExists},
					},
					SecurityContext: &corev1.PodSecurityContext{RunAsNonRoot: new(true)},
					Containers: []corev1.Container{{
						Name:    "webhook-server",
						Image:   image,
						Command: []string{"webhook"},
						Args:    TLSArgs(profile.MinTLSVersion, tlsprofile.IANACiphers(profile.Ciphers)),
						Env: []corev1.EnvVar{{
							Name:      "NAMESPACE",
							ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"}},
						}},
						ImagePullPolicy: corev1.PullIfNotPresent,
						Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
							corev1.ResourceCPU:    resource.MustParse("10m"),
							corev1.ResourceMemory: resource.MustParse("50Mi"),
						}},
						SecurityContext:          workload.RestrictedSecurityContext(),
						TerminationMessagePath:   corev1.TerminationMessagePathDefault,
						TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
						VolumeMounts:             []corev1.VolumeMount{{Name: "tls", MountPath: tlsMountPath, ReadOnly: true}},
					}},
					Volumes: []corev1.Volume{{
						Name:         "tls",
						VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: SecretName}},
					}},
				},
			},
		},
	}
}

// TLSArgs are upstream's injector arguments (tlsArgs at 03da3cf): the
// listener and certificate files, the minimum TLS version, and, below TLS
// 1.3, the ciphers (IANA names), as upstream compares the version names.
func TLSArgs(minVersion ocpconfigv1.TLSProtocolVersion, ianaCiphers []string) []string {
	args := []string{
		"-bind-address=0.0.0.0",
		fmt.Sprintf("-port=%d", port),
		"-tls-private-key-file=" + tlsMountPath + "/tls.key",
		"-tls-cert-file=" + tlsMountPath + "/tls.crt",
		"-insecure=true",
		"-logtostderr=true",
		"-alsologtostderr=true",
	}
	return append(args, workload.TLSFlags("-", minVersion, ianaCiphers)...)
}

// BuildPDB keeps one injector pod available.
func BuildPDB(hc *hcov1.HyperConverged, env hco.Environment) *policyv1.PodDisruptionBudget {
	return &policyv1.PodDisruptionBudget{
		TypeMeta:   pdbType,
		ObjectMeta: metav1.ObjectMeta{Name: PDBName, Namespace: hc.Namespace, Labels: labels(hc, env)},
		Spec: policyv1.PodDisruptionBudgetSpec{
			MinAvailable: new(intstr.FromInt32(1)),
			Selector:     &metav1.LabelSelector{MatchLabels: selector(hc)},
		},
	}
}

// BuildWebhookConfiguration returns the MutatingWebhookConfiguration that
// sends the creation of a virt-launcher pod naming Multus networks to the
// injector. Its caBundle is the certificate rotator's (see the package doc).
func BuildWebhookConfiguration(hc *hcov1.HyperConverged, env hco.Environment) *admissionregistrationv1.MutatingWebhookConfiguration {
	return &admissionregistrationv1.MutatingWebhookConfiguration{
		TypeMeta:   webhookConfigType,
		ObjectMeta: metav1.ObjectMeta{Name: WebhookConfigName, Labels: labels(hc, env)},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name:                    WebhookName,
			AdmissionReviewVersions: []string{"v1", "v1beta1"},
			SideEffects:             new(admissionregistrationv1.SideEffectClassNone),
			FailurePolicy:           new(admissionregistrationv1.Fail),
			TimeoutSeconds:          new(int32(10)),
			MatchPolicy:             new(admissionregistrationv1.Equivalent),
			ReinvocationPolicy:      new(admissionregistrationv1.NeverReinvocationPolicy),
			ObjectSelector:          &metav1.LabelSelector{MatchLabels: map[string]string{"kubevirt.io": "virt-launcher"}},
			ClientConfig: admissionregistrationv1.WebhookClientConfig{
				Service: &admissionregistrationv1.ServiceReference{
					Name: ServiceName, Namespace: hc.Namespace, Path: new("/mutate"), Port: new(int32(servicePort)),
				},
			},
			NamespaceSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
				Key: corev1.LabelMetadataName, Operator: metav1.LabelSelectorOpNotIn, Values: []string{"kube-system"},
			}}},
			MatchConditions: []admissionregistrationv1.MatchCondition{{
				Name:       "hasMultusAnnotation",
				Expression: `has(object.metadata.annotations) && "` + multusNetworksAnnotation + `" in object.metadata.annotations`,
			}},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule: admissionregistrationv1.Rule{
					APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"},
					Scope: new(admissionregistrationv1.AllScopes),
				},
			}},
		}},
	}
}

// Status implements hco.Operand with upstream's readiness rule
// (netResInjDeploymentHandler.Ensure at 03da3cf): the HyperConverged's
// condition VirtNetworkResourcesInjectorReady, True when the Deployment
// wants replicas and all are ready, else False with upstream's reasons and
// messages. As upstream, the injector's readiness is that condition only:
// it does not make the HyperConverged unavailable, progressing or degraded.
func (Operand) Status(observed []client.Object) hcostatus.Component {
	for _, o := range observed {
		if d, ok := o.(*appsv1.Deployment); ok && d != nil && d.Name == DeploymentName {
			return StatusFromDeployment(d)
		}
	}
	return withReadiness(metav1.ConditionFalse, "DeploymentNotFound", "Network resources injector deployment not found")
}

// Ready reports whether the injector's Deployment, as facts observe it, is
// ready (StatusFromDeployment's rule); false while it is not observed.
// KubeVirt's ExternalNetResourceInjection gate follows it, as upstream's
// follows its VirtNetworkResourcesInjectorReady condition.
func Ready(facts hco.Facts) bool {
	u, ok := facts.Observe(appsv1.SchemeGroupVersion.WithKind("Deployment"), client.ObjectKey{Namespace: facts.Namespace, Name: DeploymentName})
	if !ok {
		return false
	}
	d := &appsv1.Deployment{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, d); err != nil {
		return false
	}
	return StatusFromDeployment(d).Conditions[0].Status == metav1.ConditionTrue
}

// StatusFromDeployment is Status for the injector's Deployment.
func StatusFromDeployment(d *appsv1.Deployment) hcostatus.Component {
	want := ptr.Deref(d.Spec.Replicas, 1)
	if want > 0 && d.Status.ReadyReplicas == want {
		return withReadiness(metav1.ConditionTrue, "DeploymentReady", "All replicas are ready")
	}
	return withReadiness(metav1.ConditionFalse, "DeploymentNotReady", fmt.Sprintf("%d/%d replicas ready", d.Status.ReadyReplicas, want))
}

func withReadiness(status metav1.ConditionStatus, reason, message string) hcostatus.Component {
	s := hcostatus.Found(StatusKind)
	s.Conditions = []metav1.Condition{{Type: hcov1.ConditionNetworkResourcesInjectorReady, Status: status, Reason: reason, Message: message}}
	return s
}

// Images implements hco.Imager: the flag network-resources-injector-image and the variable NETWORK_RESOURCES_INJECTOR_IMAGE
// (upstream's variable (deploy/operator.yaml at 03da3cf)).
func (Operand) Images() []hco.Image {
	return []hco.Image{{Key: ImageKey, Flag: "network-resources-injector-image", Variable: "NETWORK_RESOURCES_INJECTOR_IMAGE",
		Usage: "Image of the network-resources-injector webhook; empty disables the netresinjector operand"}}
}
