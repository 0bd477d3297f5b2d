// Package upstreamapis pins the Go API packages of the operand operators
// whose types hcokit mirrors instead of importing:
//
//   - github.com/kubevirt/cluster-network-addons-operator v0.102.0
//     (NetworkAddonsConfig, networkaddonsoperator.network.kubevirt.io v1 and
//     the deprecated v1alpha1)
//   - kubevirt.io/hostpath-provisioner-operator v0.18.0
//     (HostPathProvisioner, hostpathprovisioner.kubevirt.io v1beta1)
//   - kubevirt.io/kubevirt-migration-operator v0.2.0 (MigController,
//     migrations.kubevirt.io v1alpha1), the version upstream HCO pins at
//     03da3cf. The proxy serves it but the checksum database has no entry
//     for it, so the root module cannot require it; it was added here once
//     with GONOSUMDB=kubevirt.io/kubevirt-migration-operator GOFLAGS=-mod=mod,
//     and go.sum now holds its hash.
//   - kubevirt.io/application-aware-quota v1.8.0 (AAQ, aaq.kubevirt.io
//     v1alpha1, from its staging API package), upstream HCO's pin. It
//     requires k8s.io/client-go v12.0.0+incompatible and k8s.io/kubernetes,
//     so the root module mirrors it instead (operands/aaq/api/v1alpha1).
//   - OpenShift's ImageStream (image.openshift.io v1, github.com/openshift/api
//     at upstream HCO's pin, which the root module requires too): mirrored,
//     its spec only, in operands/imagestream/api/v1 to keep that package's
//     generated code out of the operator's binary.
//
// These are the newest exact versions the Go module proxy served when they
// were pinned: it refused CNAO v0.103.0 (what upstream HCO uses) to v0.105.0,
// and every HPP tag tried from v0.19.0 to v0.26.0.
//
// hack/generate.sh runs controller-gen inside this module to render the real
// NetworkAddonsConfig, HostPathProvisioner, MigController and AAQ CRDs into
// config/crd/operands, and this package's tests prove that every field of
// the mirrors in operands/{cnao,hpp,migcontroller,aaq,imagestream}/api exists
// upstream with the same JSON name and shape. The FileRestoreOperator, whose module
// no proxy serves, is checked the other way: the CRD generated from its
// mirror must have the schema of the CRD the operator ships (testdata).
//
// It is a tool module and the only place these upstream modules are
// required: nothing in github.com/hcokit/hcokit imports it. Its go.mod
// carries the replace directives the upstream modules need
// (k8s.io/client-go v12.0.0+incompatible, an unversioned
// github.com/openshift/api, a kube-openapi tag the proxy does not serve);
// they must never move to the root go.mod. Because the HostPathProvisioner
// package implements controller-runtime's webhook.Validator (removed in
// v0.20), controller-runtime is held at v0.19.7, and k8s.io/api,
// apimachinery and client-go at v0.34.1 (CNAO v0.102.0's own pin;
// controller-runtime v0.19 does not compile against client-go v0.37).
//
// The tests import the mirrors through "replace github.com/hcokit/hcokit =>
// ../..", so this module's go.sum also covers the root module's
// dependencies: after changing the root go.mod, run go mod tidy here too.
//
// The package holds no code: it only imports the upstream API packages so
// that go mod tidy keeps them and controller-gen, run from this directory,
// can load them by import path.
package upstreamapis

import (
	_ "github.com/kubevirt/cluster-network-addons-operator/pkg/apis/networkaddonsoperator/v1"
	_ "github.com/kubevirt/cluster-network-addons-operator/pkg/apis/networkaddonsoperator/v1alpha1"
	_ "kubevirt.io/application-aware-quota/staging/src/kubevirt.io/application-aware-quota-api/pkg/apis/core/v1alpha1"
	_ "kubevirt.io/hostpath-provisioner-operator/pkg/apis/hostpathprovisioner/v1beta1"
	_ "kubevirt.io/kubevirt-migration-operator/api/v1alpha1"
)
