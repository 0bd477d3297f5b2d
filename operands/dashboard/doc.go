// Package dashboard is the operand module for the console's monitoring
// dashboards on OpenShift: the ConfigMaps a distribution gives (each holding
// a Grafana dashboard's JSON), in openshift-config-managed, the namespace
// the console reads them from, as upstream HCO at 03da3cf deploys them
// (controllers/handlers/dashboard.go): each with its name, namespace,
// annotations, data and binaryData as given, and its labels with
// upstream's (hco.Labels, component compute) set over them. The data is
// kept as given: an edit is put back (as upstream's NewCmHandler does; the
// binaryData too, which upstream does not enforce). The objects are made
// only where the platform is OpenShift (hco.Facts.Platform; and,
// hco.OpenShiftOnly, the operator leaves the module out elsewhere); without
// dashboards the module wants nothing, so it is safe to register
// unconditionally. A dashboard no longer given is deleted while others are
// given (upstream leaves it), and all are deleted with the HyperConverged;
// given none, the module names no namespace and leaves every dashboard
// alone.
//
// The ConfigMaps are outside the HyperConverged's namespace: the module
// names their namespace (hco.OtherNamespacer), so that the operator caches
// and manages its ConfigMaps there, which needs the permissions of
// config/openshift (operands/dashboard/rbac.go); without dashboards, or
// off OpenShift, it names none and needs nothing there.
//
// The dashboards come from the constructor, New; Load reads them from
// upstream's file layout (a directory of YAML files, one ConfigMap each,
// walked recursively), with an error naming a file it cannot take. The
// stock binary reads them with Load from --dashboard-dir (upstream's
// dashboard/ under its working directory); hcokit ships none, and
// upstream's stock image deploys none either: its build/Dockerfile copies
// its dashboards to dashboards/ (plural), which its handler does not read
// (build/Dockerfile.okd, its CI image, copies one test dashboard to
// dashboard/).
//
// This package only computes; it must not call the API server, read the
// environment or hold state. Load reads only the fs.FS it is given.
package dashboard
