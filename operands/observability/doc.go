// Package observability is the operand module for upstream HCO's
// virt-observability-controller (controllers/handlers/observabilitycontroller
// at 03da3cf): a ServiceAccount, a ClusterRole and its ClusterRoleBinding,
// and a Deployment, all named virt-observability-controller, the namespaced
// ones in the HyperConverged's namespace. As upstream, they are deployed
// while the alpha feature gate deployObservabilityController is enabled, the
// controller's image is known (Environment.Images[ImageKey], upstream's
// OBSERVABILITY_CONTROLLER_IMAGE) and the Prometheus operator's API is
// served (PrometheusRule and ServiceMonitor); the stock binary checks the
// last two at start, as upstream does, and leaves the operand out
// otherwise, saying why. spec.observability's three allow lists become the
// controller's flags, and the TLS profile its --tls-* flags.
//
// The controller's ClusterRole grants what upstream's grants; the API
// server lets the operator write it only if the operator holds the same
// permissions (escalate cannot be limited to one ClusterRole on create), so
// the stock install grants them, and bind on that ClusterRole, only with
// config/components/observability, which also sets the image.
//
// The component status is the Deployment's existence, as upstream counts
// it (its generic Deployment handler reports no condition).
//
// This package only computes; it must not call the API server, read the
// environment or hold state.
package observability
