package v1beta1

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	kvv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/conversion"

	hcov1 "github.com/hcokit/hcokit/api/v1"
)

// FieldsAnnotation, on a v1 HyperConverged, holds what a v1beta1 object said
// that v1 has no field for, so that a round trip v1beta1 -> v1 -> v1beta1
// gives back what was written (as Kubernetes' own API versions do). The
// conversion writes and reads it; nothing else should.
const FieldsAnnotation = "hcokit.io/v1beta1-fields"

// v1beta1Fields is the content of FieldsAnnotation.
type v1beta1Fields struct {
	// MinCPUModel is spec.obsoleteCPUs.minCPUModel (ignored; v1 dropped it).
	MinCPUModel string `json:"minCPUModel,omitempty"`
	// PCIVendorSelectors are the selectors of the pciHostDevices entries
	// written with the older name pciVendorSelector.
	PCIVendorSelectors []string `json:"pciVendorSelectors,omitempty"`
	// MediatedDevicesConfiguration is spec.mediatedDevicesConfiguration as
	// written, when it used the deprecated spelling mediatedDevicesTypes.
	MediatedDevicesConfiguration *MediatedDevicesConfiguration `json:"mediatedDevicesConfiguration,omitempty"`
	// The deprecated fields upstream's v1 dropped (all ignored).
	LocalStorageClassName    string  `json:"localStorageClassName,omitempty"`
	VddkInitImage            *string `json:"vddkInitImage,omitempty"`
	TektonPipelinesNamespace *string `json:"tektonPipelinesNamespace,omitempty"`
	TektonTasksNamespace     *string `json:"tektonTasksNamespace,omitempty"`
	// DiscontinuedGates are the values of the gates upstream's table no
	// longer has (ignored; upstream's v1 drops them too).
	DiscontinuedGates map[string]bool `json:"discontinuedGates,omitempty"`
}

// empty reports whether nothing is kept.
func (k v1beta1Fields) empty() bool {
	return k.MinCPUModel == "" && len(k.PCIVendorSelectors) == 0 && k.MediatedDevicesConfiguration == nil &&
		k.LocalStorageClassName == "" && k.VddkInitImage == nil && k.TektonPipelinesNamespace == nil && k.TektonTasksNamespace == nil &&
		len(k.DiscontinuedGates) == 0
}

var _ conversion.Convertible = &HyperConverged{}

