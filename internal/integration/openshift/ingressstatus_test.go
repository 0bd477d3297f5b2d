package openshift

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"testing"
	"time"

	routev1 "github.com/openshift/api/route/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	ocpfacts "github.com/hcokit/hcokit/extensions/openshift"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/internal/testenv"
	"github.com/hcokit/hcokit/operands/clidownload"
)

var routeKind = routev1.GroupVersion.WithKind("Route")

// servingCert returns a self-signed certificate for host and its key, PEM.
func servingCert(t *testing.T, host string) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: host}, DNSNames: []string{host},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder})
}

// downloadRouteStatus reads the download's component route in the Ingress
// configuration's status; nil when there is none.
func downloadRouteStatus(ctx context.Context) (map[string]any, []any, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(ingressKind)
	if err := k.Get(ctx, client.ObjectKey{Name: hco.ClusterConfigName}, u); err != nil {
		return nil, nil, err
	}
	routes, _, _ := unstructured.NestedSlice(u.Object, "status", "componentRoutes")
	for _, r := range routes {
		if m := r.(map[string]any); m["name"] == clidownload.ComponentRoute && m["namespace"] == ns {
			return m, routes, nil
		}
	}
	return nil, routes, nil
}

// expectDownloadStatus waits until the component route's status has the
// current host and the Degraded status and reason.
func expectDownloadStatus(t *testing.T, host, degraded, reason string) {
	t.Helper()
	testenv.Eventually(t, fmt.Sprintf("the component route's status at %s, Degraded %s", host, degraded), func() error {
		st, _, err := downloadRouteStatus(context.Background())
		if err != nil {
			return err
		}
		if st == nil {
			return fmt.Errorf("no status for %s", clidownload.ComponentRoute)
		}
		hosts, _, _ := unstructured.NestedStringSlice(st, "currentHostnames")
		conds, _, _ := unstructured.NestedSlice(st, "conditions")
		if len(hosts) != 1 || hosts[0] != host || len(conds) != 3 {
			return fmt.Errorf("status %v", st)
		}
		d := conds[0].(map[string]any)
		if d["type"] != "Degraded" || d["status"] != degraded || d["reason"] != reason || d["lastTransitionTime"] == nil {
			return fmt.Errorf("Degraded %v", d)
		}
		return nil
	})
}

// expectRoute waits until the download Route serves host, with cert when
// set.
func expectRoute(t *testing.T, host string, cert []byte) {
	t.Helper()
	testenv.Eventually(t, "the download Route at "+host, func() error {
		r := &unstructured.Unstructured{}
		r.SetGroupVersionKind(routeKind)
		if err := k.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: clidownload.ObjectName}, r); err != nil {
			return err
		}
		h, _, _ := unstructured.NestedString(r.Object, "spec", "host")
		c, _, _ := unstructured.NestedString(r.Object, "spec", "tls", "certificate")
		if h != host || c != string(cert) {
			return fmt.Errorf("Route host %q, certificate set %v", h, c != "")
		}
		return nil
	})
}

// The download's component route is published in the Ingress
// configuration's status as upstream does (the other components' entries
// kept, this one removed with the HyperConverged); a custom host outside
// the ingress domain is taken with the serving certificate of its Secret
// in openshift-config, and refused, Degraded saying why, without one.
func TestDownloadComponentRoute(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	setIngress(t, "apps.example.com")
	// Another component's entry, as the console operator would publish it.
	testenv.Eventually(t, "another component's status", func() error {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(ingressKind)
		if err := k.Get(ctx, client.ObjectKey{Name: hco.ClusterConfigName}, u); err != nil {
			return err
		}
		u.Object["status"] = map[string]any{"componentRoutes": []any{map[string]any{
			"name": "console", "namespace": "openshift-console", "defaultHostname": "console.apps.example.com",
			"currentHostnames": []any{"console.apps.example.com"}, "consumingUsers": []any{"system:serviceaccount:openshift-console:console"},
			"relatedObjects": []any{map[string]any{"group": "route.openshift.io", "resource": "routes", "namespace": "openshift-console", "name": "console"}},
		}}}
		return k.Status().Update(ctx, u)
	})
	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: ns}}
	testenv.CreateForTest(t, k, hc)
	def := clidownload.ObjectName + "-" + ns + ".apps.example.com"
	expectDownloadStatus(t, def, "False", "AsExpected")

	// Outside the domain without a certificate: refused.
	setIngress(t, "apps.example.com", route{clidownload.ComponentRoute, ns, "virtctl.example.org", ""})
	expectDownloadStatus(t, def, "True", "WrongConfiguration")
	expectRoute(t, def, nil)

	// With the certificate's Secret.
	testenv.EnsureNamespace(t, k, ocpfacts.RouteCertificatesNamespace)
	cert, key := servingCert(t, "virtctl.example.org")
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ocpfacts.RouteCertificatesNamespace, Name: "virtctl-cert"},
		Type: corev1.SecretTypeTLS, Data: map[string][]byte{corev1.TLSCertKey: cert, corev1.TLSPrivateKeyKey: key}}
	testenv.CreateForTest(t, k, secret)
	setIngress(t, "apps.example.com", route{clidownload.ComponentRoute, ns, "virtctl.example.org", "virtctl-cert"})
	expectDownloadStatus(t, "virtctl.example.org", "False", "AsExpected")
	expectRoute(t, "virtctl.example.org", cert)
	setIngress(t, "apps.example.com")

	testenv.DeleteAndWait(t, k, hc.DeepCopy())
	testenv.Eventually(t, "the component route's status removed, the console's kept", func() error {
		st, all, err := downloadRouteStatus(ctx)
		if err != nil {
			return err
		}
		if st != nil || len(all) != 1 || all[0].(map[string]any)["name"] != "console" {
			return fmt.Errorf("status.componentRoutes %v", all)
		}
		return nil
	})
}
