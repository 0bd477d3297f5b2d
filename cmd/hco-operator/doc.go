// Command hco-operator is the stock HyperConverged meta-operator: it reads
// flags and environment variables into an hco.Environment, registers the
// stock operands, and runs the reconciler until it is stopped.
//
// Subcommands: operator (the default), webhook, render, diff, version; -h
// lists them. Installed as kubectl-hco it is a kubectl plugin (kubectl hco
// diff), and then needs a command. Flags follow kubebuilder's names (--leader-elect,
// --metrics-bind-address, --metrics-secure, --metrics-cert-path,
// --health-probe-bind-address); metrics are HTTPS on :8443 for tokens the
// API server allows to get /metrics (metrics.go). --kubeconfig (on
// operator and webhook) or KUBECONFIG selects the cluster, so it runs
// outside a cluster too. The version is set at build time with
// -ldflags "-X main.version=...".
package main
