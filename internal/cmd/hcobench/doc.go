// Command hcobench is `make bench`: it prints one table with the pure costs
// (translators, building every operand CR), and the stock binary's behaviour
// as its own process against a local kube-apiserver and etcd: convergence and
// revert latencies and request counts read from the apiserver's audit log
// (the operator runs as its own user), and its RSS. With -upstream-tree it
// builds upstream HCO's operator from its source tree and runs the same live
// measurements on it, on a fresh control plane of the same kind, in a column
// beside hcokit's, with the bars' ratios (upstream.go says how upstream is
// started).
//
// It measures; it asserts nothing and is not a test.
package main
