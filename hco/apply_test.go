package hco

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	kvv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func TestContentLeavesOutMetadataAndStatus(t *testing.T) {
	a := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "a", ResourceVersion: "1", Labels: map[string]string{"x": "y"}},
		Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}},
		Status:     corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{Ingress: []corev1.LoadBalancerIngress{{IP: "1.2.3.4"}}}},
	}
	b := a.DeepCopy()
	b.Name, b.ResourceVersion, b.Labels, b.Status = "b", "2", nil, corev1.ServiceStatus{}
	ca, err := content(a)
	require.NoError(t, err)
	cb, err := content(b)
	require.NoError(t, err)
	assert.Equal(t, ca, cb, "only spec-like content counts")

	b.Spec.Ports[0].Port = 81
	cb, err = content(b)
	require.NoError(t, err)
	assert.NotEqual(t, ca, cb)
}

func TestMergedTakesDesiredContentAndKeepsOthersMetadata(t *testing.T) {
	observed := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "s", ResourceVersion: "7", UID: "u",
			Labels: map[string]string{"theirs": "1", "app": "old"}, Annotations: map[string]string{"note": "keep"}},
		Spec:   corev1.ServiceSpec{ClusterIP: "10.0.0.1", Ports: []corev1.ServicePort{{Port: 80}}},
		Status: corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{Ingress: []corev1.LoadBalancerIngress{{IP: "1.2.3.4"}}}},
	}
	desired := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "s", Labels: map[string]string{"app": "new"}},
		Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 8080}}},
	}
	out, err := merged(observed, desired)
	require.NoError(t, err)
	svc := out.(*corev1.Service)
	assert.Equal(t, "7", svc.ResourceVersion, "optimistic locking on the version read")
	assert.Equal(t, map[string]string{"theirs": "1", "app": "new"}, svc.Labels)
	assert.Equal(t, map[string]string{"note": "keep"}, svc.Annotations)
	assert.Equal(t, []corev1.ServicePort{{Port: 8080}}, svc.Spec.Ports)
	assert.Empty(t, svc.Spec.ClusterIP, "the desired spec replaces the observed one as a whole")
	assert.Equal(t, "1.2.3.4", svc.Status.LoadBalancer.Ingress[0].IP, "status is not ours")
	assert.Equal(t, "10.0.0.1", observed.Spec.ClusterIP, "the observed object is not changed")
}

func TestUnstructuredDesiredIsNotMutated(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "c"}, "data": map[string]any{"k": "v"},
	}}
	before, err := json.Marshal(u.Object)
	require.NoError(t, err)
	_, err = content(u)
	require.NoError(t, err)
	_, err = merged(u.DeepCopy(), u)
	require.NoError(t, err)
	after, err := json.Marshal(u.Object)
	require.NoError(t, err)
	assert.JSONEq(t, string(before), string(after))
}

func TestIsSubset(t *testing.T) {
	assert.True(t, isSubset(nil, map[string]string{"a": "1"}))
	assert.True(t, isSubset(map[string]string{"a": "1"}, map[string]string{"a": "1", "b": "2"}))
	assert.False(t, isSubset(map[string]string{"a": "1"}, map[string]string{"a": "2"}))
	assert.False(t, isSubset(map[string]string{"a": "1"}, nil))
}

func TestVersionsWaitOnlyForReportingOperands(t *testing.T) {
	reg, err := NewRegistry(namedOperand("kubevirt"), namedOperand("hpp"))
	require.NoError(t, err)
	r := &Reconciler{registry: reg, env: Environment{Version: "2", OperandVersions: map[string]string{"kubevirt": "v1", "hpp": "v9"}}}
	hc := hcForTest()

	_, done := r.versions(hc, Assessment{ObservedVersions: map[string]string{"kubevirt": "v0"}})
	assert.False(t, done, "kubevirt has not reached its version")

	vs, done := r.versions(hc, Assessment{ObservedVersions: map[string]string{"kubevirt": "v1"}})
	assert.True(t, done, "hpp wants nothing and reports nothing: not waited for")
	assert.Len(t, vs, 2)

	_, done = r.versions(hc, Assessment{ObservedVersions: map[string]string{"kubevirt": "v1"}, ProblemReason: ReasonInvalidConfiguration})
	assert.False(t, done, "no version is recorded while the configuration is invalid")
}

// inlineSpec has an inline field besides TypeMeta, which ownedFields does
// not read: content and merged take the map path for it.
type inlineSpec struct {
	metav1.TypeMeta    `json:",inline"`
	metav1.ObjectMeta  `json:"metadata,omitempty"`
	corev1.ServiceSpec `json:",inline"`
}

