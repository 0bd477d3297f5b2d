// Package apply carries out one planned write of an operand object (package
// hco's Step, as a Write) against the API server, and remembers what the
// server stored (package memo). It is the one path by which the operator
// creates, updates and deletes operand objects.
//
// What it must not do: decide what to write (the plan does), read through
// the cache, or delete an object without a UID precondition.
package apply
