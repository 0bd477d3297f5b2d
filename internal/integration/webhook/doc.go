// Package webhook tests the validating admission webhook of the HyperConverged
// as a user meets it: through a real kube-apiserver that calls the webhook over
// TLS, with the shipped ValidatingWebhookConfiguration (config/webhook,
// rewritten by envtest to the local server) and real VirtualMachine and
// DataVolume objects. The operator itself does not run here.
//
// It holds tests only: nothing may import it, and it must not start more than
// one control plane (TestMain starts it for the whole package).
package webhook
