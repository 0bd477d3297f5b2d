// Command operandcrds selects, from CRDs that controller-gen generated for
// whole API groups, the operand CRDs hcokit's tests install, corrects what
// the upstream Go types cannot tell controller-gen (scope, short names,
// categories, the status subresource, printer columns), checks each against
// the upstream facts listed in this file, and writes them into one directory,
// one file per CRD, removing any other YAML file there.
//
//	operandcrds -out config/crd/operands DIR...
//
// It must not invent schema: the OpenAPI schema comes from controller-gen
// unchanged. It is run by hack/generate.sh, not by hand.
package main
