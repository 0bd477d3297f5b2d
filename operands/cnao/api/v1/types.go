package v1

import (
	ocpconfigv1 "github.com/openshift/api/config/v1"
	conditionsv1 "github.com/openshift/custom-resource-status/conditions/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion is the NetworkAddonsConfig API group and version.
var GroupVersion = schema.GroupVersion{Group: "networkaddonsoperator.network.kubevirt.io", Version: "v1"}

// AddToScheme registers the mirrored types with a scheme.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &NetworkAddonsConfig{}, &NetworkAddonsConfigList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}

// NetworkAddonsConfig configures the network add-ons of the cluster.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=networkaddonsconfigs,scope=Cluster
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
type NetworkAddonsConfig struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   NetworkAddonsConfigSpec   `json:"spec,omitempty"`
	Status NetworkAddonsConfigStatus `json:"status,omitempty"`
}

// NetworkAddonsConfigList is a list of NetworkAddonsConfig.
//
// +kubebuilder:object:root=true
type NetworkAddonsConfigList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []NetworkAddonsConfig `json:"items"`
}

// NetworkAddonsConfigSpec is the desired set of add-ons.
type NetworkAddonsConfigSpec struct {
	Multus                 *Multus                 `json:"multus,omitempty"`
	MultusDynamicNetworks  *MultusDynamicNetworks  `json:"multusDynamicNetworks,omitempty"`
	LinuxBridge            *LinuxBridge            `json:"linuxBridge,omitempty"`
	Ovs                    *Ovs                    `json:"ovs,omitempty"`
	KubeMacPool            *KubeMacPool            `json:"kubeMacPool,omitempty"`
	ImagePullPolicy        corev1.PullPolicy       `json:"imagePullPolicy,omitempty"`
	NMState                *NMState                `json:"nmstate,omitempty"`
	KubeSecondaryDNS       *KubeSecondaryDNS       `json:"kubeSecondaryDNS,omitempty"`
	MacvtapCni             *MacvtapCni             `json:"macvtap,omitempty"`
	SelfSignConfiguration  *SelfSignConfiguration  `json:"selfSignConfiguration,omitempty"`
	PlacementConfiguration *PlacementConfiguration `json:"placementConfiguration,omitempty"`
	KubevirtIpamController *KubevirtIpamController `json:"kubevirtIpamController,omitempty"`
	// TLSSecurityProfile is OpenShift's type, as upstream has it.
	TLSSecurityProfile *ocpconfigv1.TLSSecurityProfile `json:"tlsSecurityProfile,omitempty"`
}

// KubevirtIpamController deploys the IPAM controller of secondary networks
// (persistent IPs of VMs on OVN-Kubernetes user-defined networks).
type KubevirtIpamController struct {
	// DefaultNetworkNADNamespace is the namespace of the cluster default
	// network's NetworkAttachmentDefinition.
	DefaultNetworkNADNamespace string `json:"defaultNetworkNADNamespace,omitempty"`
}

// SelfSignConfiguration holds certificate rotation intervals as Go durations.
type SelfSignConfiguration struct {
	CARotateInterval    string `json:"caRotateInterval,omitempty"`
	CAOverlapInterval   string `json:"caOverlapInterval,omitempty"`
	CertRotateInterval  string `json:"certRotateInterval,omitempty"`
	CertOverlapInterval string `json:"certOverlapInterval,omitempty"`
}

// PlacementConfiguration places the infra and the workload pods.
type PlacementConfiguration struct {
	Infra     *Placement `json:"infra,omitempty"`
	Workloads *Placement `json:"workloads,omitempty"`
}

// Placement is a node selector, affinity and tolerations. Affinity is a value,
// not a pointer, as upstream has it.
type Placement struct {
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`
	// +optional
	Affinity    corev1.Affinity     `json:"affinity,omitempty"`
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`
}

// Multus attaches several network interfaces to pods.
type Multus struct{}

// MultusDynamicNetworks hot-plugs pod interfaces.
type MultusDynamicNetworks struct {
	HostCRISocketPath string `json:"hostCRISocketPath,omitempty"`
}

// LinuxBridge attaches VMs to Linux bridges.
type LinuxBridge struct{}

// Ovs defines networks on top of Open vSwitch bridges.
type Ovs struct{}

// NMState configures node networking declaratively.
type NMState struct{}

// KubeSecondaryDNS gives VMs' secondary interfaces DNS names.
type KubeSecondaryDNS struct {
	Domain       string `json:"domain,omitempty"`
	NameServerIP string `json:"nameServerIP,omitempty"`
}

// KubeMacPool allocates MAC addresses to pods and VMs.
type KubeMacPool struct {
	RangeStart string `json:"rangeStart,omitempty"`
	RangeEnd   string `json:"rangeEnd,omitempty"`
}

// MacvtapCni defines networks on top of host interfaces.
type MacvtapCni struct {
	DevicePluginConfig string `json:"devicePluginConfig,omitempty"`
}

// NetworkAddonsConfigStatus is what the network add-ons operator reports.
type NetworkAddonsConfigStatus struct {
	OperatorVersion string `json:"operatorVersion,omitempty"`
	ObservedVersion string `json:"observedVersion,omitempty"`
	TargetVersion   string `json:"targetVersion,omitempty"`
	// +listType=atomic
	Conditions []conditionsv1.Condition `json:"conditions,omitempty"`
	// +listType=atomic
	Containers []Container `json:"containers,omitempty"`
}

// Container is an image deployed by the network add-ons operator.
type Container struct {
	ParentKind string `json:"parentKind"`
	ParentName string `json:"parentName"`
	Name       string `json:"name"`
	Image      string `json:"image"`
}
