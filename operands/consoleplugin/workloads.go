package consoleplugin

import (
	"crypto/tls"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	ocpconfigv1 "github.com/openshift/api/config/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/tlsprofile"
)

// BuildService returns the Service of component (the plugin or the
// proxy) named name on port, with OpenShift's serving certificate in the
// Secret cert.
func BuildService(hc *hcov1.HyperConverged, env hco.Environment, name, component, cert string, port int32) *corev1.Service {
	return &corev1.Service{
		TypeMeta: serviceType,
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: hc.Namespace, Labels: hco.Labels(hc, env, component),
			Annotations: map[string]string{servingCertAnnotation: cert}},
		Spec: corev1.ServiceSpec{
			Ports: []corev1.ServicePort{{
				Name: component + "-port", Port: port, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(port),
			}},
			Selector: map[string]string{hco.LabelComponent: component},
		},
	}
}

// Replicas is upstream's rule: two when the infrastructure is highly
// available, else one; unknown node facts (an offline render) count as
// highly available, as for the other operands.
func Replicas(facts hco.Facts) int32 {
	if facts.Nodes == nil || facts.Nodes.InfrastructureHighlyAvailable() {
		return 2
	}
	return 1
}

// buildDeployment is the Deployment both the plugin and the proxy run as
// (upstream's getKvUIDeployment): component's labels, also as selector;
// its ServiceAccount; the serving certificate cert mounted at certPath;
// the infra placement, else a preference to spread replicas over nodes
// when there are two.
func buildDeployment(hc *hcov1.HyperConverged, facts hco.Facts, component, image, cert, certPath string, port int32) *appsv1.Deployment {
	labels := labelsOf(hc, facts.Environment, component)
	replicas := Replicas(facts)
	pod := corev1.PodSpec{
		ServiceAccountName: component,
		SecurityContext: &corev1.PodSecurityContext{
			RunAsNonRoot:   new(true),
			SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
		},
		Containers: []corev1.Container{{
			Name:            component,
			Image:           image,
			ImagePullPolicy: corev1.PullIfNotPresent,
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU:    resource.MustParse("10m"),
				corev1.ResourceMemory: resource.MustParse("100Mi"),
			}},
			Ports: []corev1.ContainerPort{{ContainerPort: port, Protocol: corev1.ProtocolTCP}},
			SecurityContext: &corev1.SecurityContext{
				AllowPrivilegeEscalation: new(false),
				Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
				ReadOnlyRootFilesystem:   new(true),
			},
			TerminationMessagePath:   corev1.TerminationMessagePathDefault,
			TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
			VolumeMounts:             []corev1.VolumeMount{{Name: cert, MountPath: certPath, ReadOnly: true}},
		}},
		PriorityClassName: priorityClass,
		Volumes: []corev1.Volume{{Name: cert, VolumeSource: corev1.VolumeSource{
			Secret: &corev1.SecretVolumeSource{SecretName: cert, DefaultMode: new(int32(0o644))},
		}}},
	}
	spread := spreadAffinity(component, replicas > 1)
	if p := hc.Spec.InfraPlacement(); p != nil {
		pod.NodeSelector = maps.Clone(p.NodeSelector)
		pod.Affinity = spread
		if p.Affinity != nil {
			pod.Affinity = p.Affinity.DeepCopy()
		}
		pod.Tolerations = slices.Clone(p.Tolerations)
	} else {
		pod.Affinity = spread
	}
	return &appsv1.Deployment{
		TypeMeta:   deploymentType,
		ObjectMeta: metav1.ObjectMeta{Name: component, Namespace: hc.Namespace, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: new(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: maps.Clone(labels)},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: maps.Clone(labels), Annotations: map[string]string{requiredSCCAnnotation: "restricted-v2"}},
				Spec:       pod,
			},
		},
	}
}

// spreadAffinity prefers to put the replicas of component on different
// nodes, when there are several (upstream's GetPodAntiAffinity).
func spreadAffinity(component string, several bool) *corev1.Affinity {
	if !several {
		return nil
	}
	return &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
		PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{
			Weight: 90,
			PodAffinityTerm: corev1.PodAffinityTerm{
				LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
					Key: hco.LabelComponent, Operator: metav1.LabelSelectorOpIn, Values: []string{component},
				}}},
				TopologyKey: corev1.LabelHostname,
			},
		}},
	}}
}

// BuildPluginDeployment returns the plugin's nginx Deployment: its
// configuration from NginxConfigMap, and a writable root file system (the
// image's entrypoint writes there; upstream's exception).
func BuildPluginDeployment(hc *hcov1.HyperConverged, facts hco.Facts, image string) *appsv1.Deployment {
	d := buildDeployment(hc, facts, PluginComponent, image, PluginServingCert, pluginCertPath, PluginPort)
	c := &d.Spec.Template.Spec.Containers[0]
	c.SecurityContext.ReadOnlyRootFilesystem = nil
	c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: NginxConfigMap, MountPath: "/etc/nginx/nginx.conf", SubPath: "nginx.conf", ReadOnly: true})
	d.Spec.Template.Spec.Volumes = append(d.Spec.Template.Spec.Volumes, corev1.Volume{Name: NginxConfigMap, VolumeSource: corev1.VolumeSource{
		ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: NginxConfigMap}},
	}})
	return d
}

