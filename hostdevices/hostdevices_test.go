package hostdevices_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	kvv1 "kubevirt.io/api/core/v1"

	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/hostdevices"
)

// The seeds' example.
var seedDevices = &v1beta1.PermittedHostDevices{
	PciHostDevices: []v1beta1.PciHostDevice{
		{PCIVendorSelector: "10DE:1EB8", ResourceName: "nvidia.com/TU104GL_Tesla_T4", ExternalResourceProvider: true},
		{PCIVendorSelector: "8086:6F54", ResourceName: "intel.com/qat"},
	},
	MediatedDevices: []v1beta1.MediatedHostDevice{
		{MDEVNameSelector: "GRID T4-1Q", ResourceName: "nvidia.com/GRID_T4-1Q"},
	},
}

func TestForKubeVirt(t *testing.T) {
	tests := []struct {
		name string
		in   *v1beta1.PermittedHostDevices
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
		{name: "upstream's pciDeviceSelector", in: &v1beta1.PermittedHostDevices{
			PciHostDevices: []v1beta1.PciHostDevice{{PCIDeviceSelector: "10de:1eb8", ResourceName: "r"}},
		}, want: &kvv1.PermittedHostDevices{PciHostDevices: []kvv1.PciHostDevice{{PCIVendorSelector: "10de:1eb8", ResourceName: "r"}}}},
		{name: "disabled entries are dropped", in: &v1beta1.PermittedHostDevices{
			PciHostDevices:  []v1beta1.PciHostDevice{{PCIDeviceSelector: "10de:1eb8", ResourceName: "r", Disabled: true}},
			MediatedDevices: []v1beta1.MediatedHostDevice{{MDEVNameSelector: "m", ResourceName: "r", Disabled: true}, {MDEVNameSelector: "n", ResourceName: "s"}},
			USBHostDevices:  []v1beta1.USBHostDevice{{ResourceName: "u", Disabled: true}},
		}, want: &kvv1.PermittedHostDevices{MediatedDevices: []kvv1.MediatedHostDevice{{MDEVNameSelector: "n", ResourceName: "s"}}}},
		{name: "empty lists replace KubeVirt's as a whole", in: &v1beta1.PermittedHostDevices{}, want: &kvv1.PermittedHostDevices{}},
		{name: "usb", in: &v1beta1.PermittedHostDevices{
			USBHostDevices: []v1beta1.USBHostDevice{{ResourceName: "kubevirt.io/storage", Selectors: []v1beta1.USBSelector{{Vendor: "46f4", Product: "0001"}}}},
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
		dev  v1beta1.PciHostDevice
		want string
	}{
		{"both selectors", v1beta1.PciHostDevice{PCIDeviceSelector: "10de:1eb8", PCIVendorSelector: "10de:1eb8"}, "set only one of pciDeviceSelector and pciVendorSelector"},
		{"no selector", v1beta1.PciHostDevice{ResourceName: "r"}, "set pciDeviceSelector"},
		{"not hex", v1beta1.PciHostDevice{PCIDeviceSelector: "nvidia:t4"}, `"nvidia:t4" is not VENDOR:DEVICE in hex`},
		{"disabled entries are still checked", v1beta1.PciHostDevice{PCIDeviceSelector: "10de", Disabled: true}, "is not VENDOR:DEVICE"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := &v1beta1.PermittedHostDevices{PciHostDevices: []v1beta1.PciHostDevice{{PCIDeviceSelector: "8086:6f54"}, tc.dev}}
			_, err := hostdevices.ForKubeVirt(in)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "spec.permittedHostDevices.pciHostDevices[1]")
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestMediatedDevicesForKubeVirt(t *testing.T) {
	assert.Nil(t, hostdevices.MediatedDevicesForKubeVirt(nil))
	got := hostdevices.MediatedDevicesForKubeVirt(&v1beta1.MediatedDevicesConfiguration{
		MediatedDevicesTypes: []string{"nvidia-222"},
		NodeMediatedDeviceTypes: []v1beta1.NodeMediatedDeviceTypesConfig{
			{NodeSelector: map[string]string{"gpu": "a"}, MediatedDeviceTypes: []string{"nvidia-223"}, MediatedDevicesTypes: []string{"ignored"}},
		},
	})
	assert.Equal(t, &kvv1.MediatedDevicesConfiguration{
		MediatedDeviceTypes: []string{"nvidia-222"},
		NodeMediatedDeviceTypes: []kvv1.NodeMediatedDeviceTypesConfig{
			{NodeSelector: map[string]string{"gpu": "a"}, MediatedDeviceTypes: []string{"nvidia-223"}},
		},
	}, got)
}

func FuzzForKubeVirt(f *testing.F) {
	seed, err := json.Marshal(seedDevices)
	require.NoError(f, err)
	f.Add(seed)
	f.Add([]byte(`{"pciHostDevices":[{"pciDeviceSelector":"10de:1eb8","pciVendorSelector":"x"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var in *v1beta1.PermittedHostDevices
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
