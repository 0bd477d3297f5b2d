// Package quickstart is the operand module for the console's quick starts
// on OpenShift: the ConsoleQuickStart objects (console.openshift.io/v1,
// cluster-scoped) a distribution gives, as upstream HCO at 03da3cf deploys
// them (controllers/handlers/quickStart.go): each with its name, its
// annotations and its spec as given, and upstream's labels
// (hco.Labels, component compute) in place of its own. The spec is kept as
// given: an edit is put back. The objects are made only where the platform
// is OpenShift (hco.Facts.Platform; and, hco.OpenShiftOnly, the operator
// leaves the module out elsewhere, the kind not even looked up); without
// quick starts the module wants nothing, so it is safe to register
// unconditionally. A quick start no longer given is deleted (upstream
// deletes its own on an upgrade), and all are deleted with the
// HyperConverged.
//
// The quick starts come from the constructor, New; Load reads them from
// upstream's file layout (a directory of YAML files, one object each,
// walked recursively), with an error naming a file it cannot take. The
// stock binary reads them with Load from --quickstart-dir (upstream's
// quickStart/ under its working directory); hcokit ships none, and
// upstream's stock image has none either (its build/Dockerfile copies no
// quickStart/ directory; build/Dockerfile.okd, its CI image, copies one
// test quick start).
//
// This package only computes; it must not call the API server, read the
// environment or hold state. Load reads only the fs.FS it is given.
package quickstart
