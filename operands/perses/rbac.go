package perses

// The operator's permissions for this operand, for controller-gen
// (hack/generate.sh gathers the markers of cmd/hco-operator and every
// operand package into config/rbac/role.yaml): its kinds in the operator
// namespace, not by name, since a distribution gives dashboards and
// datasources of its own names (WithDashboards, WithDatasources). Upstream
// grants the same verbs in every namespace.
// +kubebuilder:rbac:groups=perses.dev,namespace=kubevirt-hyperconverged,resources=persesdashboards;persesdatasources,verbs=get;list;watch;create;update;delete
