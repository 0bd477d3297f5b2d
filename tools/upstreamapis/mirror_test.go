package upstreamapis

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	ocpconfigv1 "github.com/openshift/api/config/v1"
	ocpimagev1 "github.com/openshift/api/image/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"

	aaqv1alpha1 "github.com/hcokit/hcokit/operands/aaq/api/v1alpha1"
	cnaov1 "github.com/hcokit/hcokit/operands/cnao/api/v1"
	hppv1beta1 "github.com/hcokit/hcokit/operands/hpp/api/v1beta1"
	imagev1 "github.com/hcokit/hcokit/operands/imagestream/api/v1"
	migv1alpha1 "github.com/hcokit/hcokit/operands/migcontroller/api/v1alpha1"
	cnaoupstream "github.com/kubevirt/cluster-network-addons-operator/pkg/apis/networkaddonsoperator/v1"
	aaqupstream "kubevirt.io/application-aware-quota/staging/src/kubevirt.io/application-aware-quota-api/pkg/apis/core/v1alpha1"
	hppupstream "kubevirt.io/hostpath-provisioner-operator/pkg/apis/hostpathprovisioner/v1beta1"
	migupstream "kubevirt.io/kubevirt-migration-operator/api/v1alpha1"
)

// mirror pairs one of hcokit's typed mirrors with the upstream type it copies.
type mirror struct {
	kind     string
	apiVer   string
	mirror   func() any // a new zero mirror object (a pointer)
	upstream func() any // a new zero upstream object (a pointer)
	crdFile  string     // the CRD the tests install, in config/crd/operands
	// specOnly: the mirror has no status (the operator never reads it);
	// only the spec is compared.
	specOnly bool
}

var mirrors = []mirror{
	{
		kind: "NetworkAddonsConfig", apiVer: cnaov1.GroupVersion.String(),
		mirror:   func() any { return &cnaov1.NetworkAddonsConfig{} },
		upstream: func() any { return &cnaoupstream.NetworkAddonsConfig{} },
		crdFile:  "networkaddonsoperator.network.kubevirt.io_networkaddonsconfigs.yaml",
	},
	{
		kind: "HostPathProvisioner", apiVer: hppv1beta1.GroupVersion.String(),
		mirror:   func() any { return &hppv1beta1.HostPathProvisioner{} },
		upstream: func() any { return &hppupstream.HostPathProvisioner{} },
		crdFile:  "hostpathprovisioner.kubevirt.io_hostpathprovisioners.yaml",
	},
	{
		kind: "MigController", apiVer: migv1alpha1.GroupVersion.String(),
		mirror:   func() any { return &migv1alpha1.MigController{} },
		upstream: func() any { return &migupstream.MigController{} },
		crdFile:  "migrations.kubevirt.io_migcontrollers.yaml",
	},
	{
		kind: "AAQ", apiVer: aaqv1alpha1.GroupVersion.String(),
		mirror:   func() any { return &aaqv1alpha1.AAQ{} },
		upstream: func() any { return &aaqupstream.AAQ{} },
		crdFile:  "aaq.kubevirt.io_aaqs.yaml",
	},
	{
		kind: "ImageStream", apiVer: imagev1.GroupVersion.String(),
		mirror:   func() any { return &imagev1.ImageStream{} },
		upstream: func() any { return &ocpimagev1.ImageStream{} },
		specOnly: true,
	},
}

// parts are the parts of m's objects the tests compare.
func (m mirror) parts() []string {
	if m.specOnly {
		return []string{"Spec"}
	}
	return []string{"Spec", "Status"}
}

// upstreamOnly lists every field of the upstream spec and status that the
// mirrors lack (TestUpstreamOnlyFieldsAreListed keeps it complete), with an
// example value the real CRD accepts. Integration tests can set these to
// check that hcokit keeps what its mirrors do not model:
//
//	HostPathProvisioner status.storagePoolStatuses   [{"name":"local","phase":"Ready","desiredReady":1,"currentReady":1}]
//	                                                 (phase: Preparing, Mounting or Ready)
//
// The NetworkAddonsConfig mirror has every field of cluster-network-addons-operator
// v0.102.0 (spec.kubevirtIpamController and spec.tlsSecurityProfile joined it
// when the operator started to build them). HostPathProvisioner v0.18.0 has
// no spec field outside the mirror, and its CRD has no status subresource: a
// plain update writes status too.
var upstreamOnly = []struct {
	kind, path, example string
}{
	{"HostPathProvisioner", "status.storagePoolStatuses",
		`[{"name":"local","phase":"Ready","desiredReady":1,"currentReady":1}]`},
}

