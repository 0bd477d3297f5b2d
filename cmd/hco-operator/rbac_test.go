package main

import (
	"os"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"

	"github.com/hcokit/hcokit/operands/aaq"
	"github.com/hcokit/hcokit/operands/aie"
	"github.com/hcokit/hcokit/operands/cdi"
	"github.com/hcokit/hcokit/operands/clidownload"
	"github.com/hcokit/hcokit/operands/cnao"
	"github.com/hcokit/hcokit/operands/consoleplugin"
	"github.com/hcokit/hcokit/operands/namespacepolicy"
	"github.com/hcokit/hcokit/operands/netresinjector"
	"github.com/hcokit/hcokit/operands/priorityclass"
	"github.com/hcokit/hcokit/operands/waspagent"
)

// The operator's ClusterRole (config/rbac/role.yaml, from the markers in
// rbac.go and the operand packages) grants get, update and delete of the stock operands'
// cluster-scoped objects by their names only, the names the operands build
// (their constants), and never those verbs on these resources without names;
// of ClusterRoles, only bind on the workloads' (the install ships them).
func TestRBACNamesTheOperandObjects(t *testing.T) {
	want := map[string][]string{
		"cdis":                              {cdi.CRName},
		"networkaddonsconfigs":              {cnao.CRName},
		"aaqs":                              {aaq.CRName},
		"priorityclasses":                   {priorityclass.ObjectName},
		"validatingadmissionpolicies":       {namespacepolicy.PolicyName},
		"validatingadmissionpolicybindings": {namespacepolicy.BindingName},
		"mutatingwebhookconfigurations":     {netresinjector.WebhookConfigName, aie.ObjectName},
		"clusterrolebindings":               {netresinjector.ClusterRoleBindingName, aie.ObjectName, waspagent.ClusterRoleName}, // the observability controller's: its component
		"consoleclidownloads":               {clidownload.CLIDownloadName},
		"consoleplugins":                    {consoleplugin.PluginName},
	}
	raw, err := os.ReadFile("../../config/rbac/role.yaml")
	require.NoError(t, err)
	var role rbacv1.ClusterRole
	require.NoError(t, yaml.Unmarshal(raw, &role))
	granted := map[string]map[string][]string{} // resource → verb → names
	for _, r := range role.Rules {
		for _, res := range r.Resources {
			if _, ok := want[res]; !ok {
				continue
			}
			for _, v := range r.Verbs {
				if v != "get" && v != "update" && v != "delete" {
					continue
				}
				require.NotEmpty(t, r.ResourceNames, "%s of %s granted without names", v, res)
				if granted[res] == nil {
					granted[res] = map[string][]string{}
				}
				granted[res][v] = append(granted[res][v], r.ResourceNames...)
			}
		}
	}
	var bound []string
	for _, r := range role.Rules {
		if slices.Contains(r.Resources, "clusterroles") {
			assert.Equal(t, []string{"bind"}, r.Verbs, "the operator writes no ClusterRole: it binds the install's")
			bound = append(bound, r.ResourceNames...)
		}
	}
	assert.ElementsMatch(t, []string{netresinjector.ClusterRoleName, aie.ObjectName, waspagent.ClusterRoleName}, bound)
	for res, names := range want {
		for _, v := range []string{"get", "update", "delete"} {
			got := slices.Clone(granted[res][v])
			slices.Sort(got)
			names := slices.Clone(names)
			slices.Sort(names)
			assert.Equal(t, names, got, "%s of %s", v, res)
		}
	}
}