func (in *inlineSpec) DeepCopyObject() runtime.Object {
	out := *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	in.ServiceSpec.DeepCopyInto(&out.ServiceSpec)
	return &out
}

func TestOwnedFieldsReadsTypedObjectsAndDeclinesTheRest(t *testing.T) {
	fields, ok := ownedFields(&corev1.Service{})
	require.True(t, ok)
	require.Len(t, fields, 1)
	assert.Equal(t, "spec", fields[0].name)

	_, ok = ownedFields(&unstructured.Unstructured{})
	assert.False(t, ok, "Unstructured has no fields to read")
	_, ok = ownedFields(&inlineSpec{})
	assert.False(t, ok, "an inline field other than TypeMeta")

	a := &inlineSpec{ObjectMeta: metav1.ObjectMeta{Name: "a"}, ServiceSpec: corev1.ServiceSpec{ClusterIP: "10.0.0.1"}}
	b := &inlineSpec{ObjectMeta: metav1.ObjectMeta{Name: "b"}, ServiceSpec: corev1.ServiceSpec{ClusterIP: "10.0.0.2"}}
	ca, err := content(a)
	require.NoError(t, err)
	assert.JSONEq(t, `{"clusterIP":"10.0.0.1"}`, string(ca), "the map path leaves out metadata and keeps inline fields")
	m, err := merged(a, b)
	require.NoError(t, err)
	assert.Equal(t, "10.0.0.2", m.(*inlineSpec).ClusterIP)
	assert.Equal(t, "a", m.GetName())
}

// secret has state only its pointer-receiver MarshalJSON shows.
type secret struct{ v string }

func (s *secret) MarshalJSON() ([]byte, error) { return json.Marshal(s.v) }

type withSecret struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              secret            `json:"spec"`
	Extra             map[string]string `json:"extra,omitempty"`
	Skipped           string            `json:"-"`
	Count             int32             `json:"count,omitzero"`
}

func (in *withSecret) DeepCopyObject() runtime.Object { out := *in; return &out }

// The field-by-field content and the map-based one say the same: for the
// API types the operands write, and for the corners of encoding/json.
func TestContentByFieldsAgreesWithContentOfMap(t *testing.T) {
	cpu := resource.MustParse("100m")
	objects := []client.Object{
		&corev1.Service{Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}, Selector: map[string]string{"a": "b"}}},
		&corev1.ConfigMap{Data: map[string]string{}},
		&corev1.ConfigMap{Data: map[string]string{"k": "v"}, Immutable: ptr.To(true)},
		&appsv1.Deployment{Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](2), Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: cpu}}}}}}}},
		&kvv1.KubeVirt{Spec: kvv1.KubeVirtSpec{ImagePullPolicy: corev1.PullIfNotPresent, Configuration: kvv1.KubeVirtConfiguration{
			MigrationConfiguration: &kvv1.MigrationConfiguration{BandwidthPerMigration: ptr.To(resource.MustParse("64Mi"))}}}},
		&withSecret{Spec: secret{v: "a"}, Skipped: "x"},
		&withSecret{Spec: secret{v: "b"}, Extra: map[string]string{"k": "v"}, Count: 3},
	}
	for _, obj := range objects {
		_, ok := ownedFields(obj)
		require.True(t, ok, "%T is read field by field", obj)
		fast, err := content(obj)
		require.NoError(t, err)
		slow, err := contentOfMap(obj)
		require.NoError(t, err)
		assert.JSONEq(t, string(slow), string(fast), "%T", obj)
	}
	a, _ := content(&withSecret{Spec: secret{v: "a"}})
	b, _ := content(&withSecret{Spec: secret{v: "b"}})
	assert.NotEqual(t, a, b, "state behind a pointer-receiver MarshalJSON counts")
}

type jsonCorners struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Dash              string       `json:"-,"`
	When              *metav1.Time `json:"when,omitzero"`
}

func (in *jsonCorners) DeepCopyObject() runtime.Object { out := *in; return &out }

type asString struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	N                 int `json:"n,string"`
}

func (in *asString) DeepCopyObject() runtime.Object { out := *in; return &out }

func TestContentFollowsEncodingJSONCorners(t *testing.T) {
	got, err := content(&jsonCorners{Dash: "x", When: &metav1.Time{}})
	require.NoError(t, err)
	assert.JSONEq(t, `{"-":"x"}`, string(got), `"-," names a field "-"; omitzero asks the pointer's own IsZero`)
	_, ok := ownedFields(&asString{})
	assert.False(t, ok, ",string is left to the map path")
}