// TestMirrorFieldsExistUpstream fills every field of each mirror, decodes the
// JSON strictly into the upstream type and encodes it again: an unknown field
// fails the decode, a field of another shape fails the decode or changes the
// JSON.
func TestMirrorFieldsExistUpstream(t *testing.T) {
	for _, m := range mirrors {
		t.Run(m.kind, func(t *testing.T) {
			obj := m.mirror()
			v := reflect.ValueOf(obj).Elem()
			v.FieldByName("TypeMeta").Set(reflect.ValueOf(metav1.TypeMeta{APIVersion: m.apiVer, Kind: m.kind}))
			v.FieldByName("ObjectMeta").Set(reflect.ValueOf(metav1.ObjectMeta{Name: "name", Labels: map[string]string{"label": "value"}}))
			for _, f := range m.parts() {
				if err := fill(v.FieldByName(f), strings.ToLower(f)); err != nil {
					t.Fatal(err)
				}
				if zero := zeroFields(v.FieldByName(f), strings.ToLower(f)); len(zero) > 0 {
					t.Fatalf("mirror fields left unset: %v", zero)
				}
			}

			mirrorJSON, err := json.Marshal(obj)
			if err != nil {
				t.Fatal(err)
			}
			up := m.upstream()
			dec := json.NewDecoder(bytes.NewReader(mirrorJSON))
			dec.DisallowUnknownFields()
			if err := dec.Decode(up); err != nil {
				t.Fatalf("the mirror's JSON does not decode strictly into %T: %v\n%s", up, err, mirrorJSON)
			}
			upstreamJSON, err := json.Marshal(up)
			if err != nil {
				t.Fatal(err)
			}
			if m.specOnly {
				// Upstream's type sends its zero status; the mirror has none.
				var o map[string]any
				if err := json.Unmarshal(upstreamJSON, &o); err != nil {
					t.Fatal(err)
				}
				delete(o, "status")
				if upstreamJSON, err = json.Marshal(o); err != nil {
					t.Fatal(err)
				}
			}
			if !jsonEqual(t, mirrorJSON, upstreamJSON) {
				t.Fatalf("the JSON changed through %T:\nmirror:   %s\nupstream: %s", up, mirrorJSON, upstreamJSON)
			}
		})
	}
}

// TestUpstreamOnlyFieldsAreListed compares the upstream types with the
// mirrors field by field and requires upstreamOnly to list exactly the
// upstream fields the mirrors lack; each example must decode strictly into
// the upstream type, survive its round trip, and be a property of the CRD
// the tests install.
func TestUpstreamOnlyFieldsAreListed(t *testing.T) {
	for _, m := range mirrors {
		t.Run(m.kind, func(t *testing.T) {
			mt, ut := reflect.TypeOf(m.mirror()).Elem(), reflect.TypeOf(m.upstream()).Elem()
			var missing []string
			for _, f := range m.parts() {
				mf, _ := mt.FieldByName(f)
				uf, _ := ut.FieldByName(f)
				missing = append(missing, missingFields(mf.Type, uf.Type, strings.ToLower(f))...)
			}
			var listed []string
			for _, u := range upstreamOnly {
				if u.kind == m.kind {
					listed = append(listed, u.path)
				}
			}
			slices.Sort(missing)
			slices.Sort(listed)
			if !slices.Equal(missing, listed) {
				t.Errorf("upstream fields the mirror lacks: %v; upstreamOnly lists %v", missing, listed)
			}

			if m.crdFile == "" {
				// OpenShift serves the kind itself: no CRD the tests install.
				return
			}
			crd := readCRDSchema(t, m.crdFile)
			for _, u := range upstreamOnly {
				if u.kind != m.kind {
					continue
				}
				t.Logf("upstream only: %s %s, e.g. %s", u.kind, u.path, u.example)
				doc, err := nest(u.path, json.RawMessage(u.example))
				if err != nil {
					t.Fatal(err)
				}
				up := m.upstream()
				dec := json.NewDecoder(bytes.NewReader(doc))
				dec.DisallowUnknownFields()
				if err := dec.Decode(up); err != nil {
					t.Errorf("%s: example does not decode strictly into %T: %v", u.path, up, err)
					continue
				}
				back, err := json.Marshal(up)
				if err != nil {
					t.Fatal(err)
				}
				if got := at(t, back, u.path); !jsonEqual(t, []byte(u.example), got) {
					t.Errorf("%s: example %s came back as %s", u.path, u.example, got)
				}
				if !schemaHas(crd, u.path) {
					t.Errorf("%s: not a property of config/crd/operands/%s", u.path, m.crdFile)
				}
			}
		})
	}
}

