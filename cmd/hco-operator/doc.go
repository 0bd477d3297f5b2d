// Command hco-operator is the stock HyperConverged meta-operator: it reads
// flags and environment variables into an hco.Environment, registers the
// stock operands, and runs the reconciler until it is stopped.
//
// Flags follow kubebuilder's names (--leader-elect, --metrics-bind-address,
// --health-probe-bind-address); KUBECONFIG or --kubeconfig selects the
// cluster, so it runs outside a cluster too.
package main
