// Package manager assembles a controller-runtime manager around the core
// (package hco): a cache restricted to what the operator manages
// (CacheOptions), the REST mappings remembered, the operator's metrics, the
// extensions set up, the HyperConverged reconciler, and health checks. A
// binary calls New once in main (cmd/hco-operator, examples/).
//
// What it must not do: reconcile, or read the process environment (main
// passes the hco.Environment it read).
package manager
