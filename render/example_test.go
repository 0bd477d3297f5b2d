package render_test

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/operands/ssp"
	"github.com/hcokit/hcokit/render"
)

// Render a HyperConverged manifest with one operand, as
// `hco-operator render -f hc.yaml --operands ssp` does.
func Example() {
	manifest := []byte(`
apiVersion: hco.kubevirt.io/v1
kind: HyperConverged
metadata:
  name: kubevirt-hyperconverged
  namespace: kubevirt-hyperconverged
spec:
  workloadSources:
    commonTemplatesNamespace: templates
  deployment:
    nodePlacements:
      infra:
        nodeSelector:
          nodeType: infra
`)
	hc, warnings, err := render.Decode(manifest)
	if err != nil {
		fmt.Println(err)
		return
	}
	reg, err := hco.NewRegistry(ssp.New())
	if err != nil {
		fmt.Println(err)
		return
	}
	objs, err := render.Objects(reg, hc, hco.Environment{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("warnings:", len(warnings))
	if err := render.WriteYAML(os.Stdout, objs); err != nil {
		fmt.Println(err)
	}
	// Output:
	// warnings: 0
	// ---
	// apiVersion: ssp.kubevirt.io/v1beta3
	// kind: SSP
	// metadata:
	//   labels:
	//     app: kubevirt-hyperconverged
	//     app.kubernetes.io/component: schedule
	//     app.kubernetes.io/managed-by: hco-operator
	//     app.kubernetes.io/part-of: hyperconverged-cluster
	//   name: ssp-kubevirt-hyperconverged
	//   namespace: kubevirt-hyperconverged
	// spec:
	//   commonTemplates:
	//     dataImportCronTemplates:
	//     - metadata:
	//         annotations:
	//           cdi.kubevirt.io/storage.bind.immediate.requested: "true"
	//         name: centos-stream10-image-cron
	//       spec:
	//         garbageCollect: Outdated
	//         importsToKeep: 1
	//         managedDataSource: centos-stream10
	//         retentionPolicy: None
	//         schedule: 20 2/12 * * *
	//         template:
	//           spec:
	//             source:
	//               registry:
	//                 url: docker://quay.io/containerdisks/centos-stream:10
	//             storage:
	//               resources:
	//                 requests:
	//                   storage: 10Gi
	//     - metadata:
	//         annotations:
	//           cdi.kubevirt.io/storage.bind.immediate.requested: "true"
	//         name: centos-stream9-image-cron
	//       spec:
	//         garbageCollect: Outdated
	//         importsToKeep: 1
	//         managedDataSource: centos-stream9
	//         retentionPolicy: None
	//         schedule: 20 2/12 * * *
	//         template:
	//           spec:
	//             source:
	//               registry:
	//                 url: docker://quay.io/containerdisks/centos-stream:9
	//             storage:
	//               resources:
	//                 requests:
	//                   storage: 10Gi
	//     - metadata:
	//         annotations:
	//           cdi.kubevirt.io/storage.bind.immediate.requested: "true"
	//         name: fedora-image-cron
	//       spec:
	//         garbageCollect: Outdated
	//         importsToKeep: 1
	//         managedDataSource: fedora
	//         retentionPolicy: None
	//         schedule: 20 2/12 * * *
	//         template:
	//           spec:
	//             source:
	//               registry:
	//                 url: docker://quay.io/containerdisks/fedora:latest
	//             storage:
	//               resources:
	//                 requests:
	//                   storage: 5Gi
	//     namespace: templates
	//   enableMultipleArchitectures: false
	//   templateValidator:
	//     placement:
	//       nodeSelector:
	//         nodeType: infra
	//     replicas: 2
	//   tlsSecurityProfile:
	//     intermediate: {}
	//     type: Intermediate
	//   tokenGenerationService: {}
}

// Invalid input is refused with the field to fix. Objects sees the hub, so
// it names the v1 field even when the input was v1beta1.
func ExampleObjects_invalid() {
	hc, _, err := render.Decode([]byte(`
apiVersion: hco.kubevirt.io/v1
kind: HyperConverged
metadata:
  name: kubevirt-hyperconverged
spec:
  virtualization:
    liveMigrationConfig:
      bandwidthPerMigration: fast
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	reg, _ := hco.NewRegistry(ssp.New())
	_, err = render.Objects(reg, hc, hco.Environment{})
	var invalid *render.InvalidError
	fmt.Println(errors.As(err, &invalid), strings.Contains(err.Error(), "spec.virtualization.liveMigrationConfig.bandwidthPerMigration"))
	// Output: true true
}

// A v1beta1 manifest is decoded to the hub, v1: the same configuration in
// the v1 fields.
func ExampleDecode_v1beta1() {
	hc, _, err := render.Decode([]byte(`
apiVersion: hco.kubevirt.io/v1beta1
kind: HyperConverged
metadata:
  name: kubevirt-hyperconverged
spec:
  commonTemplatesNamespace: templates
  infra:
    nodePlacement:
      nodeSelector:
        nodeType: infra
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(hc.APIVersion, *hc.Spec.WorkloadSources.CommonTemplatesNamespace, hc.Spec.InfraPlacement().NodeSelector)
	// Output: hco.kubevirt.io/v1 templates map[nodeType:infra]
}
