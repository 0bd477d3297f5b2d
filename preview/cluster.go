package preview

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/clustertls"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/nodefacts"
	"github.com/hcokit/hcokit/render"
)

// strict makes the API server refuse a field the CRD does not know, as the
// operator's writes do.
const strict = client.FieldValidation(metav1.FieldValidationStrict)

// HyperConvergedFieldManager is the field manager of the dry-run update of
// the HyperConverged (the admin's write, previewed).
const HyperConvergedFieldManager = "hco-operator-diff"

// Cluster previews the operator's writes on one cluster. Its requests are
// reads and dry runs only.
type Cluster struct {
	// dryRun sends every write as a server-side dry run.
	dryRun client.Client
	reader client.Reader
	mapper meta.RESTMapper
	reg    *hco.Registry
	env    hco.Environment
	// exts add their facts (hco.FactGatherer), as the operator's do.
	exts []hco.Extension
}

// NewCluster previews the writes of an operator with the operands of reg
// and the environment env through c, whose scheme must hold every operand
// kind (hco.NewScheme with the operands' scheme adders). c itself is used
// only to read; every write goes through client.NewDryRunClient(c).
// env.Namespace is the operator namespace. exts are the operator's
// extensions (extensions.Stock for the stock binary): those that gather
// facts add theirs, as they do for the operator.
func NewCluster(c client.Client, reg *hco.Registry, env hco.Environment, exts ...hco.Extension) (*Cluster, error) {
	if env.Namespace == "" {
		return nil, errors.New("preview: Environment.Namespace is required")
	}
	return &Cluster{dryRun: client.NewDryRunClient(c), reader: c, mapper: c.RESTMapper(), reg: reg, env: env, exts: exts}, nil
}

// LiveHyperConverged reads the HyperConverged the operator reconciles.
func (c *Cluster) LiveHyperConverged(ctx context.Context) (*hcov1.HyperConverged, error) {
	hc := &hcov1.HyperConverged{}
	key := client.ObjectKey{Namespace: c.env.Namespace, Name: hcov1.HyperConvergedName}
	if err := c.reader.Get(ctx, key, hc); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("no HyperConverged %s to diff: create it, or give the one to diff with -f: %w", key, err)
		}
		return nil, fmt.Errorf("read HyperConverged %s: %w", key, err)
	}
	return hc, nil
}

// DryRunHyperConverged sends obj, a HyperConverged of either API version as
// an admin wrote it (the whole object, as kubectl replace takes it), to the
// API server as a server-side dry run: an update of the live one, or a
// create when there is none. The CRD's defaults, the conversion and the
// admission webhooks apply; the API server's warnings go to the client's
// warning handler, and its refusal is the error, as it gave it. Without a
// name or namespace, obj gets the operator's; the live object's
// finalizers and owner references stay when obj has none (an apply would
// not remove them). It returns the result as the hub (v1). obj is not
// changed.
func (c *Cluster) DryRunHyperConverged(ctx context.Context, obj *unstructured.Unstructured) (*hcov1.HyperConverged, error) {
	obj = obj.DeepCopy()
	gvk := obj.GroupVersionKind()
	if gvk.Kind != "HyperConverged" || (gvk.GroupVersion() != hcov1.GroupVersion && gvk.GroupVersion() != v1beta1.GroupVersion) {
		return nil, fmt.Errorf("apiVersion %q, kind %q: want kind HyperConverged of apiVersion %s or %s", obj.GetAPIVersion(), gvk.Kind, hcov1.GroupVersion, v1beta1.GroupVersion)
	}
	if obj.GetName() == "" {
		obj.SetName(hcov1.HyperConvergedName)
	}
	if obj.GetNamespace() == "" {
		obj.SetNamespace(c.env.Namespace)
	}
	if obj.GetName() != hcov1.HyperConvergedName || obj.GetNamespace() != c.env.Namespace {
		return nil, fmt.Errorf("metadata: HyperConverged %s/%s is not reconciled: the operator reconciles only %q in namespace %q; set metadata.name and metadata.namespace to those (or leave them out)",
			obj.GetNamespace(), obj.GetName(), hcov1.HyperConvergedName, c.env.Namespace)
	}
	delete(obj.Object, "status")
	live := &unstructured.Unstructured{}
	live.SetGroupVersionKind(gvk)
	err := c.reader.Get(ctx, client.ObjectKeyFromObject(obj), live)
	switch {
	case apierrors.IsNotFound(err):
		obj.SetResourceVersion("")
		err = c.dryRun.Create(ctx, obj, strict, client.FieldOwner(HyperConvergedFieldManager))
	case err != nil:
		return nil, fmt.Errorf("read HyperConverged %s: %w", client.ObjectKeyFromObject(obj), err)
	default:
		obj.SetResourceVersion(live.GetResourceVersion())
		obj.SetUID(live.GetUID())
		if len(obj.GetFinalizers()) == 0 {
			obj.SetFinalizers(live.GetFinalizers())
		}
		if len(obj.GetOwnerReferences()) == 0 {
			obj.SetOwnerReferences(live.GetOwnerReferences())
		}
		err = c.dryRun.Update(ctx, obj, strict, client.FieldOwner(HyperConvergedFieldManager))
	}
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(obj.Object)
	if err != nil {
		return nil, err
	}
	d, err := render.DecodeAdmitted(raw, gvk.GroupVersion())
	if err != nil {
		return nil, fmt.Errorf("the HyperConverged the API server returned: %w", err)
	}
	return d.HC, nil
}

