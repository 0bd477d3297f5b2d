package stackstatus

import (
	"context"
	"errors"
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hcostatus"
)

// Stack is the status of the virtualization stack of one HyperConverged.
type Stack struct {
	HyperConverged HyperConverged `json:"hyperConverged"`
	// Components are the operands that have objects, in registry order.
	Components []Component `json:"components"`
	// Healthy: the HyperConverged is Available, neither Progressing nor
	// Degraded, its reconcile complete, and no leaf fails.
	Healthy bool `json:"healthy"`
	// FirstFailure is the first failing leaf; nil when Healthy.
	FirstFailure *Failure `json:"firstFailure,omitempty"`
}

// HyperConverged is what the HyperConverged itself reports.
type HyperConverged struct {
	Namespace          string          `json:"namespace"`
	Name               string          `json:"name"`
	Deleting           bool            `json:"deleting,omitempty"`
	SystemHealthStatus string          `json:"systemHealthStatus,omitempty"`
	Versions           []hcov1.Version `json:"versions,omitempty"`
	Conditions         []Condition     `json:"conditions"`
}

// Condition is a condition without its timestamps.
type Condition struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// Component is one operand: how the operator judges it (Available,
// Progressing, Degraded: its Status), and its objects worth a look.
type Component struct {
	Operand         string    `json:"operand"`
	Kind            string    `json:"kind"`
	Available       Condition `json:"available"`
	Progressing     Condition `json:"progressing"`
	Degraded        Condition `json:"degraded"`
	ObservedVersion string    `json:"observedVersion,omitempty"`
	// Objects are its component CR (with its own conditions) and its
	// workloads (with their replicas).
	Objects []Object `json:"objects,omitempty"`
	// Operator is the component operator's Deployment, where the install
	// has one for this operand and it exists.
	Operator *Object `json:"operator,omitempty"`
	Healthy  bool    `json:"healthy"`
}

// Object is one object of a component.
type Object struct {
	Kind       string      `json:"kind"`
	Namespace  string      `json:"namespace,omitempty"`
	Name       string      `json:"name"`
	Conditions []Condition `json:"conditions,omitempty"`
	// Replicas of a Deployment or DaemonSet: wanted and ready.
	Replicas *Replicas `json:"replicas,omitempty"`
}

// Replicas are a workload's wanted and ready replicas.
type Replicas struct {
	Wanted int32 `json:"wanted"`
	Ready  int32 `json:"ready"`
}

// Ready reports whether every wanted replica is ready.
func (r *Replicas) ready() bool { return r == nil || r.Ready >= r.Wanted }

// Failure is a failing leaf: where (the HyperConverged, an operand, an
// object of it) and why.
type Failure struct {
	Path    []string `json:"path"`
	Reason  string   `json:"reason"`
	Message string   `json:"message,omitempty"`
}

// String is the failure in words.
func (f *Failure) String() string {
	s := fmt.Sprintf("%s: %s", joinPath(f.Path), f.Reason)
	if f.Message != "" {
		s += ": " + f.Message
	}
	return s
}

func joinPath(p []string) string {
	out := ""
	for i, e := range p {
		if i > 0 {
			out += " › "
		}
		out += e
	}
	return out
}

// OperatorDeployments are the component operators' Deployments of the
// whole-stack install (config/operators), by the operand whose CR each
// reconciles; TestOperatorDeploymentsAreTheInstalls holds them to the
// install.
var OperatorDeployments = map[string]string{
	"kubevirt":      "virt-operator",
	"cdi":           "cdi-operator",
	"cnao":          "cluster-network-addons-operator",
	"ssp":           "ssp-operator",
	"hpp":           "hostpath-provisioner-operator",
	"aaq":           "aaq-operator",
	"migcontroller": "kubevirt-migration-operator",
	"filerestore":   "vm-file-restore-operator-controller-manager",
}

// Reader is what Read reads through: a client's reads and its REST mapper
// (whether a kind is served) and scheme (the operands' Go types).
type Reader interface {
	client.Reader
	RESTMapper() meta.RESTMapper
	Scheme() *runtime.Scheme
}

