package render

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/validation"
)

// Decode parses one HyperConverged of either API version from YAML or JSON
// and returns it as the hub (v1): a v1beta1 object gets its v1beta1 defaults
// and is converted, as the API server would. Decoding is strict: an unknown
// or duplicate field is an error that names it (for example
// `unknown field "spec.infra.nodeSelector"`). Unknown or deprecated feature
// gates, and fields nothing acts on yet, come back as warnings, worded as the
// webhook's (validation.Warnings) and naming the fields of the version
// written. apiVersion and kind may be omitted: the object is then read as v1,
// or as v1beta1 when only that version accepts it. The input must hold
// exactly one document.
func Decode(data []byte) (hc *hcov1.HyperConverged, warnings []string, err error) {
	hc, _, warnings, err = DecodeWithVersion(data)
	return hc, warnings, err
}

// DecodeWithVersion is Decode that also returns the API version the
// document was read as: its apiVersion, or, when it has none, the version
// that accepted it. A caller reporting later errors (render.Objects') names
// the fields of that version with v1beta1.FieldPathsFromV1.
func DecodeWithVersion(data []byte) (hc *hcov1.HyperConverged, version schema.GroupVersion, warnings []string, err error) {
	doc, err := singleDocument(data)
	if err != nil {
		return nil, schema.GroupVersion{}, nil, err
	}
	var tm metav1.TypeMeta
	if err := yaml.Unmarshal(doc, &tm); err != nil {
		return nil, schema.GroupVersion{}, nil, fmt.Errorf("invalid HyperConverged: %w", err)
	}
	if tm.Kind != "" && tm.Kind != "HyperConverged" {
		return nil, schema.GroupVersion{}, nil, fmt.Errorf("invalid HyperConverged: kind is %q, want HyperConverged", tm.Kind)
	}
	switch tm.APIVersion {
	case hcov1.GroupVersion.String():
		hc, warnings, err = decodeV1(doc)
		return hc, hcov1.GroupVersion, warnings, err
	case v1beta1.GroupVersion.String():
		hc, warnings, err = decodeV1beta1(doc)
		return hc, v1beta1.GroupVersion, warnings, err
	case "":
		hc, warnings, err = decodeV1(doc)
		if err != nil {
			if old, oldWarnings, oldErr := decodeV1beta1(doc); oldErr == nil {
				return old, v1beta1.GroupVersion, oldWarnings, nil
			}
		}
		return hc, hcov1.GroupVersion, warnings, err
	}
	return nil, schema.GroupVersion{}, nil, fmt.Errorf("invalid HyperConverged: apiVersion is %q, want %s or %s", tm.APIVersion, hcov1.GroupVersion, v1beta1.GroupVersion)
}

// strictSerializer decodes YAML or JSON strictly: an unknown or duplicate
// field is an error naming its full path ("spec.infra.nodeSelector"), which
// sigs.k8s.io/yaml's UnmarshalStrict does not give (it names the leaf only).
var strictSerializer = func() *kjson.Serializer {
	scheme := runtime.NewScheme()
	utilruntime.Must(hcov1.AddToScheme(scheme))
	utilruntime.Must(v1beta1.AddToScheme(scheme))
	return kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, scheme, scheme, kjson.SerializerOptions{Yaml: true, Strict: true})
}()

// unmarshalStrict decodes doc into obj, of the version gv (the document's
// apiVersion and kind, when present, have been checked to match it).
func unmarshalStrict(doc []byte, obj runtime.Object, gv schema.GroupVersion) error {
	gvk := gv.WithKind("HyperConverged")
	_, _, err := strictSerializer.Decode(doc, &gvk, obj)
	return err
}

func decodeV1(doc []byte) (*hcov1.HyperConverged, []string, error) {
	hc := &hcov1.HyperConverged{}
	if err := unmarshalStrict(doc, hc, hcov1.GroupVersion); err != nil {
		return nil, nil, fmt.Errorf("invalid HyperConverged: %w", err)
	}
	hc.SetGroupVersionKind(hcov1.GroupVersion.WithKind("HyperConverged"))
	return hc, validation.Warnings(hc), nil
}

func decodeV1beta1(doc []byte) (*hcov1.HyperConverged, []string, error) {
	old := &v1beta1.HyperConverged{}
	if err := unmarshalStrict(doc, old, v1beta1.GroupVersion); err != nil {
		return nil, nil, fmt.Errorf("invalid HyperConverged (v1beta1): %w", err)
	}
	// The v1beta1 CRD's rule, which the API server checks before converting.
	if p := old.Spec.PermittedHostDevices; p != nil {
		for i, d := range p.PciHostDevices {
			if (d.PCIDeviceSelector == "") == (d.PCIVendorSelector == "") {
				return nil, nil, fmt.Errorf("invalid HyperConverged (v1beta1): spec.permittedHostDevices.pciHostDevices[%d]: set exactly one of pciDeviceSelector and pciVendorSelector", i)
			}
		}
	}
	v1beta1.Default(old)
	hc := &hcov1.HyperConverged{}
	if err := old.ConvertTo(hc); err != nil {
		return nil, nil, fmt.Errorf("invalid HyperConverged (v1beta1): %w", err)
	}
	warnings := validation.Warnings(hc)
	for i := range warnings {
		warnings[i] = v1beta1.FieldPathsFromV1(warnings[i])
	}
	return hc, append(warnings, validation.V1beta1Warnings(old)...), nil
}

// singleDocument returns the one non-empty YAML document in data.
func singleDocument(data []byte) ([]byte, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var docs [][]byte
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read YAML: %w", err)
		}
		if !isBlank(doc) {
			docs = append(docs, doc)
		}
	}
	switch len(docs) {
	case 0:
		return nil, errors.New("invalid HyperConverged: the input is empty")
	case 1:
		return docs[0], nil
	}
	return nil, fmt.Errorf("invalid HyperConverged: the input holds %d YAML documents, want one", len(docs))
}

// isBlank reports whether a YAML document holds only whitespace and comments.
func isBlank(doc []byte) bool {
	for _, line := range strings.Split(string(doc), "\n") {
		line = strings.TrimSpace(line)
		if line != "" && line != "---" && !strings.HasPrefix(line, "#") {
			return false
		}
	}
	return true
}

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
		return nil, &InvalidError{Errors: errs}
	}
	objs, err := hco.Render(reg, hc, hco.OfflineFacts(env))
	if err != nil {
		return nil, fmt.Errorf("invalid HyperConverged %s/%s: %w", hc.Namespace, hc.Name, err)
	}
	return objs, nil
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
