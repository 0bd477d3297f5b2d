package render

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/validation"
)

// Decoded is a HyperConverged read from a document of either API version.
type Decoded struct {
	// HC is the object as the hub, v1.
	HC *hcov1.HyperConverged
	// Written is the object as written when the document is v1beta1; nil
	// for v1.
	Written *v1beta1.HyperConverged
}

// Version is the API version the document was read as.
func (d Decoded) Version() schema.GroupVersion {
	if d.Written != nil {
		return v1beta1.GroupVersion
	}
	return hcov1.GroupVersion
}

// FieldPaths rewrites the v1 field paths in message (an error, a warning)
// to the fields of the version written, so that an admin is told about the
// fields they wrote.
func (d Decoded) FieldPaths(message string) string {
	if d.Written == nil {
		return message
	}
	return v1beta1.FieldPathsFromV1(message)
}

// Warnings are the object's admission warnings, naming the fields of the
// version written: validation.Warnings, and for v1beta1 first the gates v1
// dropped (validation.V1beta1GateWarnings: v1beta1 names its gates in field
// order, the ones v1 has no field for last) and last
// validation.V1beta1Warnings.
func (d Decoded) Warnings() []string {
	warnings := append(validation.V1beta1GateWarnings(d.Written), validation.Warnings(d.HC)...)
	warnings = append(warnings, validation.V1beta1Warnings(d.Written)...)
	for i := range warnings {
		warnings[i] = d.FieldPaths(warnings[i])
	}
	return warnings
}

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
	d, err := DecodeManifest(data)
	if err != nil {
		return nil, nil, err
	}
	return d.HC, d.Warnings(), nil
}

// DecodeManifest is Decode that returns the object as read, with the
// version it was read as: its apiVersion, or, when it has none, the version
// that accepted it. A caller reporting later errors (render.Objects') names
// the fields of that version with Decoded.FieldPaths.
func DecodeManifest(data []byte) (Decoded, error) {
	doc, err := singleDocument(data)
	if err != nil {
		return Decoded{}, err
	}
	var tm metav1.TypeMeta
	if err := yaml.Unmarshal(doc, &tm); err != nil {
		return Decoded{}, fmt.Errorf("invalid HyperConverged: %w", err)
	}
	if tm.Kind != "" && tm.Kind != "HyperConverged" {
		return Decoded{}, fmt.Errorf("invalid HyperConverged: kind is %q, want HyperConverged", tm.Kind)
	}
	switch tm.APIVersion {
	case hcov1.GroupVersion.String():
		return decodeAs(doc, hcov1.GroupVersion, false)
	case v1beta1.GroupVersion.String():
		return decodeAs(doc, v1beta1.GroupVersion, false)
	case "":
		d, err := decodeAs(doc, hcov1.GroupVersion, false)
		if err != nil {
			if old, oldErr := decodeAs(doc, v1beta1.GroupVersion, false); oldErr == nil {
				return old, nil
			}
		}
		return d, err
	}
	return Decoded{}, fmt.Errorf("invalid HyperConverged: apiVersion is %q, want %s or %s", tm.APIVersion, hcov1.GroupVersion, v1beta1.GroupVersion)
}

// DecodeAdmitted reads a HyperConverged as the API server hands it to a
// webhook: JSON that the API server has already defaulted, pruned to the
// CRD's schema and checked against it. Its apiVersion says which version it
// is; without one, version does (an admission request's kind). Nothing is
// defaulted or checked again, and a field this binary does not know is
// ignored: the installed CRD may be newer than the binary.
func DecodeAdmitted(raw []byte, version schema.GroupVersion) (Decoded, error) {
	if len(raw) == 0 {
		return Decoded{}, errors.New("invalid HyperConverged: no object")
	}
	var tm metav1.TypeMeta
	if err := json.Unmarshal(raw, &tm); err != nil {
		return Decoded{}, fmt.Errorf("invalid HyperConverged: %w", err)
	}
	if tm.APIVersion == "" && version.Group == v1beta1.GroupVersion.Group {
		tm.APIVersion = version.String()
	}
	if tm.APIVersion == v1beta1.GroupVersion.String() {
		return decodeAs(raw, v1beta1.GroupVersion, true)
	}
	return decodeAs(raw, hcov1.GroupVersion, true)
}

// decodeAs reads doc as a HyperConverged of version gv and converts it to
// the hub. A document the API server has admitted is JSON, read leniently
// and taken as it is; any other is YAML or JSON, read strictly, and gets
// what the API server would have done before converting it: the v1beta1
// CRD's rule checked and the v1beta1 defaults.
func decodeAs(doc []byte, gv schema.GroupVersion, admitted bool) (Decoded, error) {
	if gv != v1beta1.GroupVersion {
		hc := &hcov1.HyperConverged{}
		if err := unmarshal(doc, hc, gv, admitted); err != nil {
			return Decoded{}, fmt.Errorf("invalid HyperConverged: %w", err)
		}
		hc.SetGroupVersionKind(hcov1.GroupVersion.WithKind("HyperConverged"))
		return Decoded{HC: hc}, nil
	}
	old := &v1beta1.HyperConverged{}
	if err := unmarshal(doc, old, gv, admitted); err != nil {
		return Decoded{}, fmt.Errorf("invalid HyperConverged (v1beta1): %w", err)
	}
	if !admitted {
		// The v1beta1 CRD's rule, which the API server checks before converting.
		if p := old.Spec.PermittedHostDevices; p != nil {
			for i, d := range p.PciHostDevices {
				if (d.PCIDeviceSelector == "") == (d.PCIVendorSelector == "") {
					return Decoded{}, fmt.Errorf("invalid HyperConverged (v1beta1): spec.permittedHostDevices.pciHostDevices[%d]: set exactly one of pciDeviceSelector and pciVendorSelector", i)
				}
			}
		}
		v1beta1.Default(old)
	}
	hc := &hcov1.HyperConverged{}
	if err := old.ConvertTo(hc); err != nil {
		return Decoded{}, fmt.Errorf("invalid HyperConverged (v1beta1): %w", err)
	}
	return Decoded{HC: hc, Written: old}, nil
}

// unmarshal decodes doc into obj, of the version gv (the document's
// apiVersion and kind, when present, have been checked to match it): an
// admitted object as encoding/json does, any other strictly.
func unmarshal(doc []byte, obj runtime.Object, gv schema.GroupVersion, admitted bool) error {
	if admitted {
		return json.Unmarshal(doc, obj)
	}
	gvk := gv.WithKind("HyperConverged")
	_, _, err := strictSerializer.Decode(doc, &gvk, obj)
	return err
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
