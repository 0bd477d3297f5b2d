package observability

// No RBAC markers here: the operand is opt-in, and
// config/components/observability, which turns it on, ships the
// controller's ClusterRole and grants the operator bind on it and get,
// update and delete of the binding it makes (ClusterRoleBindingName); its
// ServiceAccount and Deployment are namespaced kinds other stock operands
// write too.