// Facts reads the facts the reconciler gives the operands for hc, as it
// reads them (hco.GatherFacts): the nodes' labels (their metadata, one
// list), the golden images' schedule hc's status records, on OpenShift the
// platform facts (its Ingress, Network and DNS configurations, and the
// serving certificates of the component routes), where the cluster serves
// OpenShift's APIServer configuration its TLS profile, and an operand
// object another operand's build follows (Facts.Observed: a get each, of
// the objects with the operator's labels only).
func (c *Cluster) Facts(ctx context.Context, hc *hcov1.HyperConverged) (hco.Facts, error) {
	return c.facts(ctx, hc, c.reader)
}

// facts is Facts, reading the component routes' certificate Secrets
// through secrets (nil: not read, as the webhook's check does).
func (c *Cluster) facts(ctx context.Context, hc *hcov1.HyperConverged, secrets client.Reader) (hco.Facts, error) {
	openShift, err := hco.OpenShift(c.mapper)
	if err != nil {
		return hco.Facts{}, err
	}
	served, err := clustertls.Served(c.mapper)
	if err != nil {
		return hco.Facts{}, err
	}
	return hco.GatherFacts(ctx, hc, hco.FactSources{Env: c.env, Reader: c.reader, Direct: secrets, OpenShift: openShift, ClusterTLS: served,
		Observed: c.observed(ctx), Extensions: c.exts,
		Nodes: func(workload *hcov1.NodePlacement) (nodefacts.Facts, error) {
			nodes := &metav1.PartialObjectMetadataList{}
			nodes.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("NodeList"))
			if err := c.reader.List(ctx, nodes); err != nil {
				return nodefacts.Facts{}, fmt.Errorf("list the nodes (their labels are the node facts): %w", err)
			}
			return nodefacts.From(nodes.Items, workload), nil
		}})
}

// observed is Facts.Observed read from the cluster: an object that carries
// the operator's labels, as the reconciler's cache holds only those.
func (c *Cluster) observed(ctx context.Context) func(schema.GroupVersionKind, client.ObjectKey) (*unstructured.Unstructured, bool) {
	return func(gvk schema.GroupVersionKind, key client.ObjectKey) (*unstructured.Unstructured, bool) {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		if err := c.reader.Get(ctx, key, u); err != nil || !hco.ManagedSelector().Matches(labels.Set(u.GetLabels())) {
			return nil, false
		}
		return u, true
	}
}

// kind is an operand kind as the cluster serves it.
type kind struct {
	gvk                schema.GroupVersionKind
	served, namespaced bool
	// managed are the objects of the kind the operator manages, listed
	// once, by namespace/name.
	managed map[client.ObjectKey]*unstructured.Unstructured
	listed  bool
	err     error
}

// view is hco.View of the cluster, read once per Changes: the served kinds
// from the REST mapper, the managed objects of each listed as the
// reconciler's cache holds them.
type view struct {
	c     *Cluster
	owner hco.Owner
	kinds map[schema.GroupVersionKind]*kind
	// others are the namespaces besides the operator's where the operands
	// put objects of a namespaced kind (hco.Registry.OtherNamespaces).
	others map[schema.GroupVersionKind][]string
}

var _ hco.View = (*view)(nil)

func (v *view) kind(gvk schema.GroupVersionKind) *kind {
	if k := v.kinds[gvk]; k != nil {
		return k
	}
	k := &kind{gvk: gvk}
	m, err := v.c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	switch {
	case meta.IsNoMatchError(err):
	case err != nil:
		k.err = fmt.Errorf("look up the API of %s: %w", gvk, err)
	default:
		k.served, k.namespaced = true, m.Scope.Name() == meta.RESTScopeNameNamespace
	}
	v.kinds[gvk] = k
	return k
}

// Served implements hco.View. A kind whose API could not be looked up is
// taken as served: its list then reports the error.
func (v *view) Served(gvk schema.GroupVersionKind) bool {
	k := v.kind(gvk)
	return k.served || k.err != nil
}

