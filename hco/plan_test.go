package hco

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
)

var configMapKind = schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}

// planOperand builds ConfigMaps named in names, each with data x=value; it
// names a jsonpatch annotation, and its ConfigMaps keep data.kept as found.
type planOperand struct {
	namedOperand
	names []string
	value string
}

func (p planOperand) Kinds() []client.Object {
	return []client.Object{&corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}}}
}

func (p planOperand) Desired(hc *hcov1.HyperConverged, _ Facts) ([]client.Object, error) {
	if p.value == "invalid" {
		return nil, errors.New("spec.x: invalid")
	}
	var out []client.Object
	for _, n := range p.names {
		out = append(out, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: n, Namespace: hc.Namespace, Labels: Labels(hc, Environment{}, "test")},
			Data: map[string]string{"x": p.value}})
	}
	return out, nil
}

func (planOperand) JSONPatchAnnotation() string { return "test.kubevirt.io/jsonpatch" }

func (planOperand) KeptFields(schema.GroupVersionKind, string) [][]string {
	return [][]string{{"data", "kept"}}
}

// fakeView holds objects by name; served says whether ConfigMaps are.
type fakeView struct {
	served  bool
	objects map[string]*unstructured.Unstructured
}

func (v fakeView) Served(schema.GroupVersionKind) bool { return v.served }

func (v fakeView) Live(_ context.Context, _ schema.GroupVersionKind, key client.ObjectKey) *unstructured.Unstructured {
	return v.objects[key.Name]
}

func (v fakeView) Managed(context.Context, schema.GroupVersionKind) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	for _, o := range v.objects {
		out = append(out, o)
	}
	return out, nil
}

// The plan without a cluster: a missing object is created with the owner
// record, one in sync is kept, a drifted one updated (what another manager
// keeps, kept), one no operand builds any more deleted; an operand whose API
// is not served waits and deletes nothing; one that cannot build is an
// error and deletes nothing; another install's object is an error; a
// jsonpatch in effect is named on the first object.
func TestPlan(t *testing.T) {
	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: "ns", UID: "hc-uid"}}
	owner := Owner{Namespace: "ns", Name: hcov1.HyperConvergedName, UID: "hc-uid", AdoptsUnrecorded: true}
	live := func(name, x string, data ...string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("v1")
		u.SetKind("ConfigMap")
		u.SetName(name)
		u.SetNamespace("ns")
		u.SetResourceVersion("7")
		u.SetLabels(Labels(hc, Environment{}, "test"))
		d := map[string]any{"x": x}
		for i := 0; i+1 < len(data); i += 2 {
			d[data[i]] = data[i+1]
		}
		u.Object["data"] = d
		return u
	}
	plan := func(t *testing.T, op planOperand, hc *hcov1.HyperConverged, v fakeView) Plan {
		t.Helper()
		reg, err := NewRegistry(op)
		require.NoError(t, err)
		p, err := NewPlan(context.Background(), reg, hc, Facts{}, v, owner)
		require.NoError(t, err)
		return p
	}
	verbs := func(p Plan) map[string]Verb {
		out := map[string]Verb{}
		for _, s := range p.Steps {
			out[s.Key.Name] = s.Verb
		}
		return out
	}
	op := planOperand{namedOperand: "test", names: []string{"a", "b", "c"}, value: "1"}
	theirs := live("b", "2", "kept", "by-them")
	v := fakeView{served: true, objects: map[string]*unstructured.Unstructured{
		"b": theirs, "c": live("c", "1"), "gone": live("gone", "1"),
	}}

	p := plan(t, op, hc, v)
	assert.Equal(t, map[string]Verb{"a": VerbCreate, "b": VerbUpdate, "c": VerbKeep, "gone": VerbDelete}, verbs(p))
	for _, s := range p.Steps {
		switch s.Key.Name {
		case "a":
			require.Len(t, s.Send.GetOwnerReferences(), 1, "a create carries the owner record")
			assert.Equal(t, owner.UID, s.Send.GetOwnerReferences()[0].UID)
			assert.Nil(t, s.Live)
		case "b":
			assert.Equal(t, "7", s.Send.GetResourceVersion(), "the update's precondition is the version observed")
			data, _, _ := unstructured.NestedStringMap(s.Send.Object, "data")
			assert.Equal(t, map[string]string{"x": "1", "kept": "by-them"}, data, "the desired content, another manager's kept field as found")
			assert.Equal(t, "2", theirs.Object["data"].(map[string]any)["x"], "the observed object is not changed")
		case "c":
			assert.Nil(t, s.Send)
		}
	}
	assert.Empty(t, p.Waiting)
	assert.Empty(t, p.Errors)

	t.Run("API not served", func(t *testing.T) {
		p := plan(t, op, hc, fakeView{served: false, objects: v.objects})
		assert.Empty(t, p.Steps, "nothing written, nothing deleted")
		require.Len(t, p.Waiting, 1)
		assert.Contains(t, p.Waiting[0], "operand test waits for its API")
	})
	t.Run("cannot build", func(t *testing.T) {
		bad := op
		bad.value = "invalid"
		p := plan(t, bad, hc, v)
		assert.Empty(t, p.Steps, "nothing written, nothing deleted")
		require.Len(t, p.Errors, 1)
		assert.ErrorContains(t, p.Errors[0], "operand test: spec.x: invalid")
	})
	t.Run("another install's object", func(t *testing.T) {
		other := live("a", "1")
		other.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "hco.kubevirt.io/v1", Kind: "HyperConverged", Name: "another-hyperconverged", UID: "other-uid"}})
		p := plan(t, op, hc, fakeView{served: true, objects: map[string]*unstructured.Unstructured{"a": other, "gone": live("gone", "1")}})
		assert.Empty(t, p.Steps, "nothing written, nothing deleted")
		require.Len(t, p.Errors, 1)
		assert.ErrorContains(t, p.Errors[0], "belongs to")
	})
	t.Run("jsonpatch", func(t *testing.T) {
		patched := hc.DeepCopy()
		patched.Annotations = map[string]string{"test.kubevirt.io/jsonpatch": `[{"op":"add","path":"/spec/x","value":1}]`}
		// A ConfigMap has no spec: the patch cannot apply, an error.
		p := plan(t, op, patched, v)
		require.Len(t, p.Errors, 1)
		patched.Annotations["test.kubevirt.io/jsonpatch"] = `[]`
		p = plan(t, op, patched, v)
		require.NotEmpty(t, p.Steps)
		assert.Equal(t, "test.kubevirt.io/jsonpatch", p.Steps[0].JSONPatch, "named on the first object")
		assert.Equal(t, "", p.Steps[1].JSONPatch)
	})
}