// ConvertTo converts this v1beta1 HyperConverged to the hub, v1.
func (src *HyperConverged) ConvertTo(dstRaw conversion.Hub) error {
	dst, ok := dstRaw.(*hcov1.HyperConverged)
	if !ok {
		return fmt.Errorf("converting HyperConverged %s/%s to v1: unexpected hub type %T", src.Namespace, src.Name, dstRaw)
	}
	s := &src.Spec
	var kept v1beta1Fields

	src.ObjectMeta.DeepCopyInto(&dst.ObjectMeta)
	v1Only := v1OnlyKept(dst.Annotations)
	delete(dst.Annotations, V1OnlyFieldsAnnotation)
	dst.SetGroupVersionKind(hcov1.GroupVersion.WithKind("HyperConverged"))
	d := hcov1.HyperConvergedSpec{Observability: v1Only.Observability}

	var gates gateFields
	d.FeatureGates, gates = featureGatesToV1(s.FeatureGates, v1Only.FeatureGates)
	kept.DiscontinuedGates = gates.discontinuedOnly()

	v := &d.Virtualization
	v.LiveMigrationConfig = hcov1.LiveMigrationConfigurations(*s.LiveMigrationConfig.DeepCopy())
	if s.PermittedHostDevices != nil {
		v.PermittedHostDevices = &hcov1.PermittedHostDevices{}
		if err := recode(s.PermittedHostDevices, v.PermittedHostDevices); err != nil {
			return convertErr(src, "spec.permittedHostDevices", err)
		}
		for i, pci := range s.PermittedHostDevices.PciHostDevices {
			if pci.PCIDeviceSelector == "" && pci.PCIVendorSelector != "" {
				v.PermittedHostDevices.PciHostDevices[i].PCIDeviceSelector = pci.PCIVendorSelector
				kept.PCIVendorSelectors = append(kept.PCIVendorSelectors, pci.PCIVendorSelector)
			}
		}
	}
	if m := s.MediatedDevicesConfiguration; m != nil {
		v.MediatedDevicesConfiguration = mediatedDevicesToV1(m)
		if usesDeprecatedMediatedSpelling(m) {
			kept.MediatedDevicesConfiguration = m.DeepCopy()
		}
	}
	if e := v1Only.MDevConfigEnable; e != nil && (v.MediatedDevicesConfiguration == nil || v.MediatedDevicesConfiguration.Enabled == nil) {
		if v.MediatedDevicesConfiguration == nil {
			v.MediatedDevicesConfiguration = &hcov1.MediatedDevicesConfiguration{}
		}
		v.MediatedDevicesConfiguration.Enabled = clonePtr(e)
	}
	v.WorkloadUpdateStrategy = hcov1.HyperConvergedWorkloadUpdateStrategy(*s.WorkloadUpdateStrategy.DeepCopy())
	if s.ObsoleteCPUs != nil {
		v.ObsoleteCPUModels = slices.Clone(s.ObsoleteCPUs.CPUModels)
		kept.MinCPUModel = s.ObsoleteCPUs.MinCPUModel
	}
	if s.VirtualMachineOptions != nil || s.DefaultCPUModel != nil || s.DefaultRuntimeClass != nil {
		v.VirtualMachineOptions = &hcov1.VirtualMachineOptions{
			DefaultCPUModel:     clonePtr(s.DefaultCPUModel),
			DefaultRuntimeClass: clonePtr(s.DefaultRuntimeClass),
		}
		if o := s.VirtualMachineOptions; o != nil {
			v.VirtualMachineOptions.DisableFreePageReporting = clonePtr(o.DisableFreePageReporting)
			v.VirtualMachineOptions.DisableSerialConsoleLog = clonePtr(o.DisableSerialConsoleLog)
		}
	}
	if s.HigherWorkloadDensity != nil {
		v.HigherWorkloadDensity = (*hcov1.HigherWorkloadDensityConfiguration)(s.HigherWorkloadDensity.DeepCopy())
	}
	if r := s.ResourceRequirements; r != nil {
		v.VmiCPUAllocationRatio = clonePtr(r.VmiCPUAllocationRatio)
		v.AutoCPULimitNamespaceLabelSelector = r.AutoCPULimitNamespaceLabelSelector.DeepCopy()
	}
	v.TuningPolicy = s.TuningPolicy
	v.EvictionStrategy = clonePtr(s.EvictionStrategy)
	v.LiveUpdateConfiguration = s.LiveUpdateConfiguration.DeepCopy()
	v.KSMConfiguration = s.KSMConfiguration.DeepCopy()
	v.ChangedBlockTrackingLabelSelectors = s.ChangedBlockTrackingLabelSelectors.DeepCopy()
	v.Hypervisors = cloneDeep(s.Hypervisors)
	v.RoleAggregationStrategy = clonePtr(s.RoleAggregationStrategy)
	kept.LocalStorageClassName = s.LocalStorageClassName
	kept.VddkInitImage = clonePtr(s.VddkInitImage)
	kept.TektonPipelinesNamespace = clonePtr(s.TektonPipelinesNamespace)
	kept.TektonTasksNamespace = clonePtr(s.TektonTasksNamespace)

	storage := hcov1.StorageConfig{ScratchSpaceStorageClass: clonePtr(s.ScratchSpaceStorageClass)}
	if s.StorageImport != nil {
		storage.StorageImport = (*hcov1.StorageImportConfig)(s.StorageImport.DeepCopy())
	}
	if s.ResourceRequirements != nil {
		storage.WorkloadResourceRequirements = s.ResourceRequirements.StorageWorkloads.DeepCopy()
	}
	if s.HostpathProvisioner != nil {
		storage.HostpathProvisioner = &hcov1.HostpathProvisionerConfig{}
		if err := recode(s.HostpathProvisioner, storage.HostpathProvisioner); err != nil {
			return convertErr(src, "spec.hostpathProvisioner", err)
		}
	}
	storage.VMStateStorageClass = clonePtr(s.VMStateStorageClass)
	storage.FilesystemOverhead = s.FilesystemOverhead.DeepCopy()
	storage.PersistentReservationConfiguration = s.PersistentReservationConfiguration.DeepCopy()
	if e := v1Only.PersistentReservationEnabled; e != nil && storage.PersistentReservationConfiguration == nil {
		storage.PersistentReservationConfiguration = &hcov1.PersistentReservationConfiguration{Enabled: clonePtr(e)}
	}
	if storage != (hcov1.StorageConfig{}) {
		d.Storage = &storage
	}

	if s.KubeSecondaryDNSNameServerIP != nil || s.KubeMacPoolConfiguration != nil || s.NetworkBinding != nil {
		d.Networking = &hcov1.NetworkingConfig{
			KubeSecondaryDNSNameServerIP: clonePtr(s.KubeSecondaryDNSNameServerIP),
			KubeMacPoolConfiguration:     s.KubeMacPoolConfiguration.DeepCopy(),
			NetworkBinding:               cloneBindings(s.NetworkBinding),
		}
	}

	d.WorkloadSources = hcov1.WorkloadSourcesConfig{
		CommonTemplatesNamespace:       clonePtr(s.CommonTemplatesNamespace),
		EnableCommonBootImageImport:    clonePtr(s.EnableCommonBootImageImport),
		CommonBootImageNamespace:       clonePtr(s.CommonBootImageNamespace),
		DataImportCronTemplates:        cloneDeep(s.DataImportCronTemplates),
		InstancetypeConfig:             s.InstancetypeConfig.DeepCopy(),
		CommonInstancetypesDeployment:  s.CommonInstancetypesDeployment.DeepCopy(),
		EnableMultiArchBootImageImport: clonePtr(v1Only.MultiArchEnabled),
	}
	d.Security.TLSSecurityProfile = s.TLSSecurityProfile.DeepCopy()

	if err := recode(&s.CertConfig, &d.Security.CertConfig); err != nil {
		return convertErr(src, "spec.certConfig", err)
	}

	dep := &d.Deployment
	if src.Spec.Infra.NodePlacement != nil || src.Spec.Workloads.NodePlacement != nil {
		dep.NodePlacements = &hcov1.NodePlacements{
			Infra:    (*hcov1.NodePlacement)(s.Infra.NodePlacement.DeepCopy()),
			Workload: (*hcov1.NodePlacement)(s.Workloads.NodePlacement.DeepCopy()),
		}
	}
	dep.UninstallStrategy = hcov1.HyperConvergedUninstallStrategy(s.UninstallStrategy)
	dep.DeployVMConsoleProxy = clonePtr(s.DeployVMConsoleProxy)
	dep.LogVerbosityConfig = s.LogVerbosityConfig.DeepCopy()
	dep.DeployNetworkResourcesInjector = clonePtr(s.DeployNetworkResourcesInjector)
	if dep.DeployNetworkResourcesInjector == nil {
		dep.DeployNetworkResourcesInjector = clonePtr(v1Only.DeployNetworkResourcesInjector)
	}
	if s.ApplicationAwareConfig != nil || s.EnableApplicationAwareQuota != nil {
		dep.ApplicationAwareConfig = &hcov1.ApplicationAwareConfigurations{Enable: clonePtr(s.EnableApplicationAwareQuota)}
		if a := s.ApplicationAwareConfig; a != nil {
			dep.ApplicationAwareConfig.VmiCalcConfigName = clonePtr(a.VmiCalcConfigName)
			dep.ApplicationAwareConfig.NamespaceSelector = a.NamespaceSelector.DeepCopy()
			dep.ApplicationAwareConfig.AllowApplicationAwareClusterResourceQuota = clonePtr(a.AllowApplicationAwareClusterResourceQuota)
		}
	}
	// The deprecated gates that v1 made fields win over those fields, as
	// upstream's conversion sets them last.
	gates.applyTo(&d)
	dst.Spec = d

	if err := setKept(&dst.ObjectMeta.Annotations, kept); err != nil {
		return convertErr(src, "metadata.annotations", err)
	}
	statusToV1(&src.Status, &dst.Status)
	return nil
}

