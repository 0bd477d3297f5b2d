package render

import (
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/validation"
)

// Objects returns the objects the operator would create for hc. A copy of
// hc gets the CRD defaults (hcov1.Default) and, when it has none, the
// operator namespace env.Namespace (hcov1.DefaultNamespace when that is
// empty too). It is then validated as the webhook would, minus the checks
// that need a cluster (validation.Identity and validation.Spec), and every
// enabled operand of reg runs, in registration order, with the facts of no
// cluster, hco.OfflineFacts(env): node facts unknown (a highly available
// cluster of no known architecture) and no cluster TLS profile. hc is not
// changed.
//
// The error for invalid input names every field or annotation to fix.
func Objects(reg *hco.Registry, hc *hcov1.HyperConverged, env hco.Environment) ([]client.Object, error) {
	hc, env, err := Prepare(reg, hc, env)
	if err != nil {
		return nil, err
	}
	objs, err := hco.Render(reg, hc, hco.OfflineFacts(env))
	if err != nil {
		return nil, fmt.Errorf("invalid HyperConverged %s/%s: %w", hc.Namespace, hc.Name, err)
	}
	return objs, nil
}

// Prepare returns what Objects renders from: a copy of hc with the CRD
// defaults and its namespace, env with the operator namespace, hc checked
// as the webhook would minus the checks that need a cluster (see Objects).
// A distribution's own offline tool (hco-operator render --diff) builds
// each operand's objects from them with hco.DesiredObjects and
// hco.OfflineFacts(env).
func Prepare(reg *hco.Registry, hc *hcov1.HyperConverged, env hco.Environment) (*hcov1.HyperConverged, hco.Environment, error) {
	hc = hc.DeepCopy()
	hcov1.Default(hc)
	if env.Namespace == "" {
		env.Namespace = hc.Namespace
	}
	if env.Namespace == "" {
		env.Namespace = hcov1.DefaultNamespace
	}
	if hc.Namespace == "" {
		hc.Namespace = env.Namespace
	}
	errs := validation.Identity(hc, env.Namespace)
	errs = append(errs, validation.Spec(hc, validation.Options{Registry: reg, Environment: env})...)
	if len(errs) > 0 {
		return nil, env, &InvalidError{Errors: errs}
	}
	return hc, env, nil
}

// InvalidError is a HyperConverged the webhook would refuse. Each error
// names its v1 field, e.g. spec.virtualization.liveMigrationConfig.bandwidthPerMigration.
type InvalidError struct {
	Errors field.ErrorList
}

// Error lists every field error, one clause each.
func (e *InvalidError) Error() string {
	return "invalid HyperConverged: " + validation.Message(e.Errors)
}

// WriteYAML writes objs to w as YAML documents, each introduced by "---", in
// the order given. Keys are sorted, status is left out, and so is metadata
// that only says "unset" (creationTimestamp: null and the like). Every
// object must carry its apiVersion and kind (the stock operands set them).
func WriteYAML(w io.Writer, objs []client.Object) error {
	for _, obj := range objs {
		gvk := obj.GetObjectKind().GroupVersionKind()
		if gvk.Kind == "" || gvk.Version == "" {
			return fmt.Errorf("write %T %s/%s: no apiVersion/kind; the operand must set its TypeMeta", obj, obj.GetNamespace(), obj.GetName())
		}
		if un, ok := obj.(*unstructured.Unstructured); ok {
			// Its content is returned as is, and pruned below: not the caller's.
			obj = un.DeepCopy()
		}
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			return fmt.Errorf("write %s %s/%s: %w", gvk.Kind, obj.GetNamespace(), obj.GetName(), err)
		}
		delete(u, "status")
		pruneNulls(u)
		pruneEmptyEmbedded(u)
		if meta, ok := u["metadata"].(map[string]any); ok {
			pruneEmpty(meta)
		}
		out, err := yaml.Marshal(u)
		if err != nil {
			return fmt.Errorf("write %s %s/%s: %w", gvk.Kind, obj.GetNamespace(), obj.GetName(), err)
		}
		if _, err := fmt.Fprintf(w, "---\n%s", out); err != nil {
			return fmt.Errorf("write %s %s/%s: %w", gvk.Kind, obj.GetNamespace(), obj.GetName(), err)
		}
	}
	return nil
}

// pruneNulls removes null values: an unset field that the Go type does not
// omit. For a created object, null and absent mean the same.
func pruneNulls(v any) {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			if e == nil {
				delete(t, k)
				continue
			}
			pruneNulls(e)
		}
	case []any:
		for _, e := range t {
			pruneNulls(e)
		}
	}
}

// pruneEmptyEmbedded removes, at any depth, an empty "metadata" or
// "status" map: what an embedded object (e.g. the DataVolume template of a
// golden image) says when its Go type does not omit them. Empty and absent
// mean the same there.
func pruneEmptyEmbedded(v any) {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			if m, ok := e.(map[string]any); ok && len(m) == 0 && (k == "metadata" || k == "status") {
				delete(t, k)
				continue
			}
			pruneEmptyEmbedded(e)
		}
	case []any:
		for _, e := range t {
			pruneEmptyEmbedded(e)
		}
	}
}

// pruneEmpty removes empty maps, lists and strings from metadata.
func pruneEmpty(m map[string]any) {
	for k, e := range m {
		switch t := e.(type) {
		case map[string]any:
			if len(t) == 0 {
				delete(m, k)
			}
		case []any:
			if len(t) == 0 {
				delete(m, k)
			}
		case string:
			if t == "" {
				delete(m, k)
			}
		}
	}
}
