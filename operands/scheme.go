package operands

import (
	"k8s.io/apimachinery/pkg/runtime"
	kvv1 "kubevirt.io/api/core/v1"
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	sspv1beta3 "kubevirt.io/ssp-operator/api/v1beta3"

	aaqv1alpha1 "github.com/hcokit/hcokit/operands/aaq/api/v1alpha1"
	cnaov1 "github.com/hcokit/hcokit/operands/cnao/api/v1"
	frv1alpha1 "github.com/hcokit/hcokit/operands/filerestore/api/v1alpha1"
	hppv1beta1 "github.com/hcokit/hcokit/operands/hpp/api/v1beta1"
	migv1alpha1 "github.com/hcokit/hcokit/operands/migcontroller/api/v1alpha1"
)

// AddToScheme registers the types of every stock operand: KubeVirt (and the
// rest of kubevirt.io/v1), CDI, SSP, NetworkAddonsConfig,
// HostPathProvisioner, MigController, FileRestoreOperator and AAQ.
func AddToScheme(s *runtime.Scheme) error {
	for _, add := range []func(*runtime.Scheme) error{
		kvv1.AddToScheme, cdiv1beta1.AddToScheme, sspv1beta3.AddToScheme, cnaov1.AddToScheme, hppv1beta1.AddToScheme, migv1alpha1.AddToScheme, frv1alpha1.AddToScheme, aaqv1alpha1.AddToScheme,
	} {
		if err := add(s); err != nil {
			return err
		}
	}
	return nil
}
