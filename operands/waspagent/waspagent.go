package waspagent

import (
	"maps"
	"slices"
	"strings"

	securityv1 "github.com/openshift/api/security/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hcostatus"
	"github.com/hcokit/hcokit/wireform"
)

// Name is the operand's registry name.
const Name = "waspagent"

// ImageKey is the Environment.Images key of the agent's image.
const ImageKey = "wasp-agent"

// Upstream's names.
const (
	// Component is the agent's component label and the DaemonSet's name.
	Component = "wasp-agent"
	// ServiceAccountName is the agent's ServiceAccount, which the
	// SecurityContextConstraints admit.
	ServiceAccountName = "wasp"
	// SCCName is the SecurityContextConstraints' name.
	SCCName = "wasp"
	// ClusterRoleName is the install's ClusterRole the agent is bound to,
	// and the binding's name.
	ClusterRoleName = "wasp-cluster"

	// OptOutAnnotation on the HyperConverged opts out of the agent: "true",
	// or a comma-separated list naming OptOutSwap.
	OptOutAnnotation = "platform.kubevirt.io/autopilot"
	OptOutSwap       = "swap-enable"
	optOutAll        = "true"

	// noOvercommit is the memory overcommit percentage that needs no agent.
	noOvercommit = 100
)

// Operand builds the wasp agent.
type Operand struct{}

var (
	_ hco.Operand       = Operand{}
	_ hco.OpenShiftOnly = Operand{}
	_ hco.Imager        = Operand{}
	_ hco.SchemeAdder   = Operand{}
	_ hco.ContentKeeper = Operand{}
)

// New returns the wasp-agent operand.
func New() Operand { return Operand{} }

// Name implements hco.Operand.
func (Operand) Name() string { return Name }

// OpenShiftOnly implements hco.OpenShiftOnly: upstream deploys it on
// OpenShift only.
func (Operand) OpenShiftOnly() bool { return true }

var (
	serviceAccountType     = metav1.TypeMeta{APIVersion: corev1.SchemeGroupVersion.String(), Kind: "ServiceAccount"}
	sccType                = metav1.TypeMeta{APIVersion: securityv1.GroupVersion.String(), Kind: "SecurityContextConstraints"}
	daemonSetType          = metav1.TypeMeta{APIVersion: appsv1.SchemeGroupVersion.String(), Kind: "DaemonSet"}
	clusterRoleBindingType = metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRoleBinding"}
	clusterRoleType        = metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRole"}
)

// Kinds implements hco.Operand.
func (Operand) Kinds() []client.Object {
	return []client.Object{
		&corev1.ServiceAccount{TypeMeta: serviceAccountType},
		&securityv1.SecurityContextConstraints{TypeMeta: sccType},
		&appsv1.DaemonSet{TypeMeta: daemonSetType},
		&rbacv1.ClusterRoleBinding{TypeMeta: clusterRoleBindingType},
	}
}

// Wanted is upstream's rule: memory overcommitted (above 100%) and no
// opt-out annotation.
func Wanted(hc *hcov1.HyperConverged) bool {
	val := strings.TrimSpace(hc.Annotations[OptOutAnnotation])
	if val == optOutAll {
		return false
	}
	for name := range strings.SplitSeq(val, ",") {
		if strings.TrimSpace(name) == OptOutSwap {
			return false
		}
	}
	d := hc.Spec.Virtualization.HigherWorkloadDensity
	return d != nil && d.MemoryOvercommitPercentage > noOvercommit
}

// Desired implements hco.Operand: on OpenShift, with the image, while
// Wanted, the ServiceAccount, the SecurityContextConstraints, the
// DaemonSet and the ClusterRoleBinding, in upstream's order; nothing
// otherwise.
func (Operand) Desired(hc *hcov1.HyperConverged, facts hco.Facts) ([]client.Object, error) {
	image := facts.Environment.Images[ImageKey]
	if !facts.Platform.OpenShift || image == "" || !Wanted(hc) {
		return nil, nil
	}
	env := facts.Environment
	return []client.Object{
		BuildServiceAccount(hc, env),
		BuildSCC(hc, env),
		BuildDaemonSet(hc, facts, image),
		BuildClusterRoleBinding(hc, env),
	}, nil
}

