// Package netresinjector tests the network-resources-injector operand
// module against a real kube-apiserver: a default HyperConverged yields its
// objects, accepted as built; turning deployNetworkResourcesInjector off
// removes them and on brings them back; an out-of-band edit is reverted; a
// caBundle someone else writes into its MutatingWebhookConfiguration (the
// certificate rotator of `hco-operator webhook --manage-certs`) is kept; its
// readiness feeds the HyperConverged's conditions. Likewise the AIE webhook
// module (operands/aie), the other webhook the operator deploys: its
// objects follow the annotation hco.kubevirt.io/deployAIE, its launcher
// ConfigMap keeps an admin's edits, its webhook configuration the caBundle.
//
// Its own control plane and manager (the netresinjector and aie operands), so
// that the shared suite's counts of objects and requests stay as they are.
package netresinjector
