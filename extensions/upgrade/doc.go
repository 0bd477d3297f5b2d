// Package upgrade is what the operator does, as an hco.Extension, before
// the operands when it takes over from an earlier operator: upstream HCO's
// upgrade patches of the HyperConverged (assets/upgradePatches.json at
// 03da3cf) and the objects an earlier upstream version made that this one
// does not (its objectsToBeRemoved), applied once per operator version when
// the HyperConverged's status.versions records an earlier one; the
// hco.Adopter operands carrying their settings forward on the same
// occasion; and, once per process, the switch from upstream's install on
// plain Kubernetes (its cert-manager Issuer and Certificate of the
// network-resources-injector, which hcokit replaces).
//
// The reconcile stops after a step that changed the HyperConverged (the
// update brings the next one). Leftovers are deleted through the core
// (hco.ExtensionState.RemoveLeftover): only those carrying upstream's
// labels that the HyperConverged claims, each only if still the object
// read, with an Event saying why.
//
// RBAC (rbac.go): get and delete of the leftovers, by name.
package upgrade
