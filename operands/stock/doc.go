// Package stock is the stock binary's operand set, for a distribution that
// starts from it (Registry, then Disable, Replace or Register on the
// result) and for tests that run the operator as it is shipped: every
// stock operand module in upstream HCO's order, and the ones on by
// default.
//
// What it must not do: hold state or read the environment; it only
// constructs operands and a registry. It imports every stock operand
// module: a distribution that wants fewer imports lists its modules itself
// (examples/custom-meta-operator).
package stock
