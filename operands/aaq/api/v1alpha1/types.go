package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	sdkapi "kubevirt.io/controller-lifecycle-operator-sdk/api"
)

// GroupVersion is the AAQ API group and version.
var GroupVersion = schema.GroupVersion{Group: "aaq.kubevirt.io", Version: "v1alpha1"}

// AddToScheme registers the mirrored types with a scheme.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &AAQ{}, &AAQList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}

// AAQ deploys the application-aware quota components.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=aaq;aaqs,scope=Cluster
// +kubebuilder:subresource:status
type AAQ struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec AAQSpec `json:"spec"`
	// +optional
	Status AAQStatus `json:"status"`
}

// AAQList is a list of AAQ.
//
// +kubebuilder:object:root=true
type AAQList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata"`
	Items           []AAQ `json:"items"`
}

// AAQSpec is the desired deployment.
type AAQSpec struct {
	// +kubebuilder:validation:Enum=Always;IfNotPresent;Never
	ImagePullPolicy corev1.PullPolicy `json:"imagePullPolicy,omitempty"`
	// Infra places the AAQ control plane.
	Infra sdkapi.NodePlacement `json:"infra,omitempty"`
	// Workloads places the AAQ workload pods.
	Workloads sdkapi.NodePlacement `json:"workload,omitempty"`
	// CertConfig is the certificate rotation.
	CertConfig *AAQCertConfig `json:"certConfig,omitempty"`
	// PriorityClass of the control plane.
	PriorityClass *AAQPriorityClass `json:"priorityClass,omitempty"`
	// NamespaceSelector selects the namespaces quotas are enforced in.
	NamespaceSelector *metav1.LabelSelector `json:"namespaceSelector,omitempty"`
	// Configuration of AAQ.
	Configuration AAQConfiguration `json:"configuration,omitempty"`
	// TLSSecurityProfile of AAQ's servers.
	TLSSecurityProfile *TLSSecurityProfile `json:"tlsSecurityProfile,omitempty"`
}

// AAQPriorityClass names a PriorityClass.
type AAQPriorityClass string

// AAQCertConfig is the rotation of the CA and server certificates.
type AAQCertConfig struct {
	CA     *CertConfig `json:"ca,omitempty"`
	Server *CertConfig `json:"server,omitempty"`
}

// CertConfig is the lifetime and renewal of a certificate.
type CertConfig struct {
	Duration    *metav1.Duration `json:"duration,omitempty"`
	RenewBefore *metav1.Duration `json:"renewBefore,omitempty"`
}

// AAQConfiguration is AAQ's configuration.
type AAQConfiguration struct {
	VmiCalculatorConfiguration VmiCalculatorConfiguration `json:"vmiCalculatorConfiguration,omitempty"`
	SidecarEvaluators          []corev1.Container         `json:"sidecarEvaluators,omitempty"`
	// AllowApplicationAwareClusterResourceQuota allows the cluster-wide quota kind.
	AllowApplicationAwareClusterResourceQuota bool `json:"allowApplicationAwareClusterResourceQuota,omitempty"`
}

// VmiCalcConfigName is how VM pods are counted.
type VmiCalcConfigName string

// DedicatedVirtualResources counts VM pods under the /vm resources; upstream
// HCO's default.
const DedicatedVirtualResources VmiCalcConfigName = "DedicatedVirtualResources"

// VmiCalculatorConfiguration is how VM pods are counted.
type VmiCalculatorConfiguration struct {
	// +kubebuilder:validation:Enum=VmiPodUsage;VirtualResources;DedicatedVirtualResources;IgnoreVmiCalculator;GuestEffectiveResources
	// +kubebuilder:default=DedicatedVirtualResources
	ConfigName VmiCalcConfigName `json:"configName,omitempty"`
}

// AAQStatus is the controller-lifecycle-operator-sdk status.
type AAQStatus struct {
	sdkapi.Status `json:",inline"`
}

// TLSSecurityProfile is AAQ's copy of OpenShift's TLS security profile.
type TLSSecurityProfile struct {
	// +unionDiscriminator
	// +optional
	Type TLSProfileType `json:"type"`
	// +optional
	// +nullable
	Old *OldTLSProfile `json:"old,omitempty"`
	// +optional
	// +nullable
	Intermediate *IntermediateTLSProfile `json:"intermediate,omitempty"`
	// +optional
	// +nullable
	Modern *ModernTLSProfile `json:"modern,omitempty"`
	// +optional
	// +nullable
	Custom *CustomTLSProfile `json:"custom,omitempty"`
}

// OldTLSProfile selects Mozilla's old profile.
type OldTLSProfile struct{}

// IntermediateTLSProfile selects Mozilla's intermediate profile.
type IntermediateTLSProfile struct{}

// ModernTLSProfile selects Mozilla's modern profile.
type ModernTLSProfile struct{}

// CustomTLSProfile is a user-defined profile.
type CustomTLSProfile struct {
	TLSProfileSpec `json:",inline"`
}

// TLSProfileType is the kind of a TLS security profile.
// +kubebuilder:validation:Enum=Old;Intermediate;Modern;Custom
type TLSProfileType string

// TLSProfileSpec is the ciphers and minimum version of a profile.
type TLSProfileSpec struct {
	Ciphers       []string           `json:"ciphers"`
	MinTLSVersion TLSProtocolVersion `json:"minTLSVersion"`
}

// TLSProtocolVersion is a TLS version.
// +kubebuilder:validation:Enum=VersionTLS10;VersionTLS11;VersionTLS12;VersionTLS13
type TLSProtocolVersion string
