// Package hco is the core of the hcokit SDK: the [Operand] interface each
// component module implements, the [Registry] a distribution assembles its
// operands in, the [Environment] read once in main, the labels every
// operand sets, the [Plan], and the [Reconciler] that carries it out.
//
// Operands only compute: a HyperConverged plus [Facts] in, desired objects
// out; observed objects in, an [hcostatus.Component] out. The reconciler
// owns the one path that reads, creates, updates and deletes.
//
// # The write path
//
// The HyperConverged owns each operand CR's spec, as upstream HCO: the spec
// is what the operator built (jsonpatch annotation applied, see
// [DesiredObjects]) plus what the CRD defaults; any other spec edit is
// reverted. Labels and annotations the operator sets are enforced, one it
// no longer sets is removed, others' stay; status is never written.
//
// Whole-object updates of the wire form, not server-side apply: apply keeps
// a spec field another manager set, and the contract reverts it, as
// upstream does. Objects are cached, compared and written unstructured, so
// a field our Go types (the cnao and hpp mirrors) lack is never dropped.
// The managedFields of field manager [FieldOwner] say which labels and
// annotations the operator set, and strict field validation makes the API
// server refuse a field its CRD does not know instead of pruning it.
//
// # Memories
//
// What the operator remembers between reconciles, counted here, each with
// why and when it is dropped. All live in this process only and start
// empty: a restart costs at most one request per object, never a wrong
// write.
//
//  1. The applier's memo (package memo: Memo's entries): what the API server
//     stored from each object the operator wrote, its defaults included, so
//     that an object in sync costs no request and no comparison. Dropped
//     when the object is deleted or its kind's API goes.
//  2. The memo's entry for the HyperConverged's last status write (the
//     resourceVersion it replaced): a reconcile that starts before that
//     write's event sends no status patch over the stale copy. Replaced by
//     each status write.
//  3. The objects operands leave alone ([Yielder]; Memo's left), so that
//     yielding is reported once. Replaced each time an object is left.
//  4. Typed forms (Memo's typed): each object's Go form at its
//     resourceVersion, for the operands' Status. Dropped with the entry.
//  5. The build memo (memo.Builds): each operand's last build
//     and its input (the HyperConverged's generation and metadata, the
//     facts), so that an operand object's event, or the operator's own
//     status write, builds nothing again. Replaced when the input changes.
//  6. Kind.Served (package served): whether the API server serves the
//     kind. Changed by a CRD change and discovery's answer.
//  7. Kind.Touched: that an event came for one of the kind's objects since
//     the last reconcile, whose operands then go first. Taken by the next
//     reconcile.
//  8. Kind.Announced: that an operand was reported waiting for the kind, so
//     that the Event is sent once. Cleared when the kind is served.
//  9. The marked groups (served.Kinds): which API groups a CRD change
//     touched, with their retry backoff, so that discovery is asked once
//     per CRD change, not per reconcile. Cleared once discovery answered.
//  10. The node index (package nodefacts): the Nodes' labels the node facts
//     are computed from, kept current by the Node watch (else a list of
//     every Node).
//  11. restmapping.Remembering (hco/internal/restmapping): the REST mappings
//     once found, which the cache asks on every read. Never dropped, as the
//     dynamic mapper keeps them.
//
// The extensions keep theirs, each named in its package's doc (the
// upgrade's: that the switch from upstream's install was looked for).
//
// Where the platform answers (resourceVersion, generation, managedFields),
// it is asked instead; what a build follows is a fact ([GatherFacts]). The
// operator's own status is read back only where upstream makes it the
// record: status.dataImportSchedule ([Facts.DataImportSchedule]) and
// status.versions (the version an upgrade starts from).
//
// # Follow one field
//
// From spec.virtualization.liveMigrationConfig.parallelMigrationsPerCluster
// to the API server, the ten functions of ours the value passes through on
// a spec change's reconcile:
//
//  1. [Reconciler.Reconcile] reads the HyperConverged from the cache and
//     gives each operand its turn (inTurns, which runs the operands and
//     never sees the value);
//  2. reconcileOperand plans the operand and executes its steps;
//  3. [PlanOperand] builds the operand's objects and plans each over the
//     cache;
//  4. desiredObjects builds when the input changed (else the build memo's
//     objects), calling the operand's Desired:
//  5. kubevirt.Operand.Desired builds the KubeVirt, where
//  6. [migration.ForKubeVirt] translates the field;
//  7. [wireform.Of] turns the KubeVirt into its wire form (and applies the
//     jsonpatch, [jsonpatch.Apply], when one is set);
//  8. planObject compares it with the stored KubeVirt (the memo, the values
//     others fill in kept by [wireform.Keep]) and builds the update:
//  9. [wireform.Merge] lays the content over the stored object;
//  10. applier.execute sends it (client.Update) and remembers what was
//     stored.
//
// [ExamplePlanOperand] walks steps 3 to 9 through the public API.
//
// # The plan
//
// [NewPlan] (and [PlanOperand], one operand's part) decides, without a
// request, from a [View] of the cluster, each object to create, update,
// keep or delete, the operands waiting for their API and those that cannot
// build. The reconciler plans each operand over its cache and executes the
// steps in the operand's turn; `hco-operator diff` (package preview) sends
// them as server-side dry runs; the webhook dry-runs the components' CRs'.
//
// # Whose object
//
// The labels are upstream HCO's, so another install (upstream's, or a
// second hcokit in another namespace) carries the very same ones: labels
// select what to cache and list, and only an owner record decides what is
// the operator's to write, prune or delete ([Owner]). Everything the
// operator writes records its HyperConverged: an owner reference on a
// namespaced object in its namespace, [OwnerAnnotation] and
// [OwnerUIDAnnotation] otherwise ([OtherNamespacer]). An object without a
// record (upstream made it) is adopted by the HyperConverged of its
// namespace, or, cluster-scoped or elsewhere, by the cluster's eldest
// HyperConverged, and gets the record with the next write it needs: an
// in-place switch from upstream costs no extra write. Another install's
// object is left alone (OwnedByAnotherInstall). Deletions carry a UID
// precondition. The finalizer is stored before any operand object exists,
// so uninstall needs no memory: it deletes what the HyperConverged owns.
//
// # Extensions
//
// A feature of a platform or an install that is not the core's is an
// [Extension], plugged in through package manager's Options.Extensions, each a
// package of extensions/ with its RBAC and tests: openshift (platform
// facts), upgrade (from upstream), sharedlists, olm, descheduler,
// storedversions. The core calls each at one place: what it caches and
// watches when the manager is made, its facts in [GatherFacts] ([FactGatherer]: for
// the reconciler, the preview and the webhook alike), Before the operands,
// [AfterOperands], [Uninstaller], and Reconciled with the status about to
// be written; `hco-operator diff` shows a [ListChanger]'s writes. The stock
// set is extensions.Stock(); a distribution without OLM links no OLM code.
//
// This package must not read the process environment, hold package-level
// mutable state, or store a context.
package hco