// BuildServiceAccount returns the agent's ServiceAccount.
func BuildServiceAccount(hc *hcov1.HyperConverged, env hco.Environment) *corev1.ServiceAccount {
	return &corev1.ServiceAccount{
		TypeMeta:   serviceAccountType,
		ObjectMeta: metav1.ObjectMeta{Name: ServiceAccountName, Namespace: hc.Namespace, Labels: hco.Labels(hc, env, Component)},
	}
}

// ServiceAccountUser is the user name of the agent's ServiceAccount in
// namespace.
func ServiceAccountUser(namespace string) string {
	return "system:serviceaccount:" + namespace + ":" + ServiceAccountName
}

// BuildSCC returns upstream's SecurityContextConstraints: privileged, every
// host namespace and path, any user, group, SELinux context, capability,
// sysctl and seccomp profile, for the agent's ServiceAccount alone.
func BuildSCC(hc *hcov1.HyperConverged, env hco.Environment) *securityv1.SecurityContextConstraints {
	return &securityv1.SecurityContextConstraints{
		TypeMeta:                 sccType,
		ObjectMeta:               metav1.ObjectMeta{Name: SCCName, Labels: hco.Labels(hc, env, Component)},
		AllowPrivilegedContainer: true,
		AllowHostDirVolumePlugin: true,
		AllowHostIPC:             true,
		AllowHostNetwork:         true,
		AllowHostPID:             true,
		AllowHostPorts:           true,
		ReadOnlyRootFilesystem:   false,
		RunAsUser:                securityv1.RunAsUserStrategyOptions{Type: securityv1.RunAsUserStrategyRunAsAny},
		SupplementalGroups:       securityv1.SupplementalGroupsStrategyOptions{Type: securityv1.SupplementalGroupsStrategyRunAsAny},
		SELinuxContext:           securityv1.SELinuxContextStrategyOptions{Type: securityv1.SELinuxStrategyRunAsAny},
		Users:                    []string{ServiceAccountUser(hc.Namespace)},
		Volumes:                  []securityv1.FSType{securityv1.FSTypeAll},
		AllowedCapabilities:      []corev1.Capability{"*"},
		AllowedUnsafeSysctls:     []string{"*"},
		SeccompProfiles:          []string{"*"},
	}
}

// BuildDaemonSet returns the agent's DaemonSet: one privileged pod per
// node (the infra placement's nodes when set), in the host's PID
// namespace with the host's root mounted, at system-node-critical
// priority.
func BuildDaemonSet(hc *hcov1.HyperConverged, facts hco.Facts, image string) *appsv1.DaemonSet {
	env := facts.Environment
	podLabels := hco.Labels(hc, env, Component)
	podLabels["np.kubevirt.io/allow-access-cluster-services"] = "true"
	podLabels["name"] = Component
	hostRoot := func(name string) corev1.Volume {
		return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{
			HostPath: &corev1.HostPathVolumeSource{Path: "/", Type: new(corev1.HostPathUnset)},
		}}
	}
	pod := corev1.PodSpec{
		ServiceAccountName:            ServiceAccountName,
		HostPID:                       true,
		HostUsers:                     new(true),
		TerminationGracePeriodSeconds: new(int64(5)),
		Containers: []corev1.Container{{
			Name:            Component,
			Image:           image,
			ImagePullPolicy: corev1.PullIfNotPresent,
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU:    resource.MustParse("100m"),
				corev1.ResourceMemory: resource.MustParse("50M"),
			}},
			SecurityContext:          &corev1.SecurityContext{Privileged: new(true)},
			TerminationMessagePath:   corev1.TerminationMessagePathDefault,
			TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
			VolumeMounts:             []corev1.VolumeMount{{Name: "host", MountPath: "/host"}, {Name: "rootfs", MountPath: "/rootfs"}},
			Env: []corev1.EnvVar{
				{Name: "VERBOSITY", Value: "1"},
				{Name: "NODE_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "spec.nodeName", APIVersion: "v1"}}},
			},
		}},
		Volumes:           []corev1.Volume{hostRoot("host"), hostRoot("rootfs")},
		PriorityClassName: "system-node-critical",
	}
	if p := hc.Spec.InfraPlacement(); p != nil {
		pod.NodeSelector = maps.Clone(p.NodeSelector)
		if p.Affinity != nil {
			pod.Affinity = p.Affinity.DeepCopy()
		}
		pod.Tolerations = slices.Clone(p.Tolerations)
	} else if facts.Nodes == nil || facts.Nodes.InfrastructureHighlyAvailable() {
		pod.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
			PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{
				Weight: 90,
				PodAffinityTerm: corev1.PodAffinityTerm{
					LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
						Key: hco.LabelComponent, Operator: metav1.LabelSelectorOpIn, Values: []string{Component},
					}}},
					TopologyKey: corev1.LabelHostname,
				},
			}},
		}}
	}
	return &appsv1.DaemonSet{
		TypeMeta:   daemonSetType,
		ObjectMeta: metav1.ObjectMeta{Name: Component, Namespace: hc.Namespace, Labels: hco.Labels(hc, env, Component)},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"name": Component}},
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{
				Type: appsv1.RollingUpdateDaemonSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDaemonSet{
					MaxUnavailable: new(intstr.FromInt32(1)),
					MaxSurge:       new(intstr.FromInt32(0)),
				},
			},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: podLabels}, Spec: pod},
		},
	}
}

