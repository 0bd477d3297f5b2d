package hostdevices_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	kvv1 "kubevirt.io/api/core/v1"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/hostdevices"
)

// The seeds' example, in v1 (the seeds spell the selector pciVendorSelector,
// which v1beta1 conversion turns into pciDeviceSelector).
var seedDevices = &hcov1.PermittedHostDevices{
	PciHostDevices: []hcov1.PciHostDevice{
		{PCIDeviceSelector: "10DE:1EB8", ResourceName: "nvidia.com/TU104GL_Tesla_T4", ExternalResourceProvider: true},
		{PCIDeviceSelector: "8086:6F54", ResourceName: "intel.com/qat"},
	},
	MediatedDevices: []hcov1.MediatedHostDevice{
		{MDEVNameSelector: "GRID T4-1Q", ResourceName: "nvidia.com/GRID_T4-1Q"},
	},
}

func TestForKubeVirt(t *testing.T) {
	tests := []struct {
		name string
		in   *hcov1.PermittedHostDevices
		want *kvv1.PermittedHostDevices
	}{
		{name: "unset leaves KubeVirt's list unset", in: nil, want: nil},
		{name: "seed example", in: seedDevices, want: &kvv1.PermittedHostDevices{
			PciHostDevices: []kvv1.PciHostDevice{
				{PCIVendorSelector: "10DE:1EB8", ResourceName: "nvidia.com/TU104GL_Tesla_T4", ExternalResourceProvider: true},
				{PCIVendorSelector: "8086:6F54", ResourceName: "intel.com/qat"},
			},
			MediatedDevices: []kvv1.MediatedHostDevice{{MDEVNameSelector: "GRID T4-1Q", ResourceName: "nvidia.com/GRID_T4-1Q"}},
		}},
		{name: "lower-case pciDeviceSelector", in: &hcov1.PermittedHostDevices{
			PciHostDevices: []hcov1.PciHostDevice{{PCIDeviceSelector: "10de:1eb8", ResourceName: "r"}},
		}, want: &kvv1.PermittedHostDevices{PciHostDevices: []kvv1.PciHostDevice{{PCIVendorSelector: "10de:1eb8", ResourceName: "r"}}}},
		{name: "disabled entries are dropped", in: &hcov1.PermittedHostDevices{
			PciHostDevices:  []hcov1.PciHostDevice{{PCIDeviceSelector: "10de:1eb8", ResourceName: "r", Disabled: true}},
			MediatedDevices: []hcov1.MediatedHostDevice{{MDEVNameSelector: "m", ResourceName: "r", Disabled: true}, {MDEVNameSelector: "n", ResourceName: "s"}},
			USBHostDevices:  []hcov1.USBHostDevice{{ResourceName: "u", Disabled: true}},
		}, want: &kvv1.PermittedHostDevices{MediatedDevices: []kvv1.MediatedHostDevice{{MDEVNameSelector: "n", ResourceName: "s"}}}},
		{name: "empty lists replace KubeVirt's as a whole", in: &hcov1.PermittedHostDevices{}, want: &kvv1.PermittedHostDevices{}},
		{name: "usb", in: &hcov1.PermittedHostDevices{
			USBHostDevices: []hcov1.USBHostDevice{{ResourceName: "kubevirt.io/storage", Selectors: []hcov1.USBSelector{{Vendor: "46f4", Product: "0001"}}}},
		}, want: &kvv1.PermittedHostDevices{USB: []kvv1.USBHostDevice{{ResourceName: "kubevirt.io/storage", Selectors: []kvv1.USBSelector{{Vendor: "46f4", Product: "0001"}}}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := hostdevices.ForKubeVirt(tc.in)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestBadPCISelectorsNameTheEntry(t *testing.T) {
	tests := []struct {
		name string
		dev  hcov1.PciHostDevice
		want string
	}{
		{"no selector", hcov1.PciHostDevice{ResourceName: "r"}, "pciDeviceSelector: set it to the device's VENDOR:DEVICE id in hex"},
		{"not hex", hcov1.PciHostDevice{PCIDeviceSelector: "nvidia:t4"}, `"nvidia:t4" is not VENDOR:DEVICE in hex`},
		{"disabled entries are still checked", hcov1.PciHostDevice{PCIDeviceSelector: "10de", Disabled: true}, "is not VENDOR:DEVICE"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := &hcov1.PermittedHostDevices{PciHostDevices: []hcov1.PciHostDevice{{PCIDeviceSelector: "8086:6f54"}, tc.dev}}
			_, err := hostdevices.ForKubeVirt(in)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "spec.virtualization.permittedHostDevices.pciHostDevices[1].pciDeviceSelector")
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestMediatedDevicesForKubeVirt(t *testing.T) {
	assert.Nil(t, hostdevices.MediatedDevicesForKubeVirt(nil))
	got := hostdevices.MediatedDevicesForKubeVirt(&hcov1.MediatedDevicesConfiguration{
		MediatedDeviceTypes: []string{"nvidia-222"},
		NodeMediatedDeviceTypes: []hcov1.NodeMediatedDeviceTypesConfig{
			{NodeSelector: map[string]string{"gpu": "a"}, MediatedDeviceTypes: []string{"nvidia-223"}},
		},
	})
	assert.Equal(t, &kvv1.MediatedDevicesConfiguration{
		MediatedDeviceTypes: []string{"nvidia-222"},
		NodeMediatedDeviceTypes: []kvv1.NodeMediatedDeviceTypesConfig{
			{NodeSelector: map[string]string{"gpu": "a"}, MediatedDeviceTypes: []string{"nvidia-223"}},
		},
	}, got)
}

// v1beta1's older spellings (pciVendorSelector, mediatedDevicesTypes) reach
// the translators through conversion to v1 and give what the current
// spellings give.
func TestV1beta1SpellingsThroughConversion(t *testing.T) {
	old := &v1beta1.HyperConverged{Spec: v1beta1.HyperConvergedSpec{
		PermittedHostDevices: &v1beta1.PermittedHostDevices{
			PciHostDevices: []v1beta1.PciHostDevice{
				{PCIVendorSelector: "10DE:1EB8", ResourceName: "nvidia.com/TU104GL_Tesla_T4", ExternalResourceProvider: true},
				{PCIDeviceSelector: "8086:6F54", ResourceName: "intel.com/qat"},
			},
		},
		MediatedDevicesConfiguration: &v1beta1.MediatedDevicesConfiguration{
			MediatedDevicesTypes: []string{"nvidia-222"},
			NodeMediatedDeviceTypes: []v1beta1.NodeMediatedDeviceTypesConfig{
				// The current spelling wins over the deprecated one.
				{NodeSelector: map[string]string{"gpu": "a"}, MediatedDeviceTypes: []string{"nvidia-223"}, MediatedDevicesTypes: []string{"ignored"}},
				{NodeSelector: map[string]string{"gpu": "b"}, MediatedDevicesTypes: []string{"nvidia-224"}},
			},
		},
	}}
	hub := &hcov1.HyperConverged{}
	require.NoError(t, old.ConvertTo(hub))

	devices, err := hostdevices.ForKubeVirt(hub.Spec.Virtualization.PermittedHostDevices)
	require.NoError(t, err)
	assert.Equal(t, &kvv1.PermittedHostDevices{PciHostDevices: []kvv1.PciHostDevice{
		{PCIVendorSelector: "10DE:1EB8", ResourceName: "nvidia.com/TU104GL_Tesla_T4", ExternalResourceProvider: true},
		{PCIVendorSelector: "8086:6F54", ResourceName: "intel.com/qat"},
	}}, devices)

	assert.Equal(t, &kvv1.MediatedDevicesConfiguration{
		MediatedDeviceTypes: []string{"nvidia-222"},
		NodeMediatedDeviceTypes: []kvv1.NodeMediatedDeviceTypesConfig{
			{NodeSelector: map[string]string{"gpu": "a"}, MediatedDeviceTypes: []string{"nvidia-223"}},
			{NodeSelector: map[string]string{"gpu": "b"}, MediatedDeviceTypes: []string{"nvidia-224"}},
		},
	}, hostdevices.MediatedDevicesForKubeVirt(hub.Spec.Virtualization.MediatedDevicesConfiguration))
}

func FuzzForKubeVirt(f *testing.F) {
	seed, err := json.Marshal(seedDevices)
	require.NoError(f, err)
	f.Add(seed)
	f.Add([]byte(`{"pciHostDevices":[{"pciDeviceSelector":"10de:1eb8"},{"pciDeviceSelector":"x"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var in *hcov1.PermittedHostDevices
		if json.Unmarshal(data, &in) != nil {
			return
		}
		a, errA := hostdevices.ForKubeVirt(in)
		b, errB := hostdevices.ForKubeVirt(in)
		if (errA == nil) != (errB == nil) || !reflect.DeepEqual(a, b) {
			t.Fatal("ForKubeVirt is not deterministic")
		}
		if errA == nil && a != nil {
			for _, d := range a.PciHostDevices {
				if !hostdevices.ValidPCISelector(d.PCIVendorSelector) {
					t.Fatalf("invalid selector %q passed through", d.PCIVendorSelector)
				}
			}
		}
	})
}

func BenchmarkForKubeVirt(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := hostdevices.ForKubeVirt(seedDevices); err != nil {
			b.Fatal(err)
		}
	}
}
