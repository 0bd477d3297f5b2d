package v1beta1

import (
	conditionsv1 "github.com/openshift/custom-resource-status/conditions/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion is the HostPathProvisioner API group and version.
var GroupVersion = schema.GroupVersion{Group: "hostpathprovisioner.kubevirt.io", Version: "v1beta1"}

// AddToScheme registers the mirrored types with a scheme.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &HostPathProvisioner{}, &HostPathProvisionerList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}

// HostPathProvisioner deploys the hostpath CSI provisioner.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=hostpathprovisioners,scope=Cluster
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
type HostPathProvisioner struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   HostPathProvisionerSpec   `json:"spec,omitempty"`
	Status HostPathProvisionerStatus `json:"status,omitempty"`
}

// HostPathProvisionerList is a list of HostPathProvisioner.
//
// +kubebuilder:object:root=true
type HostPathProvisionerList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []HostPathProvisioner `json:"items"`
}

// HostPathProvisionerSpec is the desired provisioner.
type HostPathProvisionerSpec struct {
	ImagePullPolicy corev1.PullPolicy `json:"imagePullPolicy,omitempty"`
	// PathConfig is the legacy single-path layout.
	PathConfig *PathConfig `json:"pathConfig,omitempty"`
	// +listType=atomic
	StoragePools []StoragePool `json:"storagePools,omitempty"`
	// Workload places the provisioner's node pods.
	Workload NodePlacement `json:"workload,omitempty"`
	// +listType=set
	FeatureGates []string `json:"featureGates,omitempty"`
}

// PathConfig is the legacy single-path layout.
type PathConfig struct {
	Path            string `json:"path,omitempty"`
	UseNamingPrefix bool   `json:"useNamingPrefix,omitempty"`
}

// StoragePool is a named node path, optionally backed by a PVC per node.
type StoragePool struct {
	Name        string                            `json:"name"`
	Path        string                            `json:"path"`
	PVCTemplate *corev1.PersistentVolumeClaimSpec `json:"pvcTemplate,omitempty"`
}

// NodePlacement is a node selector, affinity and tolerations.
type NodePlacement struct {
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`
	Affinity     *corev1.Affinity  `json:"affinity,omitempty"`
	// +listType=atomic
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`
}

// HostPathProvisionerStatus is what the provisioner's operator reports.
type HostPathProvisionerStatus struct {
	// +listType=atomic
	Conditions      []conditionsv1.Condition `json:"conditions,omitempty"`
	OperatorVersion string                   `json:"operatorVersion,omitempty"`
	TargetVersion   string                   `json:"targetVersion,omitempty"`
	ObservedVersion string                   `json:"observedVersion,omitempty"`
}
