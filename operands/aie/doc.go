// Package aie is the operand module for upstream HCO's AI-workload (AIE)
// webhook (controllers/handlers/aie at 03da3cf): a ServiceAccount, a
// Service, a Deployment, the launcher ConfigMap, a ClusterRole and its
// binding, and a MutatingWebhookConfiguration for virt-launcher pods, made
// while the HyperConverged carries the annotation hco.kubevirt.io/deployAIE
// "true" (which also turns on KubeVirt's AIE gates, operands/kubevirt) and
// the environment has the webhook's image (Environment.Images[ImageKey],
// upstream's AIE_WEBHOOK_IMAGE); nothing otherwise, and what was made is
// removed when the annotation goes.
//
// As upstream, two things in them are not the operator's: the launcher
// ConfigMap's data, which an admin edits (upstream's editable ConfigMap:
// created with "rules:\n", then kept as found, a missing key seeded), and
// the webhook configuration's caBundle, which `hco-operator webhook
// --manage-certs` injects with the serving certificate it keeps in the
// Secret kubevirt-aie-webhook-tls (see KeptFields). No cert-manager.
//
// This package only computes; it must not call the API server, read the
// environment or hold state.
package aie