// ConvertFrom converts the hub, v1, to this v1beta1 HyperConverged.
func (dst *HyperConverged) ConvertFrom(srcRaw conversion.Hub) error {
	src, ok := srcRaw.(*hcov1.HyperConverged)
	if !ok {
		return fmt.Errorf("converting HyperConverged to v1beta1: unexpected hub type %T", srcRaw)
	}
	s := &src.Spec
	// An annotation edited into something unreadable loses only what it
	// kept; refusing it would make the object unreadable as v1beta1.
	kept, _ := getKept(src.Annotations)

	src.ObjectMeta.DeepCopyInto(&dst.ObjectMeta)
	delete(dst.Annotations, FieldsAnnotation)
	if len(dst.Annotations) == 0 {
		dst.Annotations = nil
	}
	dst.SetGroupVersionKind(GroupVersion.WithKind("HyperConverged"))
	d := HyperConvergedSpec{}

	fields := gateFieldsOfV1(s)
	maps.Copy(fields, kept.DiscontinuedGates)
	d.FeatureGates = featureGatesFromV1(s.FeatureGates, fields)

	v := &s.Virtualization
	d.LiveMigrationConfig = LiveMigrationConfigurations(*v.LiveMigrationConfig.DeepCopy())
	if v.PermittedHostDevices != nil {
		d.PermittedHostDevices = &PermittedHostDevices{}
		if err := recode(v.PermittedHostDevices, d.PermittedHostDevices); err != nil {
			return convertErr(src, "spec.virtualization.permittedHostDevices", err)
		}
		for i := range d.PermittedHostDevices.PciHostDevices {
			pci := &d.PermittedHostDevices.PciHostDevices[i]
			if slices.Contains(kept.PCIVendorSelectors, pci.PCIDeviceSelector) {
				pci.PCIVendorSelector, pci.PCIDeviceSelector = pci.PCIDeviceSelector, ""
			}
		}
	}
	if m := v.MediatedDevicesConfiguration; m != nil {
		// The spelling as written comes back only while it still says what v1 says.
		if k := kept.MediatedDevicesConfiguration; k != nil && equality.Semantic.DeepEqual(mediatedDevicesToV1(k), m) {
			d.MediatedDevicesConfiguration = k.DeepCopy()
		} else {
			d.MediatedDevicesConfiguration = &MediatedDevicesConfiguration{}
			if err := recode(m, d.MediatedDevicesConfiguration); err != nil {
				return convertErr(src, "spec.virtualization.mediatedDevicesConfiguration", err)
			}
		}
	}
	d.WorkloadUpdateStrategy = HyperConvergedWorkloadUpdateStrategy(*v.WorkloadUpdateStrategy.DeepCopy())
	if len(v.ObsoleteCPUModels) > 0 || kept.MinCPUModel != "" {
		d.ObsoleteCPUs = &HyperConvergedObsoleteCPUs{CPUModels: slices.Clone(v.ObsoleteCPUModels), MinCPUModel: kept.MinCPUModel}
	}
	if o := v.VirtualMachineOptions; o != nil {
		d.DefaultCPUModel = clonePtr(o.DefaultCPUModel)
		d.DefaultRuntimeClass = clonePtr(o.DefaultRuntimeClass)
		if o.DisableFreePageReporting != nil || o.DisableSerialConsoleLog != nil {
			d.VirtualMachineOptions = &VirtualMachineOptions{
				DisableFreePageReporting: clonePtr(o.DisableFreePageReporting),
				DisableSerialConsoleLog:  clonePtr(o.DisableSerialConsoleLog),
			}
		}
	}
	if v.HigherWorkloadDensity != nil {
		d.HigherWorkloadDensity = (*HigherWorkloadDensityConfiguration)(v.HigherWorkloadDensity.DeepCopy())
	}
	d.TuningPolicy = v.TuningPolicy
	d.EvictionStrategy = clonePtr(v.EvictionStrategy)
	d.LiveUpdateConfiguration = v.LiveUpdateConfiguration.DeepCopy()
	d.KSMConfiguration = v.KSMConfiguration.DeepCopy()
	d.ChangedBlockTrackingLabelSelectors = v.ChangedBlockTrackingLabelSelectors.DeepCopy()
	d.Hypervisors = cloneDeep(v.Hypervisors)
	d.RoleAggregationStrategy = clonePtr(v.RoleAggregationStrategy)
	d.LocalStorageClassName = kept.LocalStorageClassName
	d.VddkInitImage = clonePtr(kept.VddkInitImage)
	d.TektonPipelinesNamespace = clonePtr(kept.TektonPipelinesNamespace)
	d.TektonTasksNamespace = clonePtr(kept.TektonTasksNamespace)
	if v.VmiCPUAllocationRatio != nil || v.AutoCPULimitNamespaceLabelSelector != nil {
		d.ResourceRequirements = &OperandResourceRequirements{
			VmiCPUAllocationRatio:              clonePtr(v.VmiCPUAllocationRatio),
			AutoCPULimitNamespaceLabelSelector: v.AutoCPULimitNamespaceLabelSelector.DeepCopy(),
		}
	}

	if st := s.Storage; st != nil {
		d.ScratchSpaceStorageClass = clonePtr(st.ScratchSpaceStorageClass)
		if st.StorageImport != nil {
			d.StorageImport = (*StorageImportConfig)(st.StorageImport.DeepCopy())
		}
		if st.WorkloadResourceRequirements != nil {
			if d.ResourceRequirements == nil {
				d.ResourceRequirements = &OperandResourceRequirements{}
			}
			d.ResourceRequirements.StorageWorkloads = st.WorkloadResourceRequirements.DeepCopy()
		}
		if st.HostpathProvisioner != nil {
			d.HostpathProvisioner = &HostpathProvisionerConfig{}
			if err := recode(st.HostpathProvisioner, d.HostpathProvisioner); err != nil {
				return convertErr(src, "spec.storage.hostpathProvisioner", err)
			}
		}
		d.VMStateStorageClass = clonePtr(st.VMStateStorageClass)
		d.FilesystemOverhead = st.FilesystemOverhead.DeepCopy()
		d.PersistentReservationConfiguration = st.PersistentReservationConfiguration.DeepCopy()
	}
	if n := s.Networking; n != nil {
		d.KubeSecondaryDNSNameServerIP = clonePtr(n.KubeSecondaryDNSNameServerIP)
		d.KubeMacPoolConfiguration = n.KubeMacPoolConfiguration.DeepCopy()
		d.NetworkBinding = cloneBindings(n.NetworkBinding)
	}

	ws := &s.WorkloadSources
	d.CommonTemplatesNamespace = clonePtr(ws.CommonTemplatesNamespace)
	d.EnableCommonBootImageImport = clonePtr(ws.EnableCommonBootImageImport)
	d.CommonBootImageNamespace = clonePtr(ws.CommonBootImageNamespace)
	d.DataImportCronTemplates = cloneDeep(ws.DataImportCronTemplates)
	d.InstancetypeConfig = ws.InstancetypeConfig.DeepCopy()
	d.CommonInstancetypesDeployment = ws.CommonInstancetypesDeployment.DeepCopy()
	d.TLSSecurityProfile = s.Security.TLSSecurityProfile.DeepCopy()

	if err := recode(&s.Security.CertConfig, &d.CertConfig); err != nil {
		return convertErr(src, "spec.security.certConfig", err)
	}

	dep := &s.Deployment
	if np := dep.NodePlacements; np != nil {
		d.Infra.NodePlacement = (*NodePlacement)(np.Infra.DeepCopy())
		d.Workloads.NodePlacement = (*NodePlacement)(np.Workload.DeepCopy())
	}
	d.UninstallStrategy = HyperConvergedUninstallStrategy(dep.UninstallStrategy)
	d.DeployVMConsoleProxy = clonePtr(dep.DeployVMConsoleProxy)
	d.LogVerbosityConfig = dep.LogVerbosityConfig.DeepCopy()
	d.DeployNetworkResourcesInjector = clonePtr(dep.DeployNetworkResourcesInjector)
	if a := dep.ApplicationAwareConfig; a != nil {
		d.EnableApplicationAwareQuota = clonePtr(a.Enable)
		if a.VmiCalcConfigName != nil || a.NamespaceSelector != nil || a.AllowApplicationAwareClusterResourceQuota != nil {
			d.ApplicationAwareConfig = &ApplicationAwareConfigurations{
				VmiCalcConfigName:                         clonePtr(a.VmiCalcConfigName),
				NamespaceSelector:                         a.NamespaceSelector.DeepCopy(),
				AllowApplicationAwareClusterResourceQuota: clonePtr(a.AllowApplicationAwareClusterResourceQuota),
			}
		}
	}
	dst.Spec = d
	if err := keepV1Only(&dst.ObjectMeta.Annotations, s, d.FeatureGates); err != nil {
		return convertErr(src, "metadata.annotations", err)
	}

	statusFromV1(&src.Status, &dst.Status)
	return nil
}

