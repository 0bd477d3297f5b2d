package kubevirt

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kvv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/featuregates"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hostdevices"
	"github.com/hcokit/hcokit/migration"
	"github.com/hcokit/hcokit/placement"
)

// Name is the operand's registry name.
const Name = "kubevirt"

// CRName is the name of the KubeVirt CR the operand owns.
const CRName = "kubevirt-kubevirt-hyperconverged"

// SeccompProfile is the localhost seccomp profile KubeVirt installs and VMI
// pods use.
const SeccompProfile = "kubevirt/kubevirt.json"

// obsoleteCPUModels are CPU models that VMs are kept off, whatever the
// HyperConverged adds to them.
var obsoleteCPUModels = []string{
	"486", "486-v1", "pentium", "pentium-v1", "pentium2", "pentium2-v1", "pentium3", "pentium3-v1",
	"pentiumpro", "pentiumpro-v1", "coreduo", "coreduo-v1", "n270", "n270-v1", "core2duo", "core2duo-v1",
	"Conroe", "Conroe-v1", "athlon", "athlon-v1", "phenom", "phenom-v1", "qemu64", "qemu64-v1",
	"qemu32", "qemu32-v1", "kvm64", "kvm64-v1", "kvm32", "kvm32-v1",
	"Opteron_G1", "Opteron_G1-v1", "Opteron_G2", "Opteron_G2-v1",
}

// diskVerificationMemoryLimit caps the memory of containerDisk verification.
var diskVerificationMemoryLimit = resource.MustParse("2G")

// Operand builds the KubeVirt CR.
type Operand struct{}

var (
	_ hco.Operand         = Operand{}
	_ hco.JSONPatcher     = Operand{}
	_ hco.DeletionOrderer = Operand{}
)

// New returns the KubeVirt operand.
func New() Operand { return Operand{} }

// Name implements hco.Operand.
func (Operand) Name() string { return Name }

// JSONPatchAnnotation implements hco.JSONPatcher.
func (Operand) JSONPatchAnnotation() string { return hcov1.KubeVirtJSONPatchAnnotation }

// Kinds implements hco.Operand.
func (Operand) Kinds() []client.Object {
	return []client.Object{&kvv1.KubeVirt{TypeMeta: typeMeta()}}
}

func typeMeta() metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: kvv1.GroupVersion.String(), Kind: "KubeVirt"}
}

// Desired implements hco.Operand.
func (Operand) Desired(hc *hcov1.HyperConverged, env hco.Environment) ([]client.Object, error) {
	kv, err := Build(hc, env)
	if err != nil {
		return nil, err
	}
	return []client.Object{kv}, nil
}

// Build returns the KubeVirt CR for hc. The jsonpatch annotation is applied by
// the library (hco.DesiredObjects), not here.
func Build(hc *hcov1.HyperConverged, env hco.Environment) (*kvv1.KubeVirt, error) {
	spec := &hc.Spec
	config, err := configuration(spec, env)
	if err != nil {
		return nil, err
	}
	infra, workloads := placement.ForKubeVirt(spec.InfraPlacement(), spec.WorkloadPlacement())

	kv := &kvv1.KubeVirt{
		TypeMeta: typeMeta(),
		ObjectMeta: metav1.ObjectMeta{
			Name:      CRName,
			Namespace: hc.Namespace,
			Labels:    hco.Labels(hc, env, hco.ComponentCompute),
		},
		Spec: kvv1.KubeVirtSpec{
			UninstallStrategy:           uninstallStrategy(spec.Deployment.UninstallStrategy),
			Infra:                       infra,
			Workloads:                   workloads,
			Configuration:               *config,
			CertificateRotationStrategy: certRotation(spec.Security.CertConfig),
			WorkloadUpdateStrategy:      workloadUpdateStrategy(spec.Virtualization.WorkloadUpdateStrategy),
			ProductName:                 hco.PartOfValue,
			ProductVersion:              env.Version,
			ProductComponent:            hco.ComponentCompute,
		},
	}
	return kv, nil
}

