package bundle_test

import (
	"encoding/json"
	"os"
	"slices"
	"sort"
	"testing"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/yaml"
)

// upstreamCSVFile is upstream HCO's CSV at 03da3cf
// (testdata/upstream-03da3cf/README.md).
const upstreamCSVFile = "testdata/upstream-03da3cf/kubevirt-hyperconverged-operator.v1.20.0.clusterserviceversion.yaml"

// upstreamOwn are the Deployments of upstream's CSV that are not component
// operators: upstream's own operator and webhook (hcokit's are hco-operator
// and hco-webhook).
var upstreamOwn = []string{"hco-operator", "hco-webhook"}

func upstreamCSV(t *testing.T) *v1alpha1.ClusterServiceVersion {
	t.Helper()
	data, err := os.ReadFile(upstreamCSVFile)
	if err != nil {
		t.Fatal(err)
	}
	csv := &v1alpha1.ClusterServiceVersion{}
	if err := yaml.Unmarshal(data, csv); err != nil {
		t.Fatal(err)
	}
	return csv
}

func permissionsOf(perms []v1alpha1.StrategyDeploymentPermissions) map[string][]rbacv1.PolicyRule {
	out := map[string][]rbacv1.PolicyRule{}
	for _, p := range perms {
		out[p.ServiceAccountName] = append(out[p.ServiceAccountName], p.Rules...)
	}
	return out
}

func asJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// The component operators of hcokit's bundle are upstream's CSV's at
// 03da3cf: every Deployment of it but upstream's own, with the same spec; the
// same permissions and cluster permissions for each of their service
// accounts (none broader); the same webhook definitions; every CRD upstream
// owns; every related image upstream lists but its own operator's.
func TestComponentOperatorsAreUpstreams(t *testing.T) {
	up := upstreamCSV(t)
	ours := build(t, nil).CSV
	upStrategy, ourStrategy := up.Spec.InstallStrategy.StrategySpec, ours.Spec.InstallStrategy.StrategySpec

	ourDeployments := map[string]v1alpha1.StrategyDeploymentSpec{}
	for _, d := range ourStrategy.DeploymentSpecs {
		ourDeployments[d.Name] = d
	}
	accounts := map[string]bool{}
	for _, d := range upStrategy.DeploymentSpecs {
		if slices.Contains(upstreamOwn, d.Name) {
			continue
		}
		accounts[d.Spec.Template.Spec.ServiceAccountName] = true
		got, ok := ourDeployments[d.Name]
		if !ok {
			t.Errorf("Deployment %s of upstream's CSV is not in the bundle", d.Name)
			continue
		}
		want := d.Spec.DeepCopy()
		// hostpath-provisioner-operator's certificate volume: OLM mounts
		// its own there (the generator drops a Secret volume nothing in the
		// bundle creates, at OLM's certificate paths).
		if d.Name == "hostpath-provisioner-operator" {
			want.Template.Spec.Volumes = nil
			want.Template.Spec.Containers[0].VolumeMounts = nil
		}
		// The virtctl download server: its description is upstream's
		// deploy/operator.yaml, which pulls its (tagged, not digested)
		// image Always where upstream's CSV says IfNotPresent.
		if d.Name == "hyperconverged-cluster-cli-download" {
			want.Template.Spec.Containers[0].ImagePullPolicy = "Always"
		}
		if !equality.Semantic.DeepEqual(*want, got.Spec) {
			t.Errorf("Deployment %s differs from upstream's CSV:\nwant %s\ngot  %s", d.Name, asJSON(t, want), asJSON(t, got.Spec))
		}
	}
	for _, kind := range []struct {
		name     string
		up, ours []v1alpha1.StrategyDeploymentPermissions
	}{
		{"permissions", upStrategy.Permissions, ourStrategy.Permissions},
		{"clusterPermissions", upStrategy.ClusterPermissions, ourStrategy.ClusterPermissions},
	} {
		want, got := permissionsOf(kind.up), permissionsOf(kind.ours)
		for sa := range accounts {
			if !equality.Semantic.DeepEqual(want[sa], got[sa]) {
				t.Errorf("%s of %s differ from upstream's CSV:\nwant %s\ngot  %s", kind.name, sa, asJSON(t, want[sa]), asJSON(t, got[sa]))
			}
		}
	}

	hooks := func(csv *v1alpha1.ClusterServiceVersion) map[string]v1alpha1.WebhookDescription {
		out := map[string]v1alpha1.WebhookDescription{}
		for _, w := range csv.Spec.WebhookDefinitions {
			if !slices.Contains(upstreamOwn, w.DeploymentName) && !ownDeployment(w.DeploymentName) {
				out[w.GenerateName] = w
			}
		}
		return out
	}
	if want, got := hooks(up), hooks(ours); !equality.Semantic.DeepEqual(want, got) {
		t.Errorf("the component operators' webhook definitions differ from upstream's CSV:\nwant %s\ngot  %s", asJSON(t, want), asJSON(t, got))
	}

	owned := func(csv *v1alpha1.ClusterServiceVersion) []string {
		var out []string
		for _, o := range csv.Spec.CustomResourceDefinitions.Owned {
			out = append(out, o.Name+"/"+o.Version)
		}
		sort.Strings(out)
		return slices.Compact(out)
	}
	for _, name := range owned(up) {
		if !slices.Contains(owned(ours), name) {
			t.Errorf("owned CRD %s of upstream's CSV is not owned by the bundle's", name)
		}
	}

	// The console's operand deletion: off from the start, as upstream's CSV
	// ships it (the operator then keeps it following uninstallStrategy).
	if got, want := ours.Annotations["console.openshift.io/disable-operand-delete"], up.Annotations["console.openshift.io/disable-operand-delete"]; got != want {
		t.Errorf("annotation console.openshift.io/disable-operand-delete %q: want upstream's %q", got, want)
	}

	images := map[string]bool{}
	for _, r := range ours.Spec.RelatedImages {
		images[r.Image] = true
	}
	// upstream's own operator's, webhook's and CLI download's images, and the
	// operand images its operator's environment names, are hcokit's own
	// business (config/manager): left out here.
	upstreamOwnImages := map[string]bool{}
	for _, d := range upStrategy.DeploymentSpecs {
		if !slices.Contains(upstreamOwn, d.Name) {
			continue
		}
		for _, c := range d.Spec.Template.Spec.Containers {
			upstreamOwnImages[c.Image] = true
			for _, e := range c.Env {
				upstreamOwnImages[e.Value] = true
			}
		}
	}
	for _, r := range up.Spec.RelatedImages {
		// kube-rbac-proxy: CNAO's own CSV lists it (build-manifests.sh's
		// --kube-rbac-proxy-image), but no Deployment of 03da3cf's names it:
		// nothing runs it.
		if upstreamOwnImages[r.Image] || r.Name == "origin-kube-rbac-proxy" {
			continue
		}
		if !images[r.Image] {
			t.Errorf("related image %s (%s) of upstream's CSV is not in the bundle's", r.Image, r.Name)
		}
	}
}
