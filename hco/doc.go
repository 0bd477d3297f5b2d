// Package hco is the core of the hcokit SDK: the [Operand] interface that
// each component module implements, the [Registry] a distribution assembles
// its operands in, the [Environment] read once in main and passed down, and
// the labels every operand sets.
//
// Operands only compute: a HyperConverged plus [Facts] (the Environment and
// what is known of the cluster) in, desired objects out; observed objects
// in, an [hcostatus.Component] out (package hcostatus aggregates those into
// the HyperConverged's conditions). The reconciler owns the one path that reads,
// creates, updates and deletes.
//
// # The write path
//
// The HyperConverged owns each operand CR's spec, as upstream HCO: the spec
// is what the operator built (jsonpatch annotation applied, see
// [DesiredObjects]) plus what the CRD defaults, and any other spec edit is
// reverted. Labels and annotations the operator sets are enforced, one it no
// longer sets is removed, others' stay; status is never written.
//
// Why whole-object updates of the wire form and not server-side apply:
// apply keeps a spec field another manager set, and the contract reverts
// it, as upstream does; an update that replaces the spec does exactly that,
// and the API server defaults it again. The objects are cached, compared and
// written unstructured, so a field our Go types (the cnao and hpp mirrors)
// lack is never dropped. Two platform records answer the remaining
// questions: the managedFields of field manager [FieldOwner] say which
// labels and annotations the operator set (the cache keeps only those
// entries), and strict field validation makes the API server refuse a field
// its CRD does not know instead of pruning it.
//
// What the operator remembers between reconciles: eleven memories, this
// list is where they are counted, each with why and when it is dropped.
// All live in this process only and start empty: a restart costs at most
// one request per object, never a wrong write.
//
//  1. the applier's memo (apply.go: memo): what the API server stored from
//     each object the operator wrote, its defaults included, so that an
//     object in sync costs no request and no comparison. Dropped when the
//     object is deleted or its kind's API goes.
//  2. the memo's entry for the HyperConverged's last status write (its
//     replaced resourceVersion), so that a reconcile that starts before that
//     write's event sends no status patch the API server would refuse.
//     Replaced by each status write.
//  3. left (apply.go): the objects operands leave alone (Yielder), so that
//     yielding is reported once. Replaced each time an object is left.
//  4. typed forms (apply.go: typed): each object's Go form at its
//     resourceVersion, for the operands' Status. Dropped with the memo's
//     entry.
//  5. builtObjects (operand.go): each operand's last build and its input
//     (the HyperConverged's generation and metadata, the facts), so that an
//     event of an operand object, or the operator's own status write,
//     builds nothing again. Replaced when the input changes.
//  6. operandKind.served (cache.go): whether the API server serves the kind.
//     Changed by a CRD event (apis.go).
//  7. operandKind.touched (cache.go): that an event came for one of the
//     kind's objects since the last reconcile, whose operands then go
//     first. Cleared by the reconcile that reads it.
//  8. operandKind.announced (cache.go): that an operand was reported
//     waiting for the kind, so that the Event is sent once. Cleared when the
//     kind is served.
//  9. apiGroups (apis.go): which API groups a CRD change has touched, with
//     their retry backoff: the platform's discovery, asked once per CRD
//     change, not per reconcile. Cleared once discovery answered.
//  10. the node index (package nodefacts): the Nodes' labels the node facts
//     are computed from, which would otherwise cost a list of every Node.
//     Kept current by the Node watch.
//  11. restmapping.Remembering (hco/internal/restmapping): the REST
//     mappings once found, which the cache asks on every read. Never
//     dropped: a mapping found stays, as the dynamic mapper keeps it.
//
// The extensions keep theirs, each named in its package's doc: the upgrade's
// one (extensions/upgrade: that the switch from upstream's install was
// looked for, once per process).
//
// Where the platform answers the question (resourceVersion, generation,
// managedFields), it is asked instead. What an operand's build follows is a
// fact, read from the cluster when the facts are gathered ([GatherFacts]:
// the node index, [Facts.Observed] from the operator's cache, the platform
// configurations). The status the operator writes is read back as input in
// two places only, each where upstream's semantics make the status the
// record: status.dataImportSchedule, the golden images' random schedule
// drawn once and kept there (a fact, [Facts.DataImportSchedule], gathered
// with the others), and status.versions, the version an upgrade starts
// from (Upgrading, and extensions/upgrade's patches). A status write needs
// no reconcile after it. The memo's one entry for the
// HyperConverged (the version its last status write replaced) keeps a
// reconcile that starts before that write's event from sending a patch
// over the stale copy; the patch carries the copy's resourceVersion
// anyway, so a stale copy never overwrites a newer status. An operand
// object's event at a version the memo holds in sync (the echo of the
// operator's own write) reconciles nothing.
//
// # Follow one field
//
// From spec.virtualization.liveMigrationConfig.parallelMigrationsPerCluster
// to the API server, every function of ours the value passes through on a
// spec change's reconcile (eleven in the core and wireform, four in the
// operand):
//
//  1. [Reconciler.Reconcile] reads the HyperConverged from the cache (and
//     defers patchStatus, the one status write);
//  2. reconcileOperands gives each operand its turn, in registry order;
//  3. reconcileOperand plans the operand and executes its steps;
//  4. [PlanOperand] builds the operand's objects and plans each over the
//     cache (cacheView);
//  5. builtObjects.build builds only when the input changed, calling
//  6. desiredObjects, which checks the labels and calls the operand's
//     Desired: kubevirt.Operand.Desired, kubevirt.Build,
//     kubevirt.configuration, where [migration.ForKubeVirt] translates the
//     field (the operand's four);
//  7. [wireform.Of] turns the KubeVirt into its wire form, applying the
//     jsonpatch ([jsonpatch.Apply]) when one is set;
//  8. planObject compares it with the stored KubeVirt (the applier's memo
//     through recall, the values others fill in kept by [wireform.Keep]);
//  9. updateOf builds the update: [wireform.Merge] lays the content over
//     the stored object;
//  10. applier.execute sends it (client.Update) and remembers what was
//     stored.
//
// Four changes of form: the HyperConverged (typed) → the KubeVirt (typed) →
// its wire form (unstructured, written) → the typed form for the operand's
// Status ([wireform.Typed]). [ExamplePlanOperand] walks steps 4 to 9
// through the public API: the field set, the update planned over the
// stored KubeVirt.
//
// # The plan
//
// [NewPlan] (and [PlanOperand], one operand's part) is what the operator
// does for a HyperConverged, decided without a request from a [View] of the
// cluster: each object to create, update (with the update to send), keep
// or delete, the operands waiting for their API, the ones that cannot
// build. The reconciler plans each operand with PlanOperand itself (over
// its cache, with its build memo and the applier's memo as the View's
// memories), executes the steps (applier.execute) in the operand's turn,
// protects a failing operand's kinds as NewPlan does (protect), and prunes
// the deletions of the same operand set (PlatformOperands); `hco-operator diff`
// (package preview) sends the steps as server-side dry runs; the webhook
// dry-runs the updates of the components' CRs. One implementation of the
// decision, the listing, the protection of waiting operands' kinds and the
// jsonpatch serves all three.
//
// # Whose object
//
// The labels are upstream HCO's, so another install on the cluster
// (upstream's, or a second hcokit in another namespace) carries the very
// same ones: labels select what to cache and list, and only an owner record
// decides what is the operator's to write, prune or delete (see [Owner]).
// Everything the operator writes records its HyperConverged: an owner
// reference on a namespaced object in its namespace, the [OwnerAnnotation]
// and [OwnerUIDAnnotation] on a cluster-scoped one or one in another
// namespace ([OtherNamespacer]). An object without a record (upstream made
// it) is adopted by the HyperConverged of its namespace, or, cluster-scoped
// or in another namespace, by the cluster's eldest HyperConverged only, and
// gets the record with the next write it needs, not by a write of its own: an
// in-place switch from upstream costs no extra write. An object of another
// install is left alone, and its operand reports OwnedByAnotherInstall.
// Deletions carry a UID precondition.
//
// The finalizer is stored before any operand object exists (a mutating
// webhook adds it at create; the reconciler adds it first otherwise), so
// uninstall needs no memory: it deletes what the HyperConverged owns.
//
// # Extensions
//
// A feature of a platform or an install that is not the core's is an
// [Extension], plugged in through [ManagerOptions].Extensions, each a
// package of extensions/ with its RBAC and tests: the OpenShift platform
// facts (openshift), the upgrade from upstream (upgrade), the shared lists
// (sharedlists), OLM's OperatorCondition (olm), the descheduler metric
// (descheduler), the stored-version migration (storedversions). The core
// calls each at one place: what it caches and its runnables and watches at
// [NewManager] (told the [Install]), its facts in [GatherFacts]
// ([FactGatherer]: for the reconciler, the preview and the webhook alike),
// Before the operands, [AfterOperands], on [Uninstaller] before the operand
// objects go, and Reconciled with the status about to be written;
// `hco-operator diff` shows a [ListChanger]'s writes. The stock set is
// extensions.Stock(); a distribution without OLM links no OLM code, and
// one without extensions runs the core alone.
//
// This package must not read the process environment, hold package-level
// mutable state, or store a context.
package hco