// mediatedDevicesToV1 converts a mediated devices configuration; where the
// current spelling is empty the deprecated one is used, as the translator
// always did.
func mediatedDevicesToV1(m *MediatedDevicesConfiguration) *hcov1.MediatedDevicesConfiguration {
	out := &hcov1.MediatedDevicesConfiguration{Enabled: clonePtr(m.Enabled), MediatedDeviceTypes: pickTypes(m.MediatedDeviceTypes, m.MediatedDevicesTypes)}
	for _, n := range m.NodeMediatedDeviceTypes {
		out.NodeMediatedDeviceTypes = append(out.NodeMediatedDeviceTypes, hcov1.NodeMediatedDeviceTypesConfig{
			NodeSelector:        maps.Clone(n.NodeSelector),
			MediatedDeviceTypes: pickTypes(n.MediatedDeviceTypes, n.MediatedDevicesTypes),
		})
	}
	return out
}

func usesDeprecatedMediatedSpelling(m *MediatedDevicesConfiguration) bool {
	if m.MediatedDevicesTypes != nil {
		return true
	}
	return slices.ContainsFunc(m.NodeMediatedDeviceTypes, func(n NodeMediatedDeviceTypesConfig) bool { return n.MediatedDevicesTypes != nil })
}

func pickTypes(current, deprecated []string) []string {
	if len(current) > 0 {
		return slices.Clone(current)
	}
	return slices.Clone(deprecated)
}

