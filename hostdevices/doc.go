// Package hostdevices translates the HyperConverged's permitted host devices
// and mediated device configuration into KubeVirt's
// spec.configuration.permittedHostDevices and
// spec.configuration.mediatedDevicesConfiguration.
//
// Lists are replaced as a whole, never merged, and disabled entries are
// dropped. The package is a pure translator: it imports only API types and
// must not import a client, read the environment, log, or hold state.
package hostdevices