// Live implements hco.View: the managed object at key; nil also when the
// list failed (Managed, asked for the deletions, reports the error).
func (v *view) Live(ctx context.Context, gvk schema.GroupVersionKind, key client.ObjectKey) *unstructured.Unstructured {
	k := v.kind(gvk)
	if v.list(ctx, k) != nil {
		return nil
	}
	return k.managed[key]
}

// Managed implements hco.View.
func (v *view) Managed(ctx context.Context, gvk schema.GroupVersionKind) ([]*unstructured.Unstructured, error) {
	k := v.kind(gvk)
	if err := v.list(ctx, k); err != nil {
		return nil, err
	}
	out := make([]*unstructured.Unstructured, 0, len(k.managed))
	for _, u := range k.managed {
		out = append(out, u)
	}
	return out, nil
}

// list lists the objects of k that the owner's HyperConverged manages, once:
// as the reconciler's cache holds them (the managed-by and app labels;
// namespaced kinds in its namespace and those the operands name for the
// kind only), and only those the owner claims (another install's are not
// the operator's to update or prune).
func (v *view) list(ctx context.Context, k *kind) error {
	if k.err != nil || k.listed {
		return k.err
	}
	k.managed = map[client.ObjectKey]*unstructured.Unstructured{}
	for _, ns := range hco.ListNamespaces(k.namespaced, v.owner.Namespace, v.others[k.gvk]) {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(k.gvk.GroupVersion().WithKind(k.gvk.Kind + "List"))
		labels := client.MatchingLabels{hco.LabelManagedBy: hco.ManagedByValue, hco.LabelApp: v.owner.Name}
		if err := v.c.reader.List(ctx, list, labels, client.InNamespace(ns)); err != nil {
			k.err = fmt.Errorf("list %s: %w", k.gvk.Kind, err)
			return k.err
		}
		for i := range list.Items {
			u := &list.Items[i]
			if claimed, _ := v.owner.Claims(u); !claimed {
				continue
			}
			u.SetGroupVersionKind(k.gvk)
			k.managed[client.ObjectKeyFromObject(u)] = u
		}
	}
	k.listed = true
	return nil
}

// Changes returns every operand object of hc, as Objects: the plan the
// operator follows (hco.NewPlan with facts, over what the cluster holds),
// each create and update sent as a server-side dry run with what the API
// server answers to it, and the objects it would prune, as deleted. notes
// say what the reconciler would leave alone (an operand waiting for its
// API). An operand that cannot build its objects (an invalid
// HyperConverged) and a refused dry run are errors, all of them joined,
// naming the operand and the object.
//
// Requests: one list per served operand kind and at most one dry run per
// desired object (none for one in sync), except for an object whose
// managed-by labels were edited away (not listed, but there): its dry-run
// create finds it, as the reconciler's create does, and a get and a dry-run
// update follow.
func (c *Cluster) Changes(ctx context.Context, hc *hcov1.HyperConverged, facts hco.Facts) (objs []Object, notes []string, err error) {
	owner, err := hco.OwnerFor(ctx, c.reader, hc)
	if err != nil {
		return nil, nil, err
	}
	v := &view{c: c, owner: owner, kinds: map[schema.GroupVersionKind]*kind{}, others: c.reg.OtherNamespaces(c.env.Namespace, facts.Platform.OpenShift)}
	plan, err := hco.NewPlan(ctx, c.reg, hc, facts, v, owner)
	notes = append(plan.Waiting, plan.Skipped...)
	if err != nil {
		return nil, notes, err
	}
	errs := plan.Errors
	failed := map[string]bool{}
	for _, s := range plan.Steps {
		if failed[s.Operand] {
			continue
		}
		o, err := c.send(ctx, v, s)
		if err != nil {
			errs = append(errs, fmt.Errorf("operand %s: %w", s.Operand, err))
			failed[s.Operand] = true
			continue
		}
		objs = append(objs, o)
	}
	lists, err := c.listChanges(ctx, hc, facts)
	if err != nil {
		errs = append(errs, err)
	}
	objs = append(objs, lists...)
	if len(errs) > 0 {
		return nil, notes, errors.Join(errs...)
	}
	return objs, notes, nil
}

// listChanges are the shared lists the operator would change for hc (its
// hco.ListChanger extensions', as they compute their patches), each shown
// as its object with that one list, before and after. They are computed,
// not sent: a merge patch of one list has no dry run that would show more.
func (c *Cluster) listChanges(ctx context.Context, hc *hcov1.HyperConverged, facts hco.Facts) ([]Object, error) {
	in := hco.Install{Env: c.env, OpenShift: facts.Platform.OpenShift, Registry: c.reg, Scheme: c.dryRun.Scheme(), Mapper: c.mapper}
	var out []Object
	var errs []error
	for _, ext := range c.exts {
		lc, ok := ext.(hco.ListChanger)
		if !ok {
			continue
		}
		changes, err := lc.ListChanges(ctx, hc, facts, in, c.reader)
		errs = append(errs, err)
		for _, ch := range changes {
			out = append(out, listObject(ch))
		}
	}
	return out, errors.Join(errs...)
}