// Read reads the stack of the HyperConverged kubevirt-hyperconverged in
// namespace, the operands of reg. A HyperConverged not found is an error
// saying so.
func Read(ctx context.Context, c Reader, reg *hco.Registry, namespace string) (*Stack, error) {
	hc := &hcov1.HyperConverged{}
	key := client.ObjectKey{Namespace: namespace, Name: hcov1.HyperConvergedName}
	if err := c.Get(ctx, key, hc); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("no HyperConverged %s: the stack is not installed there (--namespace names another)", key)
		}
		return nil, fmt.Errorf("read HyperConverged %s: %w", key, err)
	}
	owner, err := hco.OwnerFor(ctx, c, hc)
	if err != nil {
		return nil, err
	}
	s := &Stack{HyperConverged: HyperConverged{Namespace: hc.Namespace, Name: hc.Name, Deleting: !hc.DeletionTimestamp.IsZero(),
		SystemHealthStatus: hc.Status.SystemHealthStatus, Versions: hc.Status.Versions, Conditions: conditions(hc.Status.Conditions)}}
	others := reg.OtherNamespaces(namespace, true)
	var errs []error
	for _, op := range reg.Operands() {
		objs, err := owned(ctx, c, op, owner, others)
		if err != nil {
			errs = append(errs, fmt.Errorf("operand %s: %w", op.Name(), err))
			continue
		}
		if len(objs) == 0 {
			continue
		}
		comp := component(op, objs)
		if name, ok := OperatorDeployments[op.Name()]; ok {
			d := &appsv1.Deployment{}
			switch err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, d); {
			case err == nil:
				comp.Operator = workload("Deployment", d.Namespace, d.Name, deploymentReplicas(d))
			case !apierrors.IsNotFound(err) && !apierrors.IsForbidden(err):
				errs = append(errs, fmt.Errorf("operand %s: read its operator's Deployment %s: %w", op.Name(), name, err))
			}
		}
		comp.Healthy = componentHealthy(comp)
		s.Components = append(s.Components, comp)
	}
	s.FirstFailure = firstFailure(s)
	s.Healthy = s.FirstFailure == nil
	return s, errors.Join(errs...)
}

// owned lists op's objects of owner's HyperConverged (the operator's
// labels, claimed as the operator claims them), typed where the scheme
// knows the kind; a kind not served has none.
func owned(ctx context.Context, c Reader, op hco.Operand, owner hco.Owner, others map[schema.GroupVersionKind][]string) ([]client.Object, error) {
	var out []client.Object
	for _, k := range op.Kinds() {
		gvk := k.GetObjectKind().GroupVersionKind()
		served, namespaced, err := hco.KindServed(c.RESTMapper(), gvk)
		if err != nil {
			return nil, err
		}
		if !served {
			continue
		}
		for _, ns := range hco.ListNamespaces(namespaced, owner.Namespace, others[gvk]) {
			list := &unstructured.UnstructuredList{}
			list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
			if err := c.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{hco.LabelManagedBy: hco.ManagedByValue, hco.LabelApp: owner.Name}); err != nil {
				if apierrors.IsForbidden(err) {
					continue
				}
				return nil, fmt.Errorf("list %s: %w", gvk.Kind, err)
			}
			for i := range list.Items {
				if claimed, _ := owner.Claims(&list.Items[i]); claimed {
					out = append(out, typed(c.Scheme(), &list.Items[i]))
				}
			}
		}
	}
	return out, nil
}

// typed is u in its Go type where scheme knows the kind, else u.
func typed(scheme *runtime.Scheme, u *unstructured.Unstructured) client.Object {
	o, err := scheme.New(u.GroupVersionKind())
	if err != nil {
		return u
	}
	if runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, o) != nil {
		return u
	}
	obj, ok := o.(client.Object)
	if !ok {
		return u
	}
	obj.GetObjectKind().SetGroupVersionKind(u.GroupVersionKind())
	return obj
}

// component is op's judgement of its objects, and those worth a look: its
// component CR (the JSONPatcher's first kind), its workloads.
func component(op hco.Operand, objs []client.Object) Component {
	st := op.Status(objs)
	comp := Component{Operand: op.Name(), Kind: st.Kind, Available: fromComponent("Available", st.Available),
		Progressing: fromComponent("Progressing", st.Progressing), Degraded: fromComponent("Degraded", st.Degraded), ObservedVersion: st.ObservedVersion}
	crKind := ""
	if _, ok := op.(hco.JSONPatcher); ok {
		crKind = op.Kinds()[0].GetObjectKind().GroupVersionKind().Kind
	}
	for _, o := range objs {
		kind := o.GetObjectKind().GroupVersionKind().Kind
		switch d := o.(type) {
		case *appsv1.Deployment:
			comp.Objects = append(comp.Objects, *workload("Deployment", d.Namespace, d.Name, deploymentReplicas(d)))
		case *appsv1.DaemonSet:
			comp.Objects = append(comp.Objects, *workload("DaemonSet", d.Namespace, d.Name,
				&Replicas{Wanted: d.Status.DesiredNumberScheduled, Ready: d.Status.NumberReady}))
		default:
			if kind == crKind {
				comp.Objects = append(comp.Objects, Object{Kind: kind, Namespace: o.GetNamespace(), Name: o.GetName(), Conditions: objectConditions(o)})
			}
		}
	}
	return comp
}

func workload(kind, namespace, name string, r *Replicas) *Object {
	return &Object{Kind: kind, Namespace: namespace, Name: name, Replicas: r}
}

