// Package operands gathers what the stock operand modules share with a
// manager: the Go types they write, registered in a scheme. The modules
// themselves live in the sub-packages (kubevirt, cdi, cnao, ssp, hpp) and are
// registered explicitly in main.
package operands
