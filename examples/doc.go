// Package examples holds HyperConverged manifests, one per configuration
// example of the upstream documentation (node placement, feature gates, live
// migration, host devices, OvS, jsonpatch annotations), plus
// hyperconverged.yaml, the default one that make run applies. Its test
// renders every manifest through the same code path as hco-operator render
// and checks the operand fields the example is about.
//
// custom-meta-operator is a downstream distribution's main that embeds the
// library. Nothing here is imported by the library; it must not grow code
// that the library needs.
package examples
