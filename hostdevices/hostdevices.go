package hostdevices

import (
	"fmt"
	"regexp"
	"slices"

	kvv1 "kubevirt.io/api/core/v1"

	"github.com/hcokit/hcokit/api/v1beta1"
)

var pciSelector = regexp.MustCompile(`^[0-9a-fA-F]{4}:[0-9a-fA-F]{4}$`)

// ValidPCISelector reports whether s has the form VENDOR:DEVICE in hex.
func ValidPCISelector(s string) bool { return pciSelector.MatchString(s) }

// ForKubeVirt returns KubeVirt's permitted host devices: nil for nil input,
// otherwise the enabled entries in order. A PCI entry must set exactly one of
// pciDeviceSelector and pciVendorSelector, in VENDOR:DEVICE hex form; the
// error names the entry.
func ForKubeVirt(p *v1beta1.PermittedHostDevices) (*kvv1.PermittedHostDevices, error) {
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
			PCIVendorSelector:        d.Selector(),
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

func checkPCI(i int, d v1beta1.PciHostDevice) error {
	field := fmt.Sprintf("spec.permittedHostDevices.pciHostDevices[%d]", i)
	switch {
	case d.PCIDeviceSelector != "" && d.PCIVendorSelector != "":
		return fmt.Errorf("%s: set only one of pciDeviceSelector and pciVendorSelector (they are two names for the same selector)", field)
	case d.PCIDeviceSelector == "" && d.PCIVendorSelector == "":
		return fmt.Errorf("%s: set pciDeviceSelector to the device's VENDOR:DEVICE id in hex, e.g. \"10DE:1EB8\" (see lspci -nn)", field)
	case !ValidPCISelector(d.Selector()):
		return fmt.Errorf("%s: selector %q is not VENDOR:DEVICE in hex, e.g. \"10DE:1EB8\"", field, d.Selector())
	}
	return nil
}

// MediatedDevicesForKubeVirt returns KubeVirt's mediated device
// configuration, nil for nil input. The deprecated mediatedDevicesTypes is
// used where mediatedDeviceTypes is empty.
func MediatedDevicesForKubeVirt(c *v1beta1.MediatedDevicesConfiguration) *kvv1.MediatedDevicesConfiguration {
	if c == nil {
		return nil
	}
	out := &kvv1.MediatedDevicesConfiguration{
		MediatedDeviceTypes: pickTypes(c.MediatedDeviceTypes, c.MediatedDevicesTypes),
	}
	for _, n := range c.NodeMediatedDeviceTypes {
		sel := make(map[string]string, len(n.NodeSelector))
		for k, v := range n.NodeSelector {
			sel[k] = v
		}
		out.NodeMediatedDeviceTypes = append(out.NodeMediatedDeviceTypes, kvv1.NodeMediatedDeviceTypesConfig{
			NodeSelector:        sel,
			MediatedDeviceTypes: pickTypes(n.MediatedDeviceTypes, n.MediatedDevicesTypes),
		})
	}
	return out
}

func pickTypes(current, deprecated []string) []string {
	if len(current) > 0 {
		return slices.Clone(current)
	}
	return slices.Clone(deprecated)
}
