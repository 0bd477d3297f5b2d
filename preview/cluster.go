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
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/clustertls"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/jsonpatch"
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
}

// NewCluster previews the writes of an operator with the operands of reg
// and the environment env through c, whose scheme must hold every operand
// kind (hco.NewScheme with the operands' scheme adders). c itself is used
// only to read; every write goes through client.NewDryRunClient(c).
// env.Namespace is the operator namespace.
func NewCluster(c client.Client, reg *hco.Registry, env hco.Environment) (*Cluster, error) {
	if env.Namespace == "" {
		return nil, errors.New("preview: Environment.Namespace is required")
	}
	return &Cluster{dryRun: client.NewDryRunClient(c), reader: c, mapper: c.RESTMapper(), reg: reg, env: env}, nil
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
// reads them: the nodes' labels (their metadata, one list), the golden
// images' schedule hc's status records, where the cluster serves OpenShift's
// APIServer configuration its TLS profile, and an operand object another
// operand's build follows (Facts.Observed: a get each, of the objects with
// the operator's labels only).
func (c *Cluster) Facts(ctx context.Context, hc *hcov1.HyperConverged) (hco.Facts, error) {
	nodes := &metav1.PartialObjectMetadataList{}
	nodes.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("NodeList"))
	if err := c.reader.List(ctx, nodes); err != nil {
		return hco.Facts{}, fmt.Errorf("list the nodes (their labels are the node facts): %w", err)
	}
	nf := nodefacts.From(nodes.Items, hc.Spec.WorkloadPlacement())
	f := hco.Facts{Environment: c.env, Nodes: &nf, DataImportSchedule: hc.Status.DataImportSchedule, Observed: c.observed(ctx)}
	served, err := clustertls.Served(c.mapper)
	if err != nil {
		return f, err
	}
	if served {
		if f.ClusterTLSProfile, err = clustertls.Profile(ctx, c.reader); err != nil {
			return f, err
		}
	}
	return f, nil
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
	operands           []string
	// managed are the objects of the kind the operator manages, listed
	// once, by namespace/name.
	managed map[client.ObjectKey]*unstructured.Unstructured
	listed  bool
}

// Changes returns every operand object of hc, as Objects: each desired
// object built as the reconciler builds it with facts, and what the API
// server answers to its write, sent as the reconciler would send it (a
// create, or the update hco.UpdateFor builds; none when the object holds
// what is desired already) as a server-side dry run; then the managed
// objects the reconciler would prune, as deleted. notes say what the
// reconciler would leave alone (an operand waiting for its API). An
// operand that cannot build its objects (an invalid HyperConverged) and a
// refused dry run are errors, all of them joined, naming the operand and
// the object.
//
// Requests: one list per served operand kind and at most one dry run per
// desired object (none for one in sync), except for an object whose
// managed-by labels were edited away (not listed, but there): its dry-run
// create finds it, as the reconciler's create does, and a get and a dry-run
// update follow.
func (c *Cluster) Changes(ctx context.Context, hc *hcov1.HyperConverged, facts hco.Facts) (objs []Object, notes []string, err error) {
	kinds, ordered, err := c.kinds()
	if err != nil {
		return nil, nil, err
	}
	owner, err := hco.OwnerFor(ctx, c.reader, hc)
	if err != nil {
		return nil, nil, err
	}
	desired := map[schema.GroupVersionKind]map[client.ObjectKey]bool{}
	protected := map[schema.GroupVersionKind]bool{}
	var errs []error
	for _, op := range c.reg.Operands() {
		want, err := hco.DesiredObjects(op, hc, facts)
		if err != nil {
			errs = append(errs, fmt.Errorf("operand %s: %w", op.Name(), err))
			protect(protected, kinds, op.Name())
			continue
		}
		if missing := notServed(want, kinds); len(missing) > 0 {
			notes = append(notes, fmt.Sprintf("operand %s waits for its API (%v is not served): the operator writes none of its objects and deletes none until the CRD is installed", op.Name(), missing))
			protect(protected, kinds, op.Name())
			continue
		}
		patch, ops := patchOf(op, hc)
		for i, w := range want {
			k := kinds[w.GroupVersionKind()]
			key := client.ObjectKeyFromObject(w)
			if desired[k.gvk] == nil {
				desired[k.gvk] = map[client.ObjectKey]bool{}
			}
			desired[k.gvk][key] = true
			o, err := c.write(ctx, op, k, owner, w)
			if err != nil {
				if i == 0 && patch != "" && (apierrors.IsInvalid(err) || apierrors.IsBadRequest(err)) {
					err = fmt.Errorf("annotation %q: the API server refuses the object it patches: %w; fix the patch or remove the annotation", patch, err)
				}
				errs = append(errs, fmt.Errorf("operand %s: %w", op.Name(), err))
				protect(protected, kinds, op.Name())
				continue
			}
			if i == 0 && patch != "" {
				o.JSONPatch, o.JSONPatchOps = patch, ops
			}
			objs = append(objs, o)
		}
	}
	if len(errs) > 0 {
		return nil, notes, errors.Join(errs...)
	}
	for _, k := range ordered {
		if !k.served || protected[k.gvk] {
			continue
		}
		if err := c.list(ctx, k, owner); err != nil {
			return nil, notes, err
		}
		for key, live := range k.managed {
			if desired[k.gvk][key] || !live.GetDeletionTimestamp().IsZero() {
				continue
			}
			labels, annotations := hco.OwnedMetadata(live)
			objs = append(objs, Object{GVK: k.gvk, Namespace: key.Namespace, Name: key.Name,
				Live: document(live, metadataKeys{labels: labels, annotations: annotations})})
		}
	}
	return objs, notes, nil
}

