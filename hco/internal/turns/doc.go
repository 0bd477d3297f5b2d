// Package turns runs work items concurrently, one at a time until each
// yields its turn (package hco's operands: one builds and compares while
// the others' writes are in flight).
//
// What it must not do: run two items' work before a yield, or drop one.
package turns
