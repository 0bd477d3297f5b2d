// Command hcolocal runs the stock operator on a local control plane: the
// `make run` of README. See main.go for what it does; it must not be used
// against a real cluster (it creates and deletes its own).
package main