// fill sets v and every exported field below it to a non-zero value derived
// from path, so that two fields never share a value. Types whose state is
// unexported get a fixed valid value; any other such type is an error.
func fill(v reflect.Value, path string) error {
	switch v.Type() {
	case reflect.TypeFor[metav1.Time]():
		v.Set(reflect.ValueOf(metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))))
		return nil
	case reflect.TypeFor[resource.Quantity]():
		v.Set(reflect.ValueOf(resource.MustParse("5Gi")))
		return nil
	case reflect.TypeFor[intstr.IntOrString]():
		// AAQ's sidecar evaluators are Containers, whose probes have ports.
		v.Set(reflect.ValueOf(intstr.FromString(path)))
		return nil
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(path)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(len(path)))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(len(path)))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(len(path)) + 0.5)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		return fill(v.Elem(), path)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		return fill(v.Index(0), path+"[0]")
	case reflect.Map:
		key, val := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		if err := fill(key, path+".key"); err != nil {
			return err
		}
		if err := fill(val, path+".value"); err != nil {
			return err
		}
		v.Set(reflect.MakeMap(v.Type()))
		v.SetMapIndex(key, val)
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if !f.IsExported() {
				return fmt.Errorf("%s: %s has unexported state; teach fill a valid value", path, v.Type())
			}
			if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name == "-" {
				continue
			}
			if err := fill(v.Field(i), path+"."+f.Name); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("%s: cannot fill a %s", path, v.Type())
	}
	return nil
}

// zeroFields returns the paths of the exported fields below v that are zero.
// An empty struct counts as set when its pointer is.
func zeroFields(v reflect.Value, path string) []string {
	if v.IsZero() && v.Type().Size() > 0 {
		return []string{path}
	}
	var zero []string
	switch v.Kind() {
	case reflect.Pointer:
		zero = zeroFields(v.Elem(), path)
	case reflect.Slice:
		for i := range v.Len() {
			zero = append(zero, zeroFields(v.Index(i), fmt.Sprintf("%s[%d]", path, i))...)
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			zero = append(zero, zeroFields(v.MapIndex(k), fmt.Sprintf("%s[%v]", path, k))...)
		}
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[metav1.Time]() || v.Type() == reflect.TypeFor[resource.Quantity]() || v.Type() == reflect.TypeFor[intstr.IntOrString]() {
			return nil
		}
		for i := range v.NumField() {
			if f := v.Type().Field(i); f.IsExported() && f.Tag.Get("json") != "-" {
				zero = append(zero, zeroFields(v.Field(i), path+"."+f.Name)...)
			}
		}
	}
	return zero
}

// missingFields returns the JSON paths of the fields of upstream that mirror
// lacks, below path. Types that are the same on both sides (Kubernetes core
// types) are not descended into; fields of another shape are left to the
// strict decode of TestMirrorFieldsExistUpstream.
func missingFields(mirror, upstream reflect.Type, path string) []string {
	for mirror.Kind() == upstream.Kind() && (mirror.Kind() == reflect.Pointer || mirror.Kind() == reflect.Slice) {
		if mirror.Kind() == reflect.Slice {
			path += "[]"
		}
		mirror, upstream = mirror.Elem(), upstream.Elem()
	}
	if mirror == upstream || mirror.Kind() != reflect.Struct || upstream.Kind() != reflect.Struct {
		return nil
	}
	mf := jsonFields(mirror)
	var missing []string
	for name, ut := range jsonFields(upstream) {
		mt, ok := mf[name]
		if !ok {
			missing = append(missing, path+"."+name)
			continue
		}
		missing = append(missing, missingFields(mt, ut, path+"."+name)...)
	}
	return missing
}

// jsonFields maps the JSON names of t's fields to their types, with embedded
// structs flattened as encoding/json does.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	fields := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-" || !f.IsExported() && !f.Anonymous:
			continue
		case f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct:
			for n, ft := range jsonFields(f.Type) {
				fields[n] = ft
			}
			continue
		case name == "":
			name = f.Name
		}
		fields[name] = f.Type
	}
	return fields
}

// nest returns the JSON object that holds value at path ("a.b", "a[].b").
func nest(path string, value json.RawMessage) ([]byte, error) {
	var v any = value
	parts := strings.Split(path, ".")
	for i := len(parts) - 1; i >= 0; i-- {
		name, list := strings.CutSuffix(parts[i], "[]")
		if list {
			v = []any{v}
		}
		v = map[string]any{name: v}
	}
	return json.Marshal(v)
}

