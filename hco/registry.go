package hco

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Registry holds a meta-operator's operands in registration order (of their
// statuses, Render's output, related objects; the reconciler applies them
// concurrently, uninstall follows DeletionOrderer), built in main: stock
// operands registered, then replaced or disabled by name. Not safe for
// concurrent modification: read only once the manager starts.
type Registry struct {
	entries []registryEntry
}

type registryEntry struct {
	operand  Operand
	disabled bool
	// whereServed: on only where the API server serves its kinds (OnlyWhereServed).
	whereServed bool
}

// NewRegistry returns a registry of ops in order; a duplicate or empty name fails.
func NewRegistry(ops ...Operand) (*Registry, error) {
	r := &Registry{}
	for _, op := range ops {
		if err := r.Register(op); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Register appends op. It fails if an operand of the same name is registered.
func (r *Registry) Register(op Operand) error {
	if op == nil {
		return fmt.Errorf("register operand: nil operand")
	}
	name := op.Name()
	if name == "" {
		return fmt.Errorf("register operand %T: empty name", op)
	}
	if r.index(name) >= 0 {
		return fmt.Errorf("register operand %q: an operand with that name is already registered; use Replace to swap it", name)
	}
	r.entries = append(r.entries, registryEntry{operand: op})
	return nil
}

// Replace swaps the operand registered under op.Name() for op, keeping its
// position and its enabled state. It fails if no such operand is registered.
func (r *Registry) Replace(op Operand) error {
	if op == nil {
		return fmt.Errorf("replace operand: nil operand")
	}
	i := r.index(op.Name())
	if i < 0 {
		return fmt.Errorf("replace operand %q: no operand with that name is registered (registered: %v)", op.Name(), r.Names())
	}
	r.entries[i].operand = op
	return nil
}

// Disable keeps the named operand registered but leaves it out of Operands.
func (r *Registry) Disable(name string) error {
	return r.setDisabled(name, true)
}

// Enable undoes Disable.
func (r *Registry) Enable(name string) error {
	return r.setDisabled(name, false)
}

func (r *Registry) setDisabled(name string, disabled bool) error {
	i := r.index(name)
	if i < 0 {
		return fmt.Errorf("operand %q is not registered (registered: %v)", name, r.Names())
	}
	r.entries[i].disabled = disabled
	return nil
}

// Only disables every registered operand not named in names, and enables
// those named. It fails, changing nothing, if a name is not registered.
func (r *Registry) Only(names ...string) error {
	want := make(map[string]bool, len(names))
	for _, n := range names {
		if r.index(n) < 0 {
			return fmt.Errorf("operand %q is not registered (registered: %v)", n, r.Names())
		}
		want[n] = true
	}
	for i := range r.entries {
		r.entries[i].disabled = !want[r.entries[i].operand.Name()]
	}
	return nil
}

// OnlyWhereServed marks the named operands as platform defaults, on only
// where their kinds are served: else skipped (writing and deleting nothing;
// no degradation, logged once, named in ReconcileComplete's message) until
// their CRD comes, no restart needed; an unmarked operand waiting for its
// API degrades the HyperConverged (OperandAPINotServed). The stock binary
// marks SSP on plain Kubernetes (no ssp-operator) unless --operands names
// it. It fails, changing nothing, if a name is not registered.
func (r *Registry) OnlyWhereServed(names ...string) error {
	for _, n := range names {
		if r.index(n) < 0 {
			return fmt.Errorf("operand %q is not registered (registered: %v)", n, r.Names())
		}
	}
	for _, n := range names {
		r.entries[r.index(n)].whereServed = true
	}
	return nil
}

// WhereServed reports whether the named operand is OnlyWhereServed.
func (r *Registry) WhereServed(name string) bool {
	i := r.index(name)
	return i >= 0 && r.entries[i].whereServed
}

// OtherNamespaces gathers, by kind, the namespaces besides namespace (the
// operator's) the enabled OtherNamespacers name on an OpenShift cluster or
// not: sorted, each once, or AnyNamespace alone if named; nil when none.
func (r *Registry) OtherNamespaces(namespace string, openShift bool) map[schema.GroupVersionKind][]string {
	var out map[schema.GroupVersionKind][]string
	for _, op := range r.Operands() {
		o, ok := op.(OtherNamespacer)
		if !ok {
			continue
		}
		for gvk, namespaces := range o.OtherNamespaces(openShift) {
			for _, ns := range namespaces {
				if ns == "" || ns == namespace || slices.Contains(out[gvk], ns) {
					continue
				}
				if out == nil {
					out = map[schema.GroupVersionKind][]string{}
				}
				out[gvk] = append(out[gvk], ns)
			}
		}
	}
	for gvk, namespaces := range out {
		if slices.Contains(namespaces, AnyNamespace) {
			out[gvk] = []string{AnyNamespace}
			continue
		}
		slices.Sort(namespaces)
	}
	return out
}

// Get returns the named operand, enabled or not.
func (r *Registry) Get(name string) (Operand, bool) {
	i := r.index(name)
	if i < 0 {
		return nil, false
	}
	return r.entries[i].operand, true
}

// Operands returns the enabled operands in registration order.
func (r *Registry) Operands() []Operand {
	out := make([]Operand, 0, len(r.entries))
	for _, e := range r.entries {
		if !e.disabled {
			out = append(out, e.operand)
		}
	}
	return out
}

// Names returns the names of all registered operands, enabled or not, in order.
func (r *Registry) Names() []string {
	out := make([]string, len(r.entries))
	for i, e := range r.entries {
		out[i] = e.operand.Name()
	}
	return out
}

func (r *Registry) index(name string) int {
	for i, e := range r.entries {
		if e.operand.Name() == name {
			return i
		}
	}
	return -1
}