// write sends want as the reconciler would, as a dry run, and returns the
// object before and after.
func (c *Cluster) write(ctx context.Context, op hco.Operand, k *kind, owner hco.Owner, want *unstructured.Unstructured) (Object, error) {
	o := Object{GVK: k.gvk, Namespace: want.GetNamespace(), Name: want.GetName()}
	if err := c.list(ctx, k, owner); err != nil {
		return o, err
	}
	key := client.ObjectKeyFromObject(want)
	live := k.managed[key]
	if live == nil {
		created := want.DeepCopy()
		err := c.dryRun.Create(ctx, created, strict, client.FieldOwner(hco.FieldOwner))
		if err == nil {
			o.Merged = document(created, ownedKeys(created))
			return o, nil
		}
		if !apierrors.IsAlreadyExists(err) {
			return o, fmt.Errorf("dry run of the create of %s: %w", o, err)
		}
		// It exists without the labels the operator lists by (edited away).
		live = &unstructured.Unstructured{}
		live.SetGroupVersionKind(k.gvk)
		if err := c.reader.Get(ctx, key, live); err != nil {
			return o, fmt.Errorf("get %s: %w", o, err)
		}
		if claimed, by := owner.Claims(live); !claimed {
			return o, fmt.Errorf("%s belongs to %s: the operator leaves it as it is and reports the conflict", o, by)
		}
	}
	merged := live
	if update, write := hco.UpdateFor(op, live, want); write {
		if err := c.dryRun.Update(ctx, update, strict, client.FieldOwner(hco.FieldOwner)); err != nil {
			return o, fmt.Errorf("dry run of the update of %s: %w", o, err)
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

// list lists the objects of k that owner's HyperConverged manages, once: as
// the reconciler's cache holds them (the managed-by and app labels;
// namespaced kinds in its namespace only), and only those owner claims
// (another install's are not the operator's to update or prune).
func (c *Cluster) list(ctx context.Context, k *kind, owner hco.Owner) error {
	if k.listed {
		return nil
	}
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(k.gvk.GroupVersion().WithKind(k.gvk.Kind + "List"))
	opts := []client.ListOption{client.MatchingLabels{hco.LabelManagedBy: hco.ManagedByValue, hco.LabelApp: owner.Name}}
	if k.namespaced {
		opts = append(opts, client.InNamespace(owner.Namespace))
	}
	if err := c.reader.List(ctx, list, opts...); err != nil {
		return fmt.Errorf("list %s: %w", k.gvk.Kind, err)
	}
	k.managed = make(map[client.ObjectKey]*unstructured.Unstructured, len(list.Items))
	for i := range list.Items {
		u := &list.Items[i]
		if claimed, _ := owner.Claims(u); !claimed {
			continue
		}
		u.SetGroupVersionKind(k.gvk)
		k.managed[client.ObjectKeyFromObject(u)] = u
	}
	k.listed = true
	return nil
}

// kinds returns the enabled operands' kinds, with whether and how the
// cluster serves them, by kind and in registry order.
func (c *Cluster) kinds() (map[schema.GroupVersionKind]*kind, []*kind, error) {
	out := map[schema.GroupVersionKind]*kind{}
	var ordered []*kind
	for _, op := range c.reg.Operands() {
		for _, obj := range op.Kinds() {
			gvk, err := apiutil.GVKForObject(obj, c.dryRun.Scheme())
			if err != nil {
				return nil, nil, fmt.Errorf("operand %s: %w", op.Name(), err)
			}
			k := out[gvk]
			if k == nil {
				k = &kind{gvk: gvk}
				m, err := c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
				switch {
				case meta.IsNoMatchError(err):
				case err != nil:
					return nil, nil, fmt.Errorf("look up the API of %s: %w", gvk, err)
				default:
					k.served, k.namespaced = true, m.Scope.Name() == meta.RESTScopeNameNamespace
				}
				out[gvk] = k
				ordered = append(ordered, k)
			}
			k.operands = append(k.operands, op.Name())
		}
	}
	return out, ordered, nil
}

// protect keeps every kind of the operand named from being pruned, as the
// reconciler does for an operand that fails or waits.
func protect(protected map[schema.GroupVersionKind]bool, kinds map[schema.GroupVersionKind]*kind, operand string) {
	for gvk, k := range kinds {
		for _, name := range k.operands {
			if name == operand {
				protected[gvk] = true
			}
		}
	}
}

// notServed lists the kinds of objs the cluster does not serve.
func notServed(objs []*unstructured.Unstructured, kinds map[schema.GroupVersionKind]*kind) []string {
	var out []string
	for _, o := range objs {
		if k := kinds[o.GroupVersionKind()]; k == nil || !k.served {
			out = append(out, o.GroupVersionKind().String())
		}
	}
	return out
}

// patchOf returns op's jsonpatch annotation in effect on hc and its number
// of operations; "" when none.
func patchOf(op hco.Operand, hc *hcov1.HyperConverged) (string, int) {
	p, ok := op.(hco.JSONPatcher)
	if !ok || !jsonpatch.IsSet(hc.GetAnnotations()[p.JSONPatchAnnotation()]) {
		return "", 0
	}
	ops, err := jsonpatch.Parse(p.JSONPatchAnnotation(), hc.GetAnnotations()[p.JSONPatchAnnotation()])
	if err != nil {
		return "", 0
	}
	return p.JSONPatchAnnotation(), len(ops)
}
