// Package diff tests `hco-operator diff` (and `kubectl hco diff`, and
// `hco-operator render --diff`) as an admin or a CI job meets it: it builds
// cmd/hco-operator, runs the stock reconciler and the HyperConverged
// webhook beside a real kube-apiserver (one per package, from TestMain),
// and runs the binary as a ServiceAccount bound only to the shipped
// ClusterRoles hco-diff and hco-diff-namespace (config/rbac/diff_role.yaml).
// The apiserver's audit log records every request of that ServiceAccount,
// so that a test fails on any write that is not a dry run, and on a grant
// the roles give and diff never uses.
//
// It holds tests only: nothing may import it, and it must not start more
// than one control plane.
package diff
