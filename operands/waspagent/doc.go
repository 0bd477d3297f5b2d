// Package waspagent is the operand module of the wasp agent on OpenShift,
// as upstream HCO at 03da3cf deploys it (controllers/handlers/wasp-agent):
// the agent that lets nodes swap, so that VM memory can be overcommitted
// (higher workload density). It builds the ServiceAccount "wasp", the
// SecurityContextConstraints "wasp" that let that account run the agent's
// privileged pods, the DaemonSet "wasp-agent" and the ClusterRoleBinding
// "wasp-cluster" of the install's ClusterRole of that name (shipped by
// config/rbac/operand_roles.yaml: the operator writes no ClusterRole).
//
// It deploys on OpenShift only, while
// spec.virtualization.higherWorkloadDensity.memoryOvercommitPercentage is
// above 100 and the HyperConverged does not opt out of it with upstream's
// annotation platform.kubevirt.io/autopilot ("true", or a list naming
// "swap-enable"), and only with the agent's image (upstream's
// WASP_AGENT_IMAGE); otherwise it wants nothing, and what it made is
// removed.
//
// What it must not do: read the cluster or the environment.
package waspagent