func statusToV1(in *HyperConvergedStatus, out *hcov1.HyperConvergedStatus) {
	_ = recode(in, out) // the two status types have the same fields
}

func statusFromV1(in *hcov1.HyperConvergedStatus, out *HyperConvergedStatus) {
	_ = recode(in, out)
}

func setKept(annotations *map[string]string, kept v1beta1Fields) error {
	return setAnnotation(annotations, FieldsAnnotation, kept, kept.empty())
}

func getKept(annotations map[string]string) (v1beta1Fields, error) {
	var kept v1beta1Fields
	raw, ok := annotations[FieldsAnnotation]
	if !ok {
		return kept, nil
	}
	err := json.Unmarshal([]byte(raw), &kept)
	return kept, err
}

// recode copies in to out through JSON, for the structs whose JSON shape is
// the same in both versions.
func recode(in, out any) error {
	raw, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, out)
}

func convertErr(hc interface {
	GetNamespace() string
	GetName() string
}, field string, err error) error {
	return fmt.Errorf("converting HyperConverged %s/%s: %s: %w", hc.GetNamespace(), hc.GetName(), field, err)
}

// cloneDeep deep-copies a slice of API values.
func cloneDeep[T any, P interface {
	*T
	DeepCopyInto(*T)
}](in []T) []T {
	if in == nil {
		return nil
	}
	out := make([]T, len(in))
	for i := range in {
		P(&in[i]).DeepCopyInto(&out[i])
	}
	return out
}