// at returns the JSON value at path in doc, the first element of each list.
func at(t *testing.T, doc []byte, path string) []byte {
	t.Helper()
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatal(err)
	}
	for _, part := range strings.Split(path, ".") {
		name, list := strings.CutSuffix(part, "[]")
		m, _ := v.(map[string]any)
		v = m[name]
		if l, _ := v.([]any); list && len(l) > 0 {
			v = l[0]
		}
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// readCRDSchema returns the openAPIV3Schema of the storage version of the
// CRD in config/crd/operands.
func readCRDSchema(t *testing.T, file string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "config", "crd", "operands", file))
	if err != nil {
		t.Fatal(err)
	}
	var crd struct {
		Spec struct {
			Versions []struct {
				Storage bool `json:"storage"`
				Schema  struct {
					OpenAPIV3Schema map[string]any `json:"openAPIV3Schema"`
				} `json:"schema"`
			} `json:"versions"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(data, &crd); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			return v.Schema.OpenAPIV3Schema
		}
	}
	t.Fatalf("%s: no storage version", file)
	return nil
}

// schemaHas reports whether path is a property in the OpenAPI schema.
func schemaHas(schema map[string]any, path string) bool {
	for _, part := range strings.Split(path, ".") {
		name, list := strings.CutSuffix(part, "[]")
		props, _ := schema["properties"].(map[string]any)
		next, ok := props[name].(map[string]any)
		if !ok {
			return false
		}
		if list {
			if next, ok = next["items"].(map[string]any); !ok {
				return false
			}
		}
		schema = next
	}
	return true
}

// jsonEqual reports whether a and b hold the same JSON value.
func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var av, bv any
	if err := json.Unmarshal(a, &av); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &bv); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(av, bv)
}

// TestNetworkAddonsConfigTranslatedFieldsReadUpstream writes, in the mirror,
// the spec fields the operator translates from the HyperConverged, as it
// writes them (kubeMacPool's range, KubeSecondaryDNS with a name server, the
// IPAM controller, each kind of TLS profile), and requires upstream's type
// to read the same values after a strict decode. (The operator itself is
// not imported: this module pins older controller-runtime for CNAO.)
func TestNetworkAddonsConfigTranslatedFieldsReadUpstream(t *testing.T) {
	profiles := map[string]*ocpconfigv1.TLSSecurityProfile{
		"Old":          {Type: ocpconfigv1.TLSProfileOldType, Old: &ocpconfigv1.OldTLSProfile{}},
		"Intermediate": {Type: ocpconfigv1.TLSProfileIntermediateType, Intermediate: &ocpconfigv1.IntermediateTLSProfile{}},
		"Modern":       {Type: ocpconfigv1.TLSProfileModernType, Modern: &ocpconfigv1.ModernTLSProfile{}},
		"Custom": {Type: ocpconfigv1.TLSProfileCustomType, Custom: &ocpconfigv1.CustomTLSProfile{
			TLSProfileSpec: ocpconfigv1.TLSProfileSpec{Ciphers: []string{"ECDHE-ECDSA-AES128-GCM-SHA256"}, MinTLSVersion: ocpconfigv1.VersionTLS12},
		}},
	}
	for name, profile := range profiles {
		t.Run(name, func(t *testing.T) {
			nac := &cnaov1.NetworkAddonsConfig{
				TypeMeta:   metav1.TypeMeta{APIVersion: cnaov1.GroupVersion.String(), Kind: "NetworkAddonsConfig"},
				ObjectMeta: metav1.ObjectMeta{Name: "cluster"},
				Spec: cnaov1.NetworkAddonsConfigSpec{
					KubeMacPool:            &cnaov1.KubeMacPool{RangeStart: "02:00:00:00:00:00", RangeEnd: "02:00:00:00:FF:FF"},
					KubeSecondaryDNS:       &cnaov1.KubeSecondaryDNS{NameServerIP: "192.168.1.10"},
					KubevirtIpamController: &cnaov1.KubevirtIpamController{},
					TLSSecurityProfile:     profile.DeepCopy(),
				},
			}
			data, err := json.Marshal(nac)
			if err != nil {
				t.Fatal(err)
			}
			up := &cnaoupstream.NetworkAddonsConfig{}
			dec := json.NewDecoder(bytes.NewReader(data))
			dec.DisallowUnknownFields()
			if err := dec.Decode(up); err != nil {
				t.Fatalf("does not decode strictly into %T: %v\n%s", up, err, data)
			}
			if got := up.Spec.KubeMacPool; got == nil || got.RangeStart != "02:00:00:00:00:00" || got.RangeEnd != "02:00:00:00:FF:FF" {
				t.Errorf("upstream reads spec.kubeMacPool as %+v", got)
			}
			if got := up.Spec.KubeSecondaryDNS; got == nil || got.NameServerIP != "192.168.1.10" {
				t.Errorf("upstream reads spec.kubeSecondaryDNS as %+v", got)
			}
			if up.Spec.KubevirtIpamController == nil {
				t.Error("upstream reads no spec.kubevirtIpamController ({} must enable it)")
			}
			if !reflect.DeepEqual(up.Spec.TLSSecurityProfile, profile) {
				t.Errorf("upstream reads spec.tlsSecurityProfile as %+v, want %+v", up.Spec.TLSSecurityProfile, profile)
			}
		})
	}
}
