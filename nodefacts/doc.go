// Package nodefacts is what a HyperConverged operator knows about the
// cluster's nodes, from their labels only: how many have each role, the
// architectures VMs can run on, and upstream HCO's high-availability rules
// (Facts, From). Operands get them as part of hco.Facts.
//
// Index and NewSource are how the stock reconciler keeps them current
// without caching the Nodes: a Reflector lists and watches the Nodes'
// metadata into a compact index (a node costs its map entry; measured in
// docs/performance.md), and enqueues a reconcile when a node's labels
// change. It is the one memory of the server besides the applier's, a
// deliberate exception: without it the facts would cost a list of every
// Node per reconcile.
//
// What it must not do: it reads only node labels (never a Node's spec or
// status, so a Node is never fetched whole), writes nothing, and computes
// Facts as a pure function of the labels and the workload placement.
package nodefacts
