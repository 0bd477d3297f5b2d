package hco_test

import (
	"cmp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hcostatus"
)

// fakeOperand returns one ConfigMap named after itself.
type fakeOperand struct {
	name    string
	variant string
	err     error
}

func (f fakeOperand) Name() string           { return f.name }
func (f fakeOperand) Kinds() []client.Object { return []client.Object{&corev1.ConfigMap{}} }
func (f fakeOperand) Desired(hc *hcov1.HyperConverged, facts hco.Facts) ([]client.Object, error) {
	if f.err != nil {
		return nil, f.err
	}
	return []client.Object{&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: f.name + f.variant, Namespace: facts.Namespace, Labels: hco.Labels(hc, facts.Environment, "test")}}}, nil
}
func (f fakeOperand) Status([]client.Object) hcostatus.Component { return hcostatus.NotFound(f.name) }

func names(ops []hco.Operand) []string {
	out := make([]string, len(ops))
	for i, op := range ops {
		out[i] = op.Name()
	}
	return out
}

func TestRegistryKeepsRegistrationOrder(t *testing.T) {
	r, err := hco.NewRegistry(fakeOperand{name: "b"}, fakeOperand{name: "a"}, fakeOperand{name: "c"})
	require.NoError(t, err)
	assert.Equal(t, []string{"b", "a", "c"}, names(r.Operands()))
	assert.Equal(t, []string{"b", "a", "c"}, r.Names())
}

func TestRegistryRefusesDuplicatesAndEmptyNames(t *testing.T) {
	_, err := hco.NewRegistry(fakeOperand{name: "a"}, fakeOperand{name: "a"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"a"`)
	assert.Contains(t, err.Error(), "Replace")

	r := &hco.Registry{}
	assert.Error(t, r.Register(fakeOperand{}))
	assert.Error(t, r.Register(nil))
}

func TestRegistryReplaceKeepsPositionAndState(t *testing.T) {
	r, err := hco.NewRegistry(fakeOperand{name: "a"}, fakeOperand{name: "b"}, fakeOperand{name: "c"})
	require.NoError(t, err)
	require.NoError(t, r.Disable("b"))
	require.NoError(t, r.Replace(fakeOperand{name: "b", variant: "-custom"}))
	assert.Equal(t, []string{"a", "c"}, names(r.Operands()), "replace must not re-enable")

	require.NoError(t, r.Enable("b"))
	assert.Equal(t, []string{"a", "b", "c"}, names(r.Operands()))
	op, ok := r.Get("b")
	require.True(t, ok)
	assert.Equal(t, "-custom", op.(fakeOperand).variant)

	err = r.Replace(fakeOperand{name: "missing"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "registered: [a b c]")
}

func TestRegistryDisableAndOnly(t *testing.T) {
	r, err := hco.NewRegistry(fakeOperand{name: "a"}, fakeOperand{name: "b"}, fakeOperand{name: "c"})
	require.NoError(t, err)
	assert.Error(t, r.Disable("nope"))

	require.NoError(t, r.Only("c", "a"))
	assert.Equal(t, []string{"a", "c"}, names(r.Operands()), "Only keeps registration order")

	require.Error(t, r.Only("a", "nope"))
	assert.Equal(t, []string{"a", "c"}, names(r.Operands()), "a failed Only changes nothing")
}

func TestRenderInRegistrationOrderAndNamesTheFailingOperand(t *testing.T) {
	hc := &hcov1.HyperConverged{}
	env := hco.OfflineFacts(hco.Environment{Namespace: "ns"})
	r, err := hco.NewRegistry(fakeOperand{name: "b"}, fakeOperand{name: "a"})
	require.NoError(t, err)
	objs, err := hco.Render(r, hc, env)
	require.NoError(t, err)
	require.Len(t, objs, 2)
	assert.Equal(t, "b", objs[0].GetName())
	assert.Equal(t, "a", objs[1].GetName())

	require.NoError(t, r.Register(fakeOperand{name: "broken", err: assert.AnError}))
	_, err = hco.Render(r, hc, env)
	require.ErrorIs(t, err, assert.AnError)
	assert.Contains(t, err.Error(), "operand broken")
}

// An operand whose objects lack the labels the operator finds them by is
// refused, naming it: they would be created on every reconcile and outlive
// the HyperConverged.
func TestDesiredObjectsNeedTheManagedLabels(t *testing.T) {
	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName}}
	_, err := hco.DesiredObjects(unlabelled{}, hc, hco.OfflineFacts(hco.Environment{Namespace: "ns"}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `operand unlabelled builds *v1.ConfigMap "x" without the labels`)
	assert.Contains(t, err.Error(), "hco.Labels")
}

type unlabelled struct{}

func (unlabelled) Name() string           { return "unlabelled" }
func (unlabelled) Kinds() []client.Object { return []client.Object{&corev1.ConfigMap{}} }
func (unlabelled) Desired(*hcov1.HyperConverged, hco.Facts) ([]client.Object, error) {
	return []client.Object{&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x"}}}, nil
}
func (unlabelled) Status([]client.Object) hcostatus.Component { return hcostatus.NotFound("x") }

// elsewhereOperand puts ConfigMaps (or kind) in other namespaces on OpenShift.
type elsewhereOperand struct {
	fakeOperand
	namespaces []string
	kind       string
}

func (e elsewhereOperand) OtherNamespaces(openShift bool) map[schema.GroupVersionKind][]string {
	if !openShift {
		return nil
	}
	return map[schema.GroupVersionKind][]string{corev1.SchemeGroupVersion.WithKind(cmp.Or(e.kind, "ConfigMap")): e.namespaces}
}

// The enabled operands' other namespaces, per kind, sorted, each once,
// without the operator's own, or AnyNamespace alone; none off OpenShift,
// none of a disabled operand.
func TestRegistryOtherNamespaces(t *testing.T) {
	cm := corev1.SchemeGroupVersion.WithKind("ConfigMap")
	r, err := hco.NewRegistry(fakeOperand{name: "plain"},
		elsewhereOperand{fakeOperand{name: "a"}, []string{"zeta", "shared", "virt"}, ""},
		elsewhereOperand{fakeOperand{name: "b"}, []string{"shared", ""}, ""},
		elsewhereOperand{fakeOperand{name: "off"}, []string{"disabled-only"}, ""},
		elsewhereOperand{fakeOperand{name: "anywhere"}, []string{"first", hco.AnyNamespace}, "Secret"},
		elsewhereOperand{fakeOperand{name: "there"}, []string{"second"}, "Secret"})
	require.NoError(t, err)
	require.NoError(t, r.Disable("off"))
	assert.Equal(t, map[schema.GroupVersionKind][]string{cm: {"shared", "zeta"}, corev1.SchemeGroupVersion.WithKind("Secret"): {hco.AnyNamespace}},
		r.OtherNamespaces("virt", true), "AnyNamespace stands for the others")
	assert.Nil(t, r.OtherNamespaces("virt", false))
}

// The namespaces the operator lists a kind in: its own and those the
// operands name for a namespaced kind; the whole cluster for a
// cluster-scoped kind or with AnyNamespace.
func TestListNamespaces(t *testing.T) {
	assert.Equal(t, []string{""}, hco.ListNamespaces(false, "virt", nil))
	assert.Equal(t, []string{"virt"}, hco.ListNamespaces(true, "virt", nil))
	assert.Equal(t, []string{"virt", "openshift-config-managed"}, hco.ListNamespaces(true, "virt", []string{"openshift-config-managed"}))
	assert.Equal(t, []string{""}, hco.ListNamespaces(true, "virt", []string{hco.AnyNamespace}))
}
