package validation_test

import (
	"encoding/json"
	"testing"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/validation"
)

func FuzzValidate(f *testing.F) {
	for _, seed := range []string{
		`{}`,
		`{"metadata":{"name":"kubevirt-hyperconverged","annotations":{"kubevirt.kubevirt.io/jsonpatch":"[{\"op\":\"add\",\"path\":\"/spec/configuration/cpuRequest\",\"value\":\"1\"}]"}}}`,
		`{"metadata":{"annotations":{"ssp.kubevirt.io/jsonpatch":"[{\"op\":\"move\",\"from\":\"/spec\",\"path\":\"/spec/x\"}]","networkaddonsconfigs.kubevirt.io/jsonpatch":"[{\"op\":\"remove\",\"path\":\"/spec\"}]"}}}`,
		// v1
		`{"spec":{"virtualization":{"liveMigrationConfig":{"bandwidthPerMigration":"-1e9"}},"security":{"certConfig":{"ca":{"duration":"1s","renewBefore":"-5h"},"server":{"duration":"0s"}}}}}`,
		`{"spec":{"deployment":{"nodePlacements":{"workload":{"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"a","operator":"Gt","values":["99999999999999999999"]}],"matchFields":[{"key":"x","operator":"Lt"}]}]}},"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":{"matchExpressions":[{"key":"k","operator":"In"}]}}]}},"tolerations":[{"operator":"Bogus","effect":"X"}]}}}}}`,
		`{"spec":{"virtualization":{"permittedHostDevices":{"pciHostDevices":[{},{"pciDeviceSelector":"zz:yy"}]}},"observability":{"allowedAlerts":["none"]},"featureGates":[{"name":"nonRoot"},{"name":"x","state":"Disabled"},{"name":"y","state":"Enabled"},{"name":""}],"deployment":{"uninstallStrategy":"RemoveWorkloads"}}}`,
		`{"spec":{"storage":{"hostpathProvisioner":{"storagePools":[{"name":"a","path":"/x"}]}},"workloadSources":{"commonTemplatesNamespace":""}}}`,
		// v1beta1, converted
		`{"spec":{"liveMigrationConfig":{"bandwidthPerMigration":"-1e9"},"certConfig":{"ca":{"duration":"1s","renewBefore":"-5h"},"server":{"duration":"0s"}}}}`,
		`{"spec":{"permittedHostDevices":{"pciHostDevices":[{},{"pciDeviceSelector":"zz:yy","pciVendorSelector":"1:2"},{"pciVendorSelector":"1:2"}]},"featureGates":{"nonRoot":true,"x":null},"uninstallStrategy":"RemoveWorkloads"}}`,
		`{"spec":{"hostpathProvisioner":{"storagePools":[{"name":"a","path":"/x"}]},"commonTemplatesNamespace":"","obsoleteCPUs":{"minCPUModel":"Haswell"}}}`,
	} {
		f.Add([]byte(seed))
	}
	opts := stockOptions(f)
	f.Fuzz(func(t *testing.T, raw []byte) {
		hc := &hcov1.HyperConverged{}
		if err := json.Unmarshal(raw, hc); err == nil {
			validateAll(t, hc, opts)
		}
		// The same bytes read as v1beta1 and converted, as the API server would.
		old := &v1beta1.HyperConverged{}
		if err := json.Unmarshal(raw, old); err != nil {
			return
		}
		hub := &hcov1.HyperConverged{}
		if err := old.ConvertTo(hub); err != nil {
			return
		}
		validateAll(t, hub, opts)
	})
}

// validateAll runs every check on hc, which none may change.
func validateAll(t *testing.T, hc *hcov1.HyperConverged, opts validation.Options) {
	before, _ := json.Marshal(hc)
	_ = validation.Warnings(hc)
	_ = validation.FeatureGateWarnings(hc.Spec.FeatureGates)
	errs := validation.Spec(hc, opts)
	_ = validation.Message(errs)
	_ = v1beta1.FieldPathsFromV1(validation.Message(errs))
	_ = validation.Identity(hc, ns)
	_ = validation.Deletion(hc, []validation.Workloads{{Kind: "VirtualMachine", Count: 2, Example: "a/b"}})
	_ = validation.WorkloadPlacementUpdate(&hcov1.HyperConverged{}, hc, []validation.Workloads{{Kind: "DataVolume", Count: 1, Example: "a/b"}})
	_ = validation.Changed(&hcov1.HyperConverged{}, hc)
	after, _ := json.Marshal(hc)
	if string(before) != string(after) {
		t.Fatalf("validation changed its input:\n%s\n%s", before, after)
	}
}
