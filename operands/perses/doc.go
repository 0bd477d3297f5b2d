// Package perses is the operand module of the Perses dashboards and
// datasource that upstream HCO at 03da3cf deploys on OpenShift
// (controllers/perses): the six PersesDashboards of OpenShift
// Virtualization and the PersesDatasource "perses-thanos-datasource" that
// reads the cluster monitoring's Thanos Querier (perses.dev/v1alpha1, the
// API of the Perses operator, rhobs/perses-operator, which a cluster has
// only when an add-on installs it). Upstream's resource files are embedded
// (resources/, copied from upstream at that commit); a distribution gives
// its own with WithDashboards and WithDatasources.
//
// The objects are built as upstream builds them: each file's object, in the
// HyperConverged's namespace, with the operator's labels (component
// "monitoring"), its content as in the file. They are unstructured: hcokit
// does not import the Perses operator's Go module, and the wire form keeps
// every field of the file.
//
// It deploys on OpenShift only (hco.OpenShiftOnly). The Perses API is an
// add-on's: the stock binary turns the module on only where the API server
// serves it (hco.Registry.OnlyWhereServed, operands/stock.PlatformDefaults),
// as upstream sets its Perses controller up only when the Perses CRDs
// exist; elsewhere it is skipped and degrades nothing.
//
// Upstream creates them when it starts, whether or not a HyperConverged
// exists, owned by its own Deployment, and leaves them when the
// HyperConverged is deleted; like every operand's objects, hcokit's are
// made for the HyperConverged, owned by it, and removed with it. As
// upstream, an admin's edit of their content or of the operator's labels
// is put back.
//
// What it must not do: read the cluster or the environment.
package perses
