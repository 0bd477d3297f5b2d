package hostdevices

import (
	"fmt"
	"maps"
	"regexp"
	"slices"

	kvv1 "kubevirt.io/api/core/v1"

	hcov1 "github.com/hcokit/hcokit/api/v1"
)

var pciSelector = regexp.MustCompile(`^[0-9a-fA-F]{4}:[0-9a-fA-F]{4}$`)

// ValidPCISelector reports whether s has the form VENDOR:DEVICE in hex.
func ValidPCISelector(s string) bool { return pciSelector.MatchString(s) }

// ForKubeVirt returns KubeVirt's permitted host devices: nil for nil input,
// otherwise the enabled entries in order. A PCI entry's pciDeviceSelector
// must be VENDOR:DEVICE in hex; the error names the entry. (v1beta1's older
// spelling pciVendorSelector arrives here converted to pciDeviceSelector.)
func ForKubeVirt(p *hcov1.PermittedHostDevices) (*kvv1.PermittedHostDevices, error) {
	if p == nil {
		return nil, nil
	}
	out := &kvv1.PermittedHostDevices{}
	for i, d := range p.PciHostDevices {
		if err := checkPCI(i, d); err != nil {
			return nil, err
		}
		if d.Disabled {
			continue
		}
		out.PciHostDevices = append(out.PciHostDevices, kvv1.PciHostDevice{
			PCIVendorSelector:        d.PCIDeviceSelector,
			ResourceName:             d.ResourceName,
			ExternalResourceProvider: d.ExternalResourceProvider,
		})
	}
	for _, d := range p.MediatedDevices {
		if d.Disabled {
			continue
		}
		out.MediatedDevices = append(out.MediatedDevices, kvv1.MediatedHostDevice{
			MDEVNameSelector:         d.MDEVNameSelector,
			ResourceName:             d.ResourceName,
			ExternalResourceProvider: d.ExternalResourceProvider,
		})
	}
	for _, d := range p.USBHostDevices {
		if d.Disabled {
			continue
		}
		usb := kvv1.USBHostDevice{ResourceName: d.ResourceName, ExternalResourceProvider: d.ExternalResourceProvider}
		for _, s := range d.Selectors {
			usb.Selectors = append(usb.Selectors, kvv1.USBSelector{Vendor: s.Vendor, Product: s.Product})
		}
		out.USB = append(out.USB, usb)
	}
	return out, nil
}

func checkPCI(i int, d hcov1.PciHostDevice) error {
	field := fmt.Sprintf("spec.virtualization.permittedHostDevices.pciHostDevices[%d].pciDeviceSelector", i)
	switch {
	case d.PCIDeviceSelector == "":
		return fmt.Errorf("%s: set it to the device's VENDOR:DEVICE id in hex, e.g. \"10DE:1EB8\" (see lspci -nn)", field)
	case !ValidPCISelector(d.PCIDeviceSelector):
		return fmt.Errorf("%s: selector %q is not VENDOR:DEVICE in hex, e.g. \"10DE:1EB8\"", field, d.PCIDeviceSelector)
	}
	return nil
}

// MediatedDevicesForKubeVirt returns KubeVirt's mediated device
// configuration, nil for nil input. (v1beta1's deprecated
// mediatedDevicesTypes arrives here converted to mediatedDeviceTypes.)
func MediatedDevicesForKubeVirt(c *hcov1.MediatedDevicesConfiguration) *kvv1.MediatedDevicesConfiguration {
	if c == nil {
		return nil
	}
	out := &kvv1.MediatedDevicesConfiguration{
		MediatedDeviceTypes: slices.Clone(c.MediatedDeviceTypes),
	}
	for _, n := range c.NodeMediatedDeviceTypes {
		out.NodeMediatedDeviceTypes = append(out.NodeMediatedDeviceTypes, kvv1.NodeMediatedDeviceTypesConfig{
			NodeSelector:        maps.Clone(n.NodeSelector),
			MediatedDeviceTypes: slices.Clone(n.MediatedDeviceTypes),
		})
	}
	return out
}