// listObject is a shared list's change as the diff shows it: the object's
// apiVersion, kind and name, and the list at its path, before and after.
func listObject(ch hco.ListChange) Object {
	doc := func(list []any) map[string]any {
		var value any = runtime.DeepCopyJSONValue(list)
		for i := len(ch.Target.Path) - 1; i >= 0; i-- {
			value = map[string]any{ch.Target.Path[i]: value}
		}
		m := value.(map[string]any)
		m["apiVersion"], m["kind"] = ch.Target.GVK.GroupVersion().String(), ch.Target.GVK.Kind
		m["metadata"] = map[string]any{"name": ch.Target.Name}
		return m
	}
	return Object{GVK: ch.Target.GVK, Name: ch.Target.Name, Live: doc(ch.Was), Merged: doc(ch.List)}
}

// send sends a step of the plan as a dry run, and returns the object
// before and after.
func (c *Cluster) send(ctx context.Context, v *view, s hco.Step) (Object, error) {
	o := Object{GVK: s.GVK, Namespace: s.Key.Namespace, Name: s.Key.Name, JSONPatch: s.JSONPatch, JSONPatchOps: s.JSONPatchOps}
	if s.Verb != hco.VerbDelete && v.list(ctx, v.kind(s.GVK)) != nil {
		return o, v.list(ctx, v.kind(s.GVK))
	}
	refused := func(verb string, err error) error {
		if blamed := s.RefusedPatch(err); blamed != nil {
			return blamed
		}
		return fmt.Errorf("dry run of the %s of %s: %w", verb, o, err)
	}
	live, update := s.Live, s.Send
	switch s.Verb {
	case hco.VerbDelete:
		o.Live = document(s.Live, ownedKeys(s.Live))
		return o, nil
	case hco.VerbReplace:
		// Deleted, then created again: no dry run shows the pair.
		keys := ownedKeys(s.Live).union(ownedKeys(s.Send))
		o.Live, o.Merged = document(s.Live, keys), document(s.Send, keys)
		return o, nil
	case hco.VerbCreate:
		created := s.Send.DeepCopy()
		var err error
		if unguardable(s.GVK) {
			err = c.reader.Get(ctx, s.Key, &unstructured.Unstructured{Object: map[string]any{"apiVersion": s.GVK.GroupVersion().String(), "kind": s.GVK.Kind}})
			switch {
			case apierrors.IsNotFound(err):
				err = nil
			case err == nil:
				err = apierrors.NewAlreadyExists(schema.GroupResource{Group: s.GVK.Group, Resource: s.GVK.Kind}, s.Key.Name)
			}
		} else {
			err = c.dryRun.Create(ctx, created, strict, client.FieldOwner(hco.FieldOwner))
		}
		if err == nil {
			o.Merged = document(created, ownedKeys(created))
			return o, nil
		}
		if !apierrors.IsAlreadyExists(err) {
			return o, refused("create", err)
		}
		// It exists without the labels the operator lists by (edited away).
		live = &unstructured.Unstructured{}
		live.SetGroupVersionKind(s.GVK)
		if err := c.reader.Get(ctx, s.Key, live); err != nil {
			return o, fmt.Errorf("get %s: %w", o, err)
		}
		again, err := s.Over(live)
		if err != nil {
			return o, err
		}
		update = again.Send
	}
	merged := live
	if update != nil {
		if !unguardable(s.GVK) {
			if err := c.dryRun.Update(ctx, update, strict, client.FieldOwner(hco.FieldOwner)); err != nil {
				return o, refused("update", err)
			}
		}
		merged = update
	}
	keys := ownedKeys(live).union(ownedKeys(merged))
	o.Live, o.Merged = document(live, keys), document(merged, keys)
	return o, nil
}

// ownedKeys are the labels and annotations the operator owns on u.
func ownedKeys(u *unstructured.Unstructured) metadataKeys {
	labels, annotations := hco.OwnedMetadata(u)
	return metadataKeys{labels: labels, annotations: annotations}
}

// unguardable says whether objects of kind gvk are previewed without a dry
// run: the admission policies and their bindings, which the API server never
// passes to an admission policy, so that the reviewers' account may not
// write them at all (config/diff's dry-run-only policy could not hold it,
// and a real write of a binding would switch that policy off). They are
// shown as the operator would send them: without the API server's defaults.
func unguardable(gvk schema.GroupVersionKind) bool {
	if gvk.Group != "admissionregistration.k8s.io" {
		return false
	}
	switch gvk.Kind {
	case "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding", "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding":
		return true
	}
	return false
}
