package hco

// Environment is everything an operand needs besides the HyperConverged. It
// is read once, from flags and environment variables, in main and passed down
// by value; nothing below main reads the process environment.
type Environment struct {
	// Namespace is the operator's namespace. Only the HyperConverged named
	// v1beta1.HyperConvergedName in this namespace is reconciled.
	Namespace string

	// Version is the operator's own version. It labels every object it
	// creates and is reported as "operator" in status.versions.
	Version string

	// OperandVersions are the versions each operand is expected to report
	// once upgraded, by operand name ("kubevirt", "cdi", ...). An operand
	// without an entry is not waited for.
	OperandVersions map[string]string

	// Images are container images by role, for operands that deploy
	// workloads themselves (e.g. "virtctl-download").
	Images map[string]string

	// CommonTemplatesNamespace is where SSP deploys the common templates
	// when the HyperConverged does not say. Upstream uses "openshift".
	CommonTemplatesNamespace string

	// KVMEmulation is true on clusters without hardware virtualization; it
	// drops KubeVirt gates that need real hardware.
	KVMEmulation bool
}

// DefaultCommonTemplatesNamespace is upstream's default for
// Environment.CommonTemplatesNamespace.
const DefaultCommonTemplatesNamespace = "openshift"
