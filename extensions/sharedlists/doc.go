// Package sharedlists keeps the hco.ListMember operands' items in the
// lists of shared objects they do not own, as an hco.Extension: the
// console plugin's name in OpenShift's Console operator configuration
// (spec.plugins), the virtctl download's component route in the Ingress
// configuration (status.componentRoutes).
//
// Once the operands are reconciled, each item missing from its list is
// added, one of the operand's items that differs is put back, every other
// item is kept as it is, in its place; when the HyperConverged is deleted,
// before its operand objects go, the items the operands still list are
// taken out, and only those. Each write is a merge patch of that one list
// (through the status subresource for a list under status) with the
// object's resourceVersion as precondition, so an edit made meanwhile is
// never overwritten. `hco-operator diff` shows the same changes
// (hco.ListChanger).
//
// The target objects are OpenShift's: cached (by name) and watched on
// OpenShift only, where their kind is served; elsewhere nothing is asked.
// The permissions are the operands' (their rbac.go: a patch of the one
// object, by name).
package sharedlists