func deploymentReplicas(d *appsv1.Deployment) *Replicas {
	wanted := int32(1)
	if d.Spec.Replicas != nil {
		wanted = *d.Spec.Replicas
	}
	return &Replicas{Wanted: wanted, Ready: d.Status.ReadyReplicas}
}

// objectConditions are status.conditions of o as its wire form holds them.
func objectConditions(o client.Object) []Condition {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
	if err != nil {
		return nil
	}
	list, _, _ := unstructured.NestedSlice(m, "status", "conditions")
	var out []Condition
	for _, item := range list {
		c, ok := item.(map[string]any)
		if !ok {
			continue
		}
		str := func(k string) string { s, _ := c[k].(string); return s }
		out = append(out, Condition{Type: str("type"), Status: str("status"), Reason: str("reason"), Message: str("message")})
	}
	return out
}

func conditions(cs []metav1.Condition) []Condition {
	out := make([]Condition, 0, len(cs))
	for _, c := range cs {
		out = append(out, Condition{Type: c.Type, Status: string(c.Status), Reason: c.Reason, Message: c.Message})
	}
	return out
}

func fromComponent(t string, c hcostatus.ComponentCondition) Condition {
	return Condition{Type: t, Status: string(c.Status), Reason: c.Reason, Message: c.Message}
}

// componentHealthy: Available, neither Degraded nor Progressing, every
// workload and the operator ready.
func componentHealthy(c Component) bool {
	if c.Available.Status != string(metav1.ConditionTrue) || c.Degraded.Status == string(metav1.ConditionTrue) || c.Progressing.Status == string(metav1.ConditionTrue) {
		return false
	}
	if c.Operator != nil && !c.Operator.Replicas.ready() {
		return false
	}
	return !slices.ContainsFunc(c.Objects, func(o Object) bool { return !o.Replicas.ready() })
}

// firstFailure is the first failing leaf: in the first unhealthy
// component (registry order), its operator when not ready (nothing else
// of it can be), else its workload not ready, else its CR's Degraded, not
// Available or Progressing condition, else its judgement; with no
// unhealthy component, the HyperConverged's own condition (a reconcile
// not complete, a jsonpatch tainting, a deletion blocked).
func firstFailure(s *Stack) *Failure {
	for _, c := range s.Components {
		if c.Healthy {
			continue
		}
		at := []string{c.Operand}
		if c.Operator != nil && !c.Operator.Replicas.ready() {
			return &Failure{Path: append(at, "operator Deployment "+c.Operator.Name), Reason: "NotReady",
				Message: fmt.Sprintf("%d of %d replicas ready", c.Operator.Replicas.Ready, c.Operator.Replicas.Wanted)}
		}
		for _, o := range c.Objects {
			if !o.Replicas.ready() {
				return &Failure{Path: append(at, o.Kind+" "+o.Name), Reason: "NotReady",
					Message: fmt.Sprintf("%d of %d replicas ready", o.Replicas.Ready, o.Replicas.Wanted)}
			}
		}
		for _, cond := range []Condition{c.Degraded, c.Available, c.Progressing} {
			bad := cond.Status == string(metav1.ConditionTrue)
			if cond.Type == "Available" {
				bad = cond.Status != string(metav1.ConditionTrue)
			}
			if !bad {
				continue
			}
			path := at
			if i := slices.IndexFunc(c.Objects, func(o Object) bool { return o.Replicas == nil }); i >= 0 {
				path = append(at, c.Objects[i].Kind+" "+c.Objects[i].Name)
			}
			reason := cond.Reason
			if reason == "" {
				reason = cond.Type + "=" + cond.Status
			}
			return &Failure{Path: path, Reason: fmt.Sprintf("%s (%s=%s)", reason, cond.Type, cond.Status), Message: cond.Message}
		}
	}
	hc := s.HyperConverged
	for _, want := range []struct {
		typ, status string
	}{{"ReconcileComplete", "True"}, {"TaintedConfiguration", "False"}, {"Degraded", "False"}, {"Available", "True"}, {"Progressing", "False"}} {
		i := slices.IndexFunc(hc.Conditions, func(c Condition) bool { return c.Type == want.typ })
		switch {
		case i < 0 && want.typ == "TaintedConfiguration":
		case i < 0:
			return &Failure{Path: []string{"HyperConverged " + hc.Name}, Reason: want.typ + " not reported", Message: "the operator has not reconciled it yet"}
		case hc.Conditions[i].Status != want.status:
			c := hc.Conditions[i]
			return &Failure{Path: []string{"HyperConverged " + hc.Name}, Reason: fmt.Sprintf("%s (%s=%s)", c.Reason, c.Type, c.Status), Message: c.Message}
		}
	}
	return nil
}