// A workload whose selector the build changes (upstream's labels carry the
// version, and its workloads select by them) is replaced: deleted and
// created again, since the API server refuses to change a selector; one
// whose selector is the same is updated.
func TestPlanReplacesAWorkloadWhoseSelectorChanges(t *testing.T) {
	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: "ns", UID: "hc-uid"}}
	owner := Owner{Namespace: "ns", Name: hcov1.HyperConvergedName, UID: "hc-uid", AdoptsUnrecorded: true}
	deployment := func(version string, replicas int64) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{
			"replicas": replicas,
			"selector": map[string]any{"matchLabels": map[string]any{"version": version}},
		}}}
		u.SetAPIVersion("apps/v1")
		u.SetKind("Deployment")
		u.SetName("d")
		u.SetNamespace("ns")
		u.SetLabels(Labels(hc, Environment{}, "test"))
		return u
	}
	op := planOperand{namedOperand: "test"}
	want := deployment("2", 1)
	for _, tc := range []struct {
		live *unstructured.Unstructured
		verb Verb
	}{
		{deployment("1", 1), VerbReplace},
		{deployment("2", 2), VerbUpdate},
		{deployment("2", 1), VerbKeep},
	} {
		s, err := planObject(op, want, tc.live, fakeView{served: true}, owner)
		require.NoError(t, err)
		assert.Equal(t, tc.verb, s.Verb)
		if tc.verb == VerbReplace {
			assert.Empty(t, s.Send.GetResourceVersion(), "the create after the delete carries no precondition")
			assert.Len(t, s.Send.GetOwnerReferences(), 1, "the create carries the owner record")
		}
	}
}

// A refusal of the object a jsonpatch annotation changed is the
// annotation's doing, named with the fix; any other failure, or a step
// without the annotation, is not.
func TestStepRefusedPatch(t *testing.T) {
	invalid := apierrors.NewInvalid(schema.GroupKind{Group: "kubevirt.io", Kind: "KubeVirt"}, "kv", nil)
	patched := Step{JSONPatch: "kubevirt.kubevirt.io/jsonpatch"}
	err := patched.RefusedPatch(invalid)
	if err == nil || !strings.Contains(err.Error(), `annotation "kubevirt.kubevirt.io/jsonpatch": the API server refuses the object it patches`) ||
		!strings.Contains(err.Error(), "fix the patch or remove the annotation") || !errors.Is(err, invalid) {
		t.Errorf("patched, refused: %v", err)
	}
	if err := patched.RefusedPatch(apierrors.NewBadRequest("bad")); err == nil {
		t.Error("patched, a bad request: not blamed")
	}
	if err := patched.RefusedPatch(apierrors.NewConflict(schema.GroupResource{Resource: "kubevirts"}, "kv", nil)); err != nil {
		t.Errorf("patched, a conflict: blamed %v", err)
	}
	if err := (Step{}).RefusedPatch(invalid); err != nil {
		t.Errorf("no annotation: blamed %v", err)
	}
}
