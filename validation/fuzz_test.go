package validation_test

import (
	"encoding/json"
	"testing"

	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/validation"
)

// FuzzValidate feeds arbitrary HyperConverged JSON to every function of the
// package: none may panic, and Spec must not change its input.
func FuzzValidate(f *testing.F) {
	for _, seed := range []string{
		`{}`,
		`{"metadata":{"name":"kubevirt-hyperconverged","annotations":{"kubevirt.kubevirt.io/jsonpatch":"[{\"op\":\"add\",\"path\":\"/spec/configuration/cpuRequest\",\"value\":\"1\"}]"}}}`,
		`{"metadata":{"annotations":{"ssp.kubevirt.io/jsonpatch":"[{\"op\":\"move\",\"from\":\"/spec\",\"path\":\"/spec/x\"}]","networkaddonsconfigs.kubevirt.io/jsonpatch":"[{\"op\":\"remove\",\"path\":\"/spec\"}]"}}}`,
		`{"spec":{"liveMigrationConfig":{"bandwidthPerMigration":"-1e9"},"certConfig":{"ca":{"duration":"1s","renewBefore":"-5h"},"server":{"duration":"0s"}}}}`,
		`{"spec":{"workloads":{"nodePlacement":{"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"a","operator":"Gt","values":["99999999999999999999"]}],"matchFields":[{"key":"x","operator":"Lt"}]}]}},"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":{"matchExpressions":[{"key":"k","operator":"In"}]}}]}},"tolerations":[{"operator":"Bogus","effect":"X"}]}}}}`,
		`{"spec":{"permittedHostDevices":{"pciHostDevices":[{},{"pciDeviceSelector":"zz:yy","pciVendorSelector":"1:2"}]},"featureGates":{"nonRoot":true,"x":null},"uninstallStrategy":"RemoveWorkloads"}}`,
		`{"spec":{"hostpathProvisioner":{"storagePools":[{"name":"a","path":"/x"}]},"commonTemplatesNamespace":""}}`,
	} {
		f.Add([]byte(seed))
	}
	opts := stockOptions(f)
	f.Fuzz(func(t *testing.T, raw []byte) {
		_ = validation.FeatureGateWarnings(raw)
		hc := &v1beta1.HyperConverged{}
		if err := json.Unmarshal(raw, hc); err != nil {
			return
		}
		before, _ := json.Marshal(hc)
		errs := validation.Spec(hc, opts)
		_ = validation.Message(errs)
		_ = validation.Identity(hc, ns)
		_ = validation.Deletion(hc, []validation.Workloads{{Kind: "VirtualMachine", Count: 2, Example: "a/b"}})
		_ = validation.WorkloadPlacementUpdate(&v1beta1.HyperConverged{}, hc, []validation.Workloads{{Kind: "DataVolume", Count: 1, Example: "a/b"}})
		_ = validation.Changed(&v1beta1.HyperConverged{}, hc)
		after, _ := json.Marshal(hc)
		if string(before) != string(after) {
			t.Fatalf("Spec changed its input:\n%s\n%s", before, after)
		}
	})
}