func configuration(spec *hcov1.HyperConvergedSpec, env hco.Environment) (*kvv1.KubeVirtConfiguration, error) {
	virt := &spec.Virtualization
	migrations, err := migration.ForKubeVirt(virt.LiveMigrationConfig)
	if err != nil {
		return nil, err
	}
	devices, err := hostdevices.ForKubeVirt(virt.PermittedHostDevices)
	if err != nil {
		return nil, err
	}
	dev := &kvv1.DeveloperConfiguration{
		FeatureGates:     featuregates.ForKubeVirt(spec.FeatureGates, featuregates.Options{KVMEmulation: env.KVMEmulation}),
		DiskVerification: &kvv1.DiskVerification{MemoryLimit: ptr(diskVerificationMemoryLimit.DeepCopy())},
	}
	c := &kvv1.KubeVirtConfiguration{
		DeveloperConfiguration:       dev,
		NetworkConfiguration:         &kvv1.NetworkConfiguration{NetworkInterface: string(kvv1.MasqueradeInterface)},
		MigrationConfiguration:       migrations,
		PermittedHostDevices:         devices,
		MediatedDevicesConfiguration: hostdevices.MediatedDevicesForKubeVirt(virt.MediatedDevicesConfiguration),
		ObsoleteCPUModels:            obsoleteCPUs(virt.ObsoleteCPUModels),
		SeccompConfiguration: &kvv1.SeccompConfiguration{
			VirtualMachineInstanceProfile: &kvv1.VirtualMachineInstanceProfile{
				CustomProfile: &kvv1.CustomProfile{LocalhostProfile: ptr(SeccompProfile)},
			},
		},
		VMRolloutStrategy: ptr(kvv1.VMRolloutStrategyLiveUpdate),
	}
	if spec.FeatureGates.IsEnabled(featuregates.GateDisableMDevConfiguration) {
		if c.MediatedDevicesConfiguration == nil {
			c.MediatedDevicesConfiguration = &kvv1.MediatedDevicesConfiguration{}
		}
		c.MediatedDevicesConfiguration.Enabled = ptr(false)
	}
	if o := virt.VirtualMachineOptions; o != nil {
		if o.DefaultCPUModel != nil {
			c.CPUModel = *o.DefaultCPUModel
		}
		if o.DefaultRuntimeClass != nil {
			c.DefaultRuntimeClass = *o.DefaultRuntimeClass
		}
	}
	if r := virt.VmiCPUAllocationRatio; r != nil {
		if *r < 1 {
			return nil, fmt.Errorf("spec.virtualization.vmiCPUAllocationRatio: %d is not allowed; use 1 or more (default 10)", *r)
		}
		dev.CPUAllocationRatio = *r
	}
	c.AutoCPULimitNamespaceLabelSelector = virt.AutoCPULimitNamespaceLabelSelector.DeepCopy()
	return c, nil
}

func obsoleteCPUs(extra []string) map[string]bool {
	m := make(map[string]bool, len(obsoleteCPUModels)+len(extra))
	for _, c := range obsoleteCPUModels {
		m[c] = true
	}
	for _, c := range extra {
		m[c] = true
	}
	return m
}

func uninstallStrategy(s hcov1.HyperConvergedUninstallStrategy) kvv1.KubeVirtUninstallStrategy {
	if s == hcov1.UninstallStrategyRemoveWorkloads {
		return kvv1.KubeVirtUninstallStrategyRemoveWorkloads
	}
	return kvv1.KubeVirtUninstallStrategyBlockUninstallIfWorkloadsExist
}

func certRotation(c hcov1.HyperConvergedCertConfig) kvv1.KubeVirtCertificateRotateStrategy {
	return kvv1.KubeVirtCertificateRotateStrategy{SelfSigned: &kvv1.KubeVirtSelfSignConfiguration{
		CA:     &kvv1.CertConfig{Duration: c.CA.Duration.DeepCopy(), RenewBefore: c.CA.RenewBefore.DeepCopy()},
		Server: &kvv1.CertConfig{Duration: c.Server.Duration.DeepCopy(), RenewBefore: c.Server.RenewBefore.DeepCopy()},
	}}
}

func workloadUpdateStrategy(w hcov1.HyperConvergedWorkloadUpdateStrategy) kvv1.KubeVirtWorkloadUpdateStrategy {
	out := kvv1.KubeVirtWorkloadUpdateStrategy{
		BatchEvictionSize:     copyPtr(w.BatchEvictionSize),
		BatchEvictionInterval: w.BatchEvictionInterval.DeepCopy(),
	}
	for _, m := range w.WorkloadUpdateMethods {
		out.WorkloadUpdateMethods = append(out.WorkloadUpdateMethods, kvv1.WorkloadUpdateMethod(m))
	}
	return out
}

// Status implements hco.Operand.
func (Operand) Status(observed []client.Object) hco.ComponentStatus {
	if len(observed) == 0 {
		return hco.StatusNotFound("KubeVirt")
	}
	kv, ok := observed[0].(*kvv1.KubeVirt)
	if !ok || kv == nil {
		return hco.StatusNotFound("KubeVirt")
	}
	conds := make([]hco.OperandCondition, 0, len(kv.Status.Conditions))
	for _, c := range kv.Status.Conditions {
		conds = append(conds, hco.OperandCondition{Type: string(c.Type), Status: string(c.Status), Reason: c.Reason, Message: c.Message})
	}
	return hco.StatusFromConditions("KubeVirt", conds, kv.Status.ObservedKubeVirtVersion)
}

func ptr[T any](v T) *T { return &v }

func copyPtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// DeletionOrder implements hco.DeletionOrderer: KubeVirt goes after the
// other operands and before CDI.
func (Operand) DeletionOrder() int { return 10 }
