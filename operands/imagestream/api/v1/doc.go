// Package v1 is a small typed mirror of OpenShift's ImageStream
// (image.openshift.io/v1): its spec, with upstream's JSON names, and no
// status (the operator never reads it).
//
// It exists to keep github.com/openshift/api/image/v1 out of the operator's
// binary: that package's generated protobuf code and field documentation
// were about 0.8 MB of it and 1 MiB of its resident memory, for four small
// structs. It limits only what the module reads from its files: the
// reconciler writes the stream in its wire form and keeps what others set.
// Two differences of shape: a tag's annotations and generation are left
// out when empty (upstream's type sends null, which the API server reads
// as unset). tools/upstreamapis tests that every field here exists upstream
// with the same JSON name and shape, and that the spec has every field of
// upstream's. This package holds types only.
//
// +kubebuilder:object:generate=true
// +groupName=image.openshift.io
package v1
