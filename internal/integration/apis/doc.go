// Package apis tests, against a real kube-apiserver, an operator started
// on a cluster that serves only some of the operand APIs: an operand whose
// API is not served waits for it, reported on the HyperConverged, and
// starts when its CustomResourceDefinition is installed, with no restart.
// Its own control plane: the tests install and remove operand CRDs.
package apis