// BuildProxyDeployment returns the proxy's Deployment, serving with the
// TLS profile (spec.security.tlsSecurityProfile, else the cluster's): its
// minimum version and, below TLS 1.3, its cipher suites, as crypto/tls IDs.
func BuildProxyDeployment(hc *hcov1.HyperConverged, facts hco.Facts, image string) (*appsv1.Deployment, error) {
	d := buildDeployment(hc, facts, ProxyComponent, image, ProxyServingCert, proxyCertPath, ProxyPort)
	minVersion, ciphers, err := goTLS(tlsprofile.Spec(tlsprofile.Resolve(hc.Spec.Security.TLSSecurityProfile, facts.ClusterTLSProfile)))
	if err != nil {
		return nil, err
	}
	var args []string
	if minVersion < tls.VersionTLS13 && len(ciphers) > 0 {
		ids := make([]string, len(ciphers))
		for i, id := range ciphers {
			ids[i] = strconv.Itoa(int(id))
		}
		args = append(args, "--tls-cipher-suites="+strings.Join(ids, ","))
	}
	args = append(args, fmt.Sprintf("--tls-min-version=%d", minVersion))
	d.Spec.Template.Spec.Containers[0].Args = args
	return d, nil
}

// goTLS is the profile's minimum version and ciphers as crypto/tls IDs,
// upstream's way (library-go's OpenSSL → IANA → Go mapping): every cipher
// of the profile with an IANA name, TLS 1.3 ones too, in its order. Below
// TLS 1.3, a profile none of whose ciphers is left is an error naming the
// field: without the flag the proxy would serve Go's defaults, wider than
// what the admin asked for (tlsprofile.ForGoServer's rule).
func goTLS(s ocpconfigv1.TLSProfileSpec) (uint16, []uint16, error) {
	ids := map[string]uint16{}
	for _, list := range [][]*tls.CipherSuite{tls.CipherSuites(), tls.InsecureCipherSuites()} {
		for _, c := range list {
			ids[c.Name] = c.ID
		}
	}
	var out []uint16
	for _, name := range tlsprofile.IANACiphers(s.Ciphers) {
		if id, ok := ids[name]; ok {
			out = append(out, id)
		}
	}
	minVersion := uint16(tls.VersionTLS12)
	switch s.MinTLSVersion {
	case ocpconfigv1.VersionTLS10:
		minVersion = tls.VersionTLS10
	case ocpconfigv1.VersionTLS11:
		minVersion = tls.VersionTLS11
	case ocpconfigv1.VersionTLS13:
		minVersion = tls.VersionTLS13
	}
	if minVersion < tls.VersionTLS13 && len(out) == 0 {
		return 0, nil, fmt.Errorf("spec.security.tlsSecurityProfile: none of the ciphers %v is one the console proxy serves; list one (e.g. ECDHE-RSA-AES128-GCM-SHA256) or set minTLSVersion VersionTLS13", s.Ciphers)
	}
	return minVersion, out, nil
}

// BuildPluginNetworkPolicy admits to the plugin only the console's pods.
func BuildPluginNetworkPolicy(hc *hcov1.HyperConverged, env hco.Environment) *networkingv1.NetworkPolicy {
	return &networkingv1.NetworkPolicy{
		TypeMeta:   networkPolicyType,
		ObjectMeta: metav1.ObjectMeta{Name: PluginNetworkPolicy, Namespace: hc.Namespace, Labels: hco.Labels(hc, env, PluginComponent)},
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{hco.LabelApp: hc.Name, hco.LabelComponent: PluginComponent}},
			Ingress: []networkingv1.NetworkPolicyIngressRule{{
				Ports: []networkingv1.NetworkPolicyPort{{Port: new(intstr.FromInt32(PluginPort)), Protocol: new(corev1.ProtocolTCP)}},
				From: []networkingv1.NetworkPolicyPeer{{
					NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: "openshift-console"}},
					PodSelector:       &metav1.LabelSelector{MatchLabels: map[string]string{"app": "console", "component": "ui"}},
				}},
			}},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
		},
	}
}

// BuildProxyNetworkPolicy admits anyone to the proxy's port and lets it
// reach the cluster's DNS (OpenShift's, on OpenShift) and the API server.
func BuildProxyNetworkPolicy(hc *hcov1.HyperConverged, facts hco.Facts) *networkingv1.NetworkPolicy {
	dnsNamespace, dnsLabel, dnsValue, dnsPort := "kube-system", "k8s-app", "kube-dns", int32(53)
	if facts.Platform.OpenShift {
		dnsNamespace, dnsLabel, dnsValue, dnsPort = "openshift-dns", "dns.operator.openshift.io/daemonset-dns", "default", 5353
	}
	return &networkingv1.NetworkPolicy{
		TypeMeta:   networkPolicyType,
		ObjectMeta: metav1.ObjectMeta{Name: ProxyNetworkPolicy, Namespace: hc.Namespace, Labels: hco.Labels(hc, facts.Environment, ProxyComponent)},
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{hco.LabelApp: hc.Name, hco.LabelComponent: ProxyComponent}},
			Ingress: []networkingv1.NetworkPolicyIngressRule{{
				Ports: []networkingv1.NetworkPolicyPort{{Port: new(intstr.FromInt32(ProxyPort)), Protocol: new(corev1.ProtocolTCP)}},
			}},
			Egress: []networkingv1.NetworkPolicyEgressRule{
				{
					Ports: []networkingv1.NetworkPolicyPort{
						{Protocol: new(corev1.ProtocolTCP), Port: new(intstr.FromInt32(dnsPort))},
						{Protocol: new(corev1.ProtocolUDP), Port: new(intstr.FromInt32(dnsPort))},
					},
					To: []networkingv1.NetworkPolicyPeer{{
						NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: dnsNamespace}},
						PodSelector:       &metav1.LabelSelector{MatchLabels: map[string]string{dnsLabel: dnsValue}},
					}},
				},
				{Ports: []networkingv1.NetworkPolicyPort{{Port: new(intstr.FromInt32(6443)), Protocol: new(corev1.ProtocolTCP)}}},
			},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeEgress, networkingv1.PolicyTypeIngress},
		},
	}
}
