// Package olm is what the operator does under OLM, as an hco.Extension: it
// tells OLM whether it may be upgraded (the Upgradeable condition of its
// OperatorCondition: Initializing at start, AlreadyPerformingUpgrade while
// upgrading, the HyperConverged's own otherwise, as upstream HCO at 03da3cf
// sets it) and keeps the console's operand-delete annotation of its
// ClusterServiceVersion following the HyperConverged's uninstallStrategy.
//
// It is active only while hco.Environment.OperatorConditionName is set
// (OLM's OPERATOR_CONDITION_NAME), and then requires OLM's API. It writes
// nothing else: the condition and that one annotation (the install's guard
// holds the operator to the annotation, docs/security.md).
package olm