// BuildClusterRoleBinding binds the install's ClusterRole ClusterRoleName
// to the agent's ServiceAccount.
func BuildClusterRoleBinding(hc *hcov1.HyperConverged, env hco.Environment) *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{
		TypeMeta:   clusterRoleBindingType,
		ObjectMeta: metav1.ObjectMeta{Name: ClusterRoleName, Labels: hco.Labels(hc, env, Component)},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: ClusterRoleName},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: ServiceAccountName, Namespace: hc.Namespace}},
	}
}

// ClusterRole is the agent's ClusterRole, upstream's rules (watch and list
// Pods), as the install ships it (config/rbac/operand_roles.yaml; a test
// keeps the two equal).
func ClusterRole() *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{
		TypeMeta: clusterRoleType,
		ObjectMeta: metav1.ObjectMeta{Name: ClusterRoleName, Labels: map[string]string{
			hco.LabelComponent: Component, hco.LabelPartOf: hco.PartOfValue}},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"watch", "list"}}},
	}
}

// StatusKind names the component in the HyperConverged's condition reasons.
const StatusKind = "WaspAgent"

// Status implements hco.Operand: available once the DaemonSet exists, as
// upstream counts it (its DaemonSet handler reports no condition).
func (Operand) Status(observed []client.Object) hcostatus.Component {
	for _, o := range observed {
		if d, ok := o.(*appsv1.DaemonSet); ok && d != nil && d.Name == Component {
			return hcostatus.Found(StatusKind)
		}
	}
	return hcostatus.NotFound(StatusKind)
}

// KeptFields implements hco.ContentKeeper: the pull secrets a platform
// adds to the ServiceAccount.
func (Operand) KeptFields(gvk schema.GroupVersionKind, _ string) [][]string {
	return wireform.WorkloadKeptFields(gvk)
}

// Images implements hco.Imager: upstream's variable WASP_AGENT_IMAGE.
func (Operand) Images() []hco.Image {
	return []hco.Image{{Key: ImageKey, Flag: "wasp-agent-image", Variable: "WASP_AGENT_IMAGE",
		Usage: "Image of the wasp agent (swap for memory overcommit), deployed on OpenShift while memoryOvercommitPercentage is above 100; empty disables the waspagent operand"}}
}

// AddToScheme implements hco.SchemeAdder: OpenShift's
// SecurityContextConstraints kind.
func (Operand) AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(securityv1.GroupVersion, &securityv1.SecurityContextConstraints{}, &securityv1.SecurityContextConstraintsList{})
	metav1.AddToGroupVersion(s, securityv1.GroupVersion)
	return nil
}
