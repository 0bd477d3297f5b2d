package stock_test

import (
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hcokit/hcokit/operands/hpp"
	"github.com/hcokit/hcokit/operands/stock"
)

// The default operands are stock operands, in registry order, without the
// opt-in hpp; Registry enables exactly them, or exactly those named.
func TestDefaultAndRegistry(t *testing.T) {
	var all []string
	for _, op := range stock.Operands() {
		all = append(all, op.Name())
	}
	want := slices.DeleteFunc(slices.Clone(all), func(n string) bool { return n == hpp.Name })
	assert.Equal(t, want, stock.Default(), "every stock operand but hpp, in registry order")

	reg, err := stock.Registry()
	require.NoError(t, err)
	assert.Equal(t, all, reg.Names(), "every stock operand registered")
	var enabled []string
	for _, op := range reg.Operands() {
		enabled = append(enabled, op.Name())
	}
	assert.Equal(t, stock.Default(), enabled)

	reg, err = stock.Registry("kubevirt", "hpp")
	require.NoError(t, err)
	assert.Len(t, reg.Operands(), 2)

	_, err = stock.Registry("kubevirt", "nope")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"nope"`)
	assert.Contains(t, err.Error(), "namespacepolicy", "the error lists the known operands")
}

// SSP is on only where its API is served on plain Kubernetes, unless it
// is required by name; on OpenShift, or disabled, nothing changes. The
// Perses dashboards are on only where their API is served on every
// platform, unless required by name; an operand that is neither stays
// required.
func TestPlatformDefaults(t *testing.T) {
	tests := []struct {
		name      string
		openShift bool
		enabled   []string
		required  []string
		ssp       bool
		perses    bool
	}{
		{name: "plain Kubernetes, the defaults", ssp: true, perses: true},
		{name: "plain Kubernetes, ssp required by name", required: []string{"ssp"}, perses: true},
		{name: "OpenShift", openShift: true, perses: true},
		{name: "OpenShift, perses required by name", openShift: true, required: []string{"perses"}},
		{name: "plain Kubernetes, perses required by name", required: []string{"perses"}, ssp: true},
		{name: "plain Kubernetes, ssp and perses not enabled", enabled: []string{"kubevirt"}},
		{name: "OpenShift, perses not enabled", openShift: true, enabled: []string{"kubevirt", "ssp"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			reg, err := stock.Registry(tc.enabled...)
			require.NoError(t, err)
			require.NoError(t, stock.PlatformDefaults(reg, tc.openShift, tc.required))
			assert.Equal(t, tc.ssp, reg.WhereServed("ssp"), "ssp")
			assert.Equal(t, tc.perses, reg.WhereServed("perses"), "perses")
			for _, name := range reg.Names() {
				if name != "ssp" && name != "perses" {
					assert.False(t, reg.WhereServed(name), "%s: only the OpenShift-only and the add-ons' operands", name)
				}
			}
		})
	}
}

// Adding a stock operand is its package and one line in Operands: every
// operand package under operands/ is in Operands, and carries its RBAC
// (rbac.go: the markers hack/generate.sh gathers into config/rbac/role.yaml,
// or why it has none), so that nothing else must be edited.
func TestEveryOperandPackageIsStockWithItsRBAC(t *testing.T) {
	listed := map[string]bool{}
	for _, op := range stock.Operands() {
		listed[path.Base(reflect.TypeOf(op).PkgPath())] = true
	}
	entries, err := os.ReadDir("..")
	require.NoError(t, err)
	packages := 0
	for _, e := range entries {
		if !e.IsDir() || e.Name() == "stock" || e.Name() == "workload" { // this package; shared builders
			continue
		}
		packages++
		assert.True(t, listed[e.Name()], "operands/%s is not in stock.Operands", e.Name())
		_, err := os.Stat(filepath.Join("..", e.Name(), "rbac.go"))
		assert.NoError(t, err, "operands/%s has no rbac.go (its RBAC markers)", e.Name())
	}
	assert.Equal(t, len(stock.Operands()), packages, "one package per stock operand")
}
