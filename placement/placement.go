package placement

import (
	corev1 "k8s.io/api/core/v1"
	kvv1 "kubevirt.io/api/core/v1"
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	sdkapi "kubevirt.io/controller-lifecycle-operator-sdk/api"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	cnaov1 "github.com/hcokit/hcokit/operands/cnao/api/v1"
	hppv1beta1 "github.com/hcokit/hcokit/operands/hpp/api/v1beta1"
)

// ForKubeVirt returns KubeVirt's spec.infra and spec.workloads. A nil
// placement gives a nil ComponentConfig, so KubeVirt keeps its own defaults.
func ForKubeVirt(infra, workloads *hcov1.NodePlacement) (kvInfra, kvWorkloads *kvv1.ComponentConfig) {
	return kubeVirtConfig(infra), kubeVirtConfig(workloads)
}

func kubeVirtConfig(p *hcov1.NodePlacement) *kvv1.ComponentConfig {
	if isEmpty(p) {
		return nil
	}
	return &kvv1.ComponentConfig{NodePlacement: &kvv1.NodePlacement{
		NodeSelector: copyMap(p.NodeSelector),
		Affinity:     p.Affinity.DeepCopy(),
		Tolerations:  copyTolerations(p.Tolerations),
	}}
}

// ForCDI returns CDI's spec.infra and spec.workload.
func ForCDI(infra, workloads *hcov1.NodePlacement) (cdiInfra cdiv1beta1.ComponentConfig, cdiWorkload sdkapi.NodePlacement) {
	return cdiv1beta1.ComponentConfig{NodePlacement: sdkPlacement(infra)}, sdkPlacement(workloads)
}

// ForSSP returns the SSP template validator's placement: infra only, since
// SSP runs no per-node workload pods. Nil when infra is nil.
func ForSSP(infra *hcov1.NodePlacement) *sdkapi.NodePlacement {
	if isEmpty(infra) {
		return nil
	}
	p := sdkPlacement(infra)
	return &p
}

// ForCNAO returns the NetworkAddonsConfig's spec.placementConfiguration, or
// nil when neither class is placed.
func ForCNAO(infra, workloads *hcov1.NodePlacement) *cnaov1.PlacementConfiguration {
	if isEmpty(infra) && isEmpty(workloads) {
		return nil
	}
	return &cnaov1.PlacementConfiguration{Infra: cnaoPlacement(infra), Workloads: cnaoPlacement(workloads)}
}

func cnaoPlacement(p *hcov1.NodePlacement) *cnaov1.Placement {
	if isEmpty(p) {
		return nil
	}
	out := &cnaov1.Placement{NodeSelector: copyMap(p.NodeSelector), Tolerations: copyTolerations(p.Tolerations)}
	if p.Affinity != nil {
		p.Affinity.DeepCopyInto(&out.Affinity)
	}
	return out
}

// ForHPP returns the HostPathProvisioner's spec.workload: workloads only,
// since the provisioner runs where the volumes are, next to the VMs.
func ForHPP(workloads *hcov1.NodePlacement) hppv1beta1.NodePlacement {
	if isEmpty(workloads) {
		return hppv1beta1.NodePlacement{}
	}
	return hppv1beta1.NodePlacement{
		NodeSelector: copyMap(workloads.NodeSelector),
		Affinity:     workloads.Affinity.DeepCopy(),
		Tolerations:  copyTolerations(workloads.Tolerations),
	}
}

func sdkPlacement(p *hcov1.NodePlacement) sdkapi.NodePlacement {
	if isEmpty(p) {
		return sdkapi.NodePlacement{}
	}
	return sdkapi.NodePlacement{
		NodeSelector: copyMap(p.NodeSelector),
		Affinity:     p.Affinity.DeepCopy(),
		Tolerations:  copyTolerations(p.Tolerations),
	}
}

// isEmpty reports whether p places nothing. An empty nodePlacement ({})
// means the same as none: the operand keeps its own defaults.
func isEmpty(p *hcov1.NodePlacement) bool {
	return p == nil || (len(p.NodeSelector) == 0 && p.Affinity == nil && len(p.Tolerations) == 0)
}

func copyMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func copyTolerations(t []corev1.Toleration) []corev1.Toleration {
	if t == nil {
		return nil
	}
	out := make([]corev1.Toleration, len(t))
	for i := range t {
		t[i].DeepCopyInto(&out[i])
	}
	return out
}

// ForMigController returns the MigController's spec.infra: infra only, as
// upstream (the migration controller runs no per-node workload pods).
func ForMigController(infra *hcov1.NodePlacement) sdkapi.NodePlacement {
	return sdkPlacement(infra)
}

// ForAAQ returns AAQ's spec.infra and spec.workload, as upstream copies them.
func ForAAQ(infra, workloads *hcov1.NodePlacement) (aaqInfra, aaqWorkloads sdkapi.NodePlacement) {
	return sdkPlacement(infra), sdkPlacement(workloads)
}
