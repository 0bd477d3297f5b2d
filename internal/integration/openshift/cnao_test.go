package openshift

import (
	"context"
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/featuregates"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/internal/testenv"
	"github.com/hcokit/hcokit/operands/cnao"
)

// expectNetworkAddons waits until the NetworkAddonsConfig's IPAM namespace
// and secondary DNS domain are want.
func expectNetworkAddons(t *testing.T, nadNamespace, domain string) {
	t.Helper()
	testenv.Eventually(t, fmt.Sprintf("the NetworkAddonsConfig with %q, %q", nadNamespace, domain), func() error {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(schema.GroupVersionKind{Group: "networkaddonsoperator.network.kubevirt.io", Version: "v1", Kind: "NetworkAddonsConfig"})
		if err := k.Get(context.Background(), client.ObjectKey{Name: cnao.CRName}, u); err != nil {
			return err
		}
		ns, _, _ := unstructured.NestedString(u.Object, "spec", "kubevirtIpamController", "defaultNetworkNADNamespace")
		d, _, _ := unstructured.NestedString(u.Object, "spec", "kubeSecondaryDNS", "domain")
		if ns != nadNamespace || d != domain {
			return fmt.Errorf("defaultNetworkNADNamespace %q, kubeSecondaryDNS.domain %q", ns, d)
		}
		return nil
	})
}

// On OpenShift the NetworkAddonsConfig names OVN-Kubernetes' namespace for
// the default network's NetworkAttachmentDefinitions, and the secondary
// DNS serves under the DNS configuration's base domain, which it follows.
func TestNetworkAddonsOnOpenShift(t *testing.T) {
	env.Require(t)
	t.Cleanup(func() {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(schema.GroupVersionKind{Group: "config.openshift.io", Version: "v1", Kind: "DNS"})
		u.SetName(hco.ClusterConfigName)
		testenv.DeleteAndWait(t, k, u)
	})
	setConfig(t, "DNS", map[string]any{"baseDomain": "example.com"}, nil)
	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: ns}}
	hc.Spec.FeatureGates.Set(featuregates.GateDeployKubeSecondaryDNS, true)
	testenv.CreateForTest(t, k, hc)
	expectNetworkAddons(t, cnao.OpenShiftNADNamespace, "example.com")

	setConfig(t, "DNS", map[string]any{"baseDomain": "other.example.com"}, nil)
	expectNetworkAddons(t, cnao.OpenShiftNADNamespace, "other.example.com")
}
