// Package restmapping remembers the REST mappings a mapper found, for the
// operator's manager (manager.New).
//
// What it must not do: remember a kind not found (its API may appear), or
// answer anything but RESTMapping from memory.
package restmapping
