// Package memo is the operator's memory of what the API server stored from
// each object it wrote (package hco's applier and plan read it): the API
// server adds defaults to what it is sent, and only it knows them, so an
// object in sync costs no request and no comparison. hco/doc.go counts the
// memories; this package holds five of them (the objects' entries, the
// HyperConverged's status write among them, the objects left alone, the
// typed forms, and the build memo, Builds: each operand's last build and
// its input, so that an event that changes no input builds nothing again).
//
// What it must not do: send a request, or remember anything across a
// restart (empty after one: at most one update per object, which stores
// nothing).
package memo
