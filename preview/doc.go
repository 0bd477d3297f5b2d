// Package preview shows what the operator would do to every operand object
// before it does it: for a HyperConverged (an admin's edit, or the live one
// under a new operator build), the objects it would create, update and
// delete, each as the API server would store it, written as kubectl diff
// writes a diff. It is what `hco-operator diff` (and `kubectl hco diff`)
// and `hco-operator render --diff` are made of; a distribution builds the
// same command for its own registry from it.
//
// Against a cluster ([Cluster]), every object is built with the library
// exactly as the reconciler builds it ([hco.DesiredObjects], jsonpatch
// annotation included), from the facts the reconciler would read (the
// nodes' labels, the cluster's TLS profile), and sent as the reconciler
// would write it (the update of the plan's [hco.Step] for an object that
// exists, a create for one that does not) with its field manager, as a server-side dry run, so
// that the operand CRDs' defaults and the admission webhooks apply. What the
// reconciler would prune is listed as deleted. Offline ([Offline]), the two
// HyperConvergeds are rendered as render does, with no cluster.
//
// This package must never write to a cluster: every write it sends goes
// through a client made a dry-run client (client.NewDryRunClient) when the
// Cluster is built. It must not read the process environment or hold
// package-level mutable state.
package preview
