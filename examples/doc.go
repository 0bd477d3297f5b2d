// Package examples holds HyperConverged manifests, one per configuration
// example of the upstream documentation (node placement, feature gates, live
// migration, host devices, OvS, jsonpatch annotations), plus
// hyperconverged.yaml, the default one that make run applies. They are
// written in hco.kubevirt.io/v1; v1beta1/ holds each one's
// hco.kubevirt.io/v1beta1 form, under the same file name. Its test renders
// every manifest of both versions through the same code path as
// hco-operator render, checks the operand fields the example is about, and
// that the two forms of an example give the same hub object and the same
// operand objects.
//
// custom-meta-operator is a downstream distribution's main that embeds the
// library. Nothing here is imported by the library; it must not grow code
// that the library needs.
package examples
