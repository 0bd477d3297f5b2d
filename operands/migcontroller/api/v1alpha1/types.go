package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	sdkapi "kubevirt.io/controller-lifecycle-operator-sdk/api"
)

// GroupVersion is the MigController API group and version.
var GroupVersion = schema.GroupVersion{Group: "migrations.kubevirt.io", Version: "v1alpha1"}

// AddToScheme registers the mirrored types with a scheme.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &MigController{}, &MigControllerList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}

// MigController deploys KubeVirt's migration controller.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced
type MigController struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   MigControllerSpec   `json:"spec,omitempty"`
	Status MigControllerStatus `json:"status,omitempty"`
}

// MigControllerList is a list of MigController.
//
// +kubebuilder:object:root=true
type MigControllerList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []MigController `json:"items"`
}

// MigControllerSpec is the desired migration controller.
type MigControllerSpec struct {
	// PriorityClass of the control plane.
	PriorityClass *MigControllerPriorityClass `json:"priorityClass,omitempty"`
	// ImagePullPolicy of the controller's images.
	// +kubebuilder:validation:Enum=Always;IfNotPresent;Never
	ImagePullPolicy corev1.PullPolicy `json:"imagePullPolicy,omitempty"`
	// Infra places the controller's pods.
	Infra sdkapi.NodePlacement `json:"infra,omitempty"`
	// TLSSecurityProfile of the controller's servers.
	TLSSecurityProfile *TLSSecurityProfile `json:"tlsSecurityProfile,omitempty"`
}

// MigControllerPriorityClass names a PriorityClass.
type MigControllerPriorityClass string

// MigControllerStatus is the controller-lifecycle-operator-sdk status.
type MigControllerStatus struct {
	sdkapi.Status `json:",inline"`
}

// TLSSecurityProfile is the migration operator's copy of OpenShift's TLS
// security profile.
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