func cloneBindings(in map[string]kvv1.InterfaceBindingPlugin) map[string]kvv1.InterfaceBindingPlugin {
	if in == nil {
		return nil
	}
	out := make(map[string]kvv1.InterfaceBindingPlugin, len(in))
	for k, v := range in {
		out[k] = *v.DeepCopy()
	}
	return out
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// fieldMoves is where each v1 spec field is in v1beta1: the one table of
// the field map that ConvertTo and ConvertFrom implement, read by
// FieldPathsFromV1. Paths are JSON field names from spec. Every v1 field
// except spec.featureGates (a list in v1, booleans in v1beta1) and
// spec.observability (v1 only) has a row, and no row's v1 path is a prefix of
// another's; TestFieldMovesFollowConversion holds the table to the conversion
// in both directions, and TestFieldMovesCoverEveryField holds it complete.
var fieldMoves = []struct{ V1, V1beta1 string }{
	{"spec.virtualization.tuningPolicy", "spec.tuningPolicy"},
	{"spec.virtualization.liveMigrationConfig", "spec.liveMigrationConfig"},
	{"spec.virtualization.permittedHostDevices", "spec.permittedHostDevices"},
	{"spec.virtualization.mediatedDevicesConfiguration", "spec.mediatedDevicesConfiguration"},
	{"spec.virtualization.workloadUpdateStrategy", "spec.workloadUpdateStrategy"},
	{"spec.virtualization.obsoleteCPUModels", "spec.obsoleteCPUs.cpuModels"},
	{"spec.virtualization.virtualMachineOptions.defaultCPUModel", "spec.defaultCPUModel"},
	{"spec.virtualization.virtualMachineOptions.defaultRuntimeClass", "spec.defaultRuntimeClass"},
	{"spec.virtualization.virtualMachineOptions.disableFreePageReporting", "spec.virtualMachineOptions.disableFreePageReporting"},
	{"spec.virtualization.virtualMachineOptions.disableSerialConsoleLog", "spec.virtualMachineOptions.disableSerialConsoleLog"},
	{"spec.virtualization.higherWorkloadDensity", "spec.higherWorkloadDensity"},
	{"spec.virtualization.vmiCPUAllocationRatio", "spec.resourceRequirements.vmiCPUAllocationRatio"},
	{"spec.virtualization.autoCPULimitNamespaceLabelSelector", "spec.resourceRequirements.autoCPULimitNamespaceLabelSelector"},
	{"spec.virtualization.evictionStrategy", "spec.evictionStrategy"},
	{"spec.virtualization.liveUpdateConfiguration", "spec.liveUpdateConfiguration"},
	{"spec.virtualization.ksmConfiguration", "spec.ksmConfiguration"},
	{"spec.virtualization.changedBlockTrackingLabelSelectors", "spec.changedBlockTrackingLabelSelectors"},
	{"spec.virtualization.hypervisors", "spec.hypervisors"},
	{"spec.virtualization.roleAggregationStrategy", "spec.roleAggregationStrategy"},

	{"spec.storage.scratchSpaceStorageClass", "spec.scratchSpaceStorageClass"},
	{"spec.storage.storageImport", "spec.storageImport"},
	{"spec.storage.workloadResourceRequirements", "spec.resourceRequirements.storageWorkloads"},
	{"spec.storage.hostpathProvisioner", "spec.hostpathProvisioner"},
	{"spec.storage.vmStateStorageClass", "spec.vmStateStorageClass"},
	{"spec.storage.filesystemOverhead", "spec.filesystemOverhead"},
	{"spec.storage.persistentReservationConfiguration", "spec.persistentReservationConfiguration"},

	{"spec.networking.kubeSecondaryDNSNameServerIP", "spec.kubeSecondaryDNSNameServerIP"},
	{"spec.networking.kubeMacPoolConfiguration", "spec.kubeMacPoolConfiguration"},
	{"spec.networking.networkBinding", "spec.networkBinding"},

	{"spec.workloadSources.commonTemplatesNamespace", "spec.commonTemplatesNamespace"},
	{"spec.workloadSources.enableCommonBootImageImport", "spec.enableCommonBootImageImport"},
	{"spec.workloadSources.enableMultiArchBootImageImport", "spec.featureGates." + gateMultiArch},
	{"spec.workloadSources.commonBootImageNamespace", "spec.commonBootImageNamespace"},
	{"spec.workloadSources.dataImportCronTemplates", "spec.dataImportCronTemplates"},
	{"spec.workloadSources.instancetypeConfig", "spec.instancetypeConfig"},
	{"spec.workloadSources.commonInstancetypesDeployment", "spec.CommonInstancetypesDeployment"},

	{"spec.security.certConfig", "spec.certConfig"},
	{"spec.security.tlsSecurityProfile", "spec.tlsSecurityProfile"},

	{"spec.deployment.nodePlacements.infra", "spec.infra.nodePlacement"},
	{"spec.deployment.nodePlacements.workload", "spec.workloads.nodePlacement"},
	{"spec.deployment.uninstallStrategy", "spec.uninstallStrategy"},
	{"spec.deployment.deployVmConsoleProxy", "spec.deployVmConsoleProxy"},
	{"spec.deployment.applicationAwareConfig.enable", "spec.enableApplicationAwareQuota"},
	{"spec.deployment.applicationAwareConfig.vmiCalcConfigName", "spec.applicationAwareConfig.vmiCalcConfigName"},
	{"spec.deployment.applicationAwareConfig.namespaceSelector", "spec.applicationAwareConfig.namespaceSelector"},
	{"spec.deployment.applicationAwareConfig.allowApplicationAwareClusterResourceQuota", "spec.applicationAwareConfig.allowApplicationAwareClusterResourceQuota"},
	{"spec.deployment.logVerbosityConfig", "spec.logVerbosityConfig"},
	{"spec.deployment.deployNetworkResourcesInjector", "spec.deployNetworkResourcesInjector"},
}

// v1PathsToV1beta1 rewrites every v1 path of fieldMoves. No v1 path is a
// prefix of another, so the order of the pairs does not matter.
var v1PathsToV1beta1 = func() *strings.Replacer {
	pairs := make([]string, 0, 2*len(fieldMoves))
	for _, m := range fieldMoves {
		pairs = append(pairs, m.V1, m.V1beta1)
	}
	return strings.NewReplacer(pairs...)
}()

// FieldPathsFromV1 rewrites the v1 field paths in a message (a validation
// error, a warning) to where the same fields are in v1beta1, so that an admin
// who wrote v1beta1 is told about the fields they wrote.
func FieldPathsFromV1(message string) string {
	return v1PathsToV1beta1.Replace(featureGateNameV1.ReplaceAllString(message, "spec.featureGates.$1"))
}

// featureGateNameV1 matches how a message names a v1 gate: spec.featureGates "name".
var featureGateNameV1 = regexp.MustCompile(`spec\.featureGates "([^"]*)"`)
