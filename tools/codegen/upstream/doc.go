// Package upstream only imports the upstream operand API packages, so that
// go mod tidy keeps them in this module and controller-gen, run from this
// directory, can load them by import path. It holds no code.
package upstream

import (
	_ "kubevirt.io/api/core/v1"
	_ "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	_ "kubevirt.io/ssp-operator/api/v1beta3"
)
