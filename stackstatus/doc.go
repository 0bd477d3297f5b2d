// Package stackstatus answers "is my virtualization stack healthy, and if
// not, why" for `kubectl hco status` (hco-operator status): the
// HyperConverged's conditions, then each operand of the registry that has
// objects, judged by its own Status as the operator judges it (the same
// hcostatus.Component the aggregated conditions are made of), with its
// component CR's conditions and observed version, the component operator's
// Deployment of the whole-stack install (virt-operator, cdi-operator, ...)
// and the workloads hcokit made (Deployments, DaemonSets) with their ready
// replicas; and the first failing leaf, in the registry's order (upstream's
// order of judging the components), with its reason in words.
//
// Read is read-only (gets and lists, config/rbac/status_role.yaml) and
// takes a cluster with any subset of the components: a kind not served,
// an operand without objects or a component operator not installed is
// left out, not a failure. Write renders the tree as text (colour on a
// terminal only); a Stack is its JSON and YAML form as well.
package stackstatus
