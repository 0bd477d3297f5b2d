// Package wireform is how the operator sees the objects it writes: as the
// API server receives them (their wire form: the JSON of the Go object,
// decoded as the server's answers are, integers int64), compared by content
// (what the operator owns of an object: every top-level member but
// apiVersion, kind, metadata and status), and laid over what the cluster
// holds without losing what others set there.
//
//   - [Of] encodes a built object into its wire form, with an operand's
//     jsonpatch applied; [Typed] converts one read back into its Go type.
//   - [Content], [Equal] and [Within] compare: Equal gives
//     equality.Semantic's answers on JSON values without reflection;
//     Within allows the server's defaults beside what was sent.
//   - [Keep] copies into a built object the values others fill in (a
//     caBundle a rotator injects), at paths of member names, "*" walking a
//     list by position, [ByKey] by a member's value, [KeepNot] naming the
//     operator's member of a kept map.
//   - [Owned], [MetadataHolds] and [Merge] make the update: the content
//     built, the labels and annotations built laid over the observed ones,
//     those the field manager set and builds no more removed (the API
//     server's managedFields say which), status and others' metadata kept.
//
// Everything here is a pure function of its arguments: no client, no
// logging, no state. Package hco decides what to write and writes it.
package wireform
