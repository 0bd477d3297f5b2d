// Command hcobench is `make bench`: it prints one table with the pure costs
// (translators, building every operand CR), and the stock binary's behaviour
// as its own process against a local kube-apiserver and etcd: convergence and
// revert latencies and request counts read from the apiserver's audit log
// (the operator runs as its own user), and its RSS.
//
// It measures; it asserts nothing and is not a test.
package main
