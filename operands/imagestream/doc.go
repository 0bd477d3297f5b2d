// Package imagestream is the operand module for the golden images'
// ImageStreams on OpenShift (image.openshift.io/v1), as upstream HCO at
// 03da3cf deploys the files of its imageStreams/ directory
// (controllers/handlers/imageStream.go): each with its name, its
// annotations and its spec as given, upstream's labels (hco.Labels,
// component compute) in place of its own, in its namespace, or in the
// HyperConverged's spec.workloadSources.commonBootImageNamespace when that
// is set (moved there when it changes: made in the new namespace, deleted
// from the old); while spec.workloadSources.enableCommonBootImageImport is
// true (the default), and deleted when it is false. The objects are made
// only where the platform is OpenShift (hco.Facts.Platform; and,
// hco.OpenShiftOnly, the operator leaves the module out elsewhere); without
// image streams the module wants nothing, so it is safe to register
// unconditionally.
//
// What upstream keeps of a stream others changed, so does the module
// (hco.ContentKeeper): its lookup policy, its docker image repository, and
// each tag's annotations, reference, generation, reference policy and
// source namespace (the tags matched by name); a tag's source and import
// policy are put back, and a tag the files do not have is removed, as
// upstream removes it. A stream of one of its names that is somebody
// else's, without the operator's label or its HyperConverged's owner
// record, is left alone, as upstream leaves it (hco.Yielder): never
// written, moved or deleted; the operator's is made once the name is free.
//
// Their namespace is the HyperConverged's to name, so the module names
// hco.AnyNamespace for its kind (hco.OtherNamespacer): the operator caches,
// prunes and deletes its ImageStreams cluster-wide, by its labels and owner
// record (the owner annotations: an owner reference cannot cross
// namespaces), and holds its permissions on them in every namespace, as
// upstream does.
//
// The streams come from the constructor, New; Load reads them from
// upstream's file layout (a directory of YAML files, one object each,
// walked recursively), with an error naming a file it cannot take. The
// stock binary reads them with Load from --imagestream-dir (upstream's
// imageStreams/ under its working directory); hcokit ships none, and
// upstream's stock image has none either.
//
// This package only computes; it must not call the API server, read the
// environment or hold state. Load reads only the fs.FS it is given.
package imagestream
