// Command custom-meta-operator is a downstream distribution ("Acme
// Virtualization") built on the hcokit library: the stock operands, without
// the hostpath provisioner and the VM file restore operator, with its own SSP
// variant, plus an operand of its own. The distribution's code is main.go and operands.go; everything else is
// the library.
//
// It is an example to copy, not a library: nothing imports it, and it
// reads its settings only in main.
package main
