package openshift

import (
	"fmt"
	"testing"

	ocpconfigv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/internal/testenv"
	"github.com/hcokit/hcokit/operands/clidownload"
)

// On OpenShift the virtctl download gets upstream's Route and
// ConsoleCLIDownload (the module's unit test compares them with upstream's
// handlers' output), which the CRDs of openshift/api take as sent, nothing
// pruned; an admin's component route in the Ingress configuration moves
// the Route's host and the console's links.
func TestVirtctlDownloadRouteAndConsoleLink(t *testing.T) {
	env.Require(t)
	setIngress(t, "apps.example.com")
	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: ns}}
	testenv.CreateForTest(t, k, hc)

	built := func(host string) []client.Object {
		facts := hco.OfflineFacts(operatorEnv)
		facts.Platform = hco.Platform{OpenShift: true, IngressDomain: "apps.example.com"}
		if host != "" {
			facts.Platform.ComponentRoutes = []ocpconfigv1.ComponentRouteSpec{{Name: clidownload.ComponentRoute, Namespace: ns, Hostname: ocpconfigv1.Hostname(host)}}
		}
		objs, err := clidownload.New().Desired(hc.DeepCopy(), facts)
		if err != nil {
			t.Fatal(err)
		}
		return objs[2:] // the Route and the ConsoleCLIDownload
	}
	expectStoredAsSent(t, built(""), nil)

	setIngress(t, "apps.example.com", route{clidownload.ComponentRoute, ns, "virtctl.apps.example.com", ""})
	testenv.Eventually(t, "the Route and the links at the admin's host", func() error {
		r := testenv.Stored(t, k, built("virtctl.apps.example.com")[0])
		if host, _, _ := unstructured.NestedString(r.Object, "spec", "host"); host != "virtctl.apps.example.com" {
			return fmt.Errorf("Route host %q", host)
		}
		c := testenv.Stored(t, k, built("virtctl.apps.example.com")[1])
		links, _, _ := unstructured.NestedSlice(c.Object, "spec", "links")
		if len(links) == 0 || links[0].(map[string]any)["href"] != "https://virtctl.apps.example.com/amd64/linux/virtctl.tar.gz" {
			return fmt.Errorf("ConsoleCLIDownload links %v", links)
		}
		return nil
	})
}
