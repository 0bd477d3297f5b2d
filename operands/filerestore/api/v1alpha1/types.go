package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion is the FileRestoreOperator API group and version.
var GroupVersion = schema.GroupVersion{Group: "filerestore.kubevirt.io", Version: "v1alpha1"}

// AddToScheme registers the mirrored types with a scheme.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &FileRestoreOperator{}, &FileRestoreOperatorList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}

// FileRestoreOperator deploys the VM file restore components.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced
type FileRestoreOperator struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   FileRestoreOperatorSpec   `json:"spec,omitempty"`
	Status FileRestoreOperatorStatus `json:"status,omitempty"`
}

// FileRestoreOperatorList is a list of FileRestoreOperator.
//
// +kubebuilder:object:root=true
type FileRestoreOperatorList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []FileRestoreOperator `json:"items"`
}

// FileRestoreOperatorSpec is the desired deployment.
type FileRestoreOperatorSpec struct {
	// ImagePullPolicy of the operator's images.
	// +kubebuilder:validation:Enum=Always;IfNotPresent;Never
	// +optional
	ImagePullPolicy corev1.PullPolicy `json:"imagePullPolicy,omitempty"`

	// TLSSecurityProfile of the metrics server.
	// +optional
	TLSSecurityProfile *TLSSecurityProfile `json:"tlsSecurityProfile,omitempty"`
}

// FileRestoreOperatorStatus is what the operator reports.
type FileRestoreOperatorStatus struct {
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// +optional
	OperatorVersion string `json:"operatorVersion,omitempty"`
	// +optional
	TargetVersion string `json:"targetVersion,omitempty"`
	// +optional
	ObservedVersion string `json:"observedVersion,omitempty"`
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// TLSSecurityProfile is the operator's copy of OpenShift's TLS security
// profile.
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
