package metrics

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	ocpconfigv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/internal/testenv"
)

// checkAccess asserts what each kind of scraper gets: no token 401, a token
// the API server does not authenticate 401, a token RBAC does not allow 403,
// an allowed one 200 with the metrics; and that ten scrapes with a new
// allowed token cost the endpoint's ServiceAccount reviewer (a user name) one
// TokenReview and one SubjectAccessReview (audit log).
func checkAccess(t *testing.T, s scraper, tokens scrapers, reviewer string) string {
	t.Helper()
	for _, tc := range []struct {
		who, token string
		want       int
	}{
		{"no token", "", http.StatusUnauthorized},
		{"an invalid token", "not-a-token", http.StatusUnauthorized},
		{"a token not bound to hco-metrics-reader", tokens.denied, http.StatusForbidden},
	} {
		code, body, err := s.get(tc.token)
		if err != nil {
			t.Fatalf("scrape with %s: %v", tc.who, err)
		}
		if code != tc.want {
			t.Errorf("scrape with %s: %d, want %d", tc.who, code, tc.want)
		}
		if strings.Contains(body, "# TYPE") {
			t.Errorf("scrape with %s got metrics:\n%.300s", tc.who, body)
		}
	}
	code, body, err := s.get(tokens.allowed)
	if err != nil || code != http.StatusOK {
		t.Fatalf("scrape with a token bound to hco-metrics-reader: %d, %v\n%.300s", code, err, body)
	}

	token := newToken(t, tokens.namespace, "allowed")
	tokenReviews, sars := reviews(t, reviewer)
	for i := range 10 {
		if code, _, err := s.get(token); err != nil || code != http.StatusOK {
			t.Fatalf("scrape %d with a new allowed token: %d, %v", i+1, code, err)
		}
	}
	tokenReviewsAfter, sarsAfter := reviews(t, reviewer)
	if tokenReviewsAfter-tokenReviews != 1 || sarsAfter-sars != 1 {
		t.Errorf("ten scrapes with one token cost %s %d TokenReviews and %d SubjectAccessReviews, want 1 and 1",
			reviewer, tokenReviewsAfter-tokenReviews, sarsAfter-sars)
	}
	return body
}

// The operator, running as its ServiceAccount with the shipped RBAC, serves
// its metrics only to a token RBAC allows, and they are upstream's: the
// HyperConverged's existence (before, while and after it exists), the health
// status, and once a HyperConverged is reconciled, the memory overcommit and
// the unsafe modifications per annotation.
// startOperator runs the stock binary as the install's operator service
// account, under the shipped RBAC, until the test ends, and returns a
// scraper of its metrics endpoint, serving, and the scrapers' tokens.
func startOperator(t *testing.T) (scraper, scrapers) {
	t.Helper()
	tokens := newScrapers(t)
	installRBAC(t)
	port := freePort(t)
	run(t, "operator", "--kubeconfig="+serviceAccountKubeconfig(t, operatorNamespace, "hco-operator"), "--namespace="+operatorNamespace,
		"--leader-elect=false", "--health-probe-bind-address=0", "--metrics-bind-address=127.0.0.1:"+strconv.Itoa(port))
	s := newScraper(port, nil)
	s.waitServing(t)
	return s, tokens
}

func TestOperatorMetricsNeedAnAllowedToken(t *testing.T) {
	env.Require(t)
	s, tokens := startOperator(t)

	checkAccess(t, s, tokens, "system:serviceaccount:"+operatorNamespace+":hco-operator")
	// The HyperConverged's metrics come from the operator's cache: they
	// appear once it has synced, which a busy machine can delay past the
	// first scrapes.
	testenv.Eventually(t, "metrics without a HyperConverged", func() error {
		_, body, err := s.get(tokens.allowed)
		if err != nil {
			return err
		}
		for _, want := range []string{"kubevirt_hco_hyperconverged_cr_exists 0", "kubevirt_hco_system_health_status "} {
			if !strings.Contains(body, want) {
				return fmt.Errorf("metrics lack %q", want)
			}
		}
		return nil
	})

	ctx := context.Background()
	hc := &v1beta1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: v1beta1.HyperConvergedName, Namespace: operatorNamespace}}
	if err := k.Create(ctx, hc); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deleteHC(t, hc) })
	testenv.Eventually(t, "metrics of a reconciled HyperConverged", func() error {
		_, body, err := s.get(tokens.allowed)
		if err != nil {
			return err
		}
		for _, want := range []string{
			"kubevirt_hco_hyperconverged_cr_exists 1",
			"kubevirt_hco_memory_overcommit_percentage 100",
			`kubevirt_hco_unsafe_modifications{annotation_name="kubevirt.kubevirt.io/jsonpatch"} 0`,
		} {
			if !strings.Contains(body, want) {
				return fmt.Errorf("metrics lack %q", want)
			}
		}
		return nil
	})

	// The endpoint follows the HyperConverged's TLS profile, connection by
	// connection: Modern refuses TLS 1.2.
	handshake := func(maxVersion uint16) error {
		c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true,
			TLSClientConfig: &tls.Config{MaxVersion: maxVersion, InsecureSkipVerify: true}}} //nolint:gosec // self-signed by design
		resp, err := c.Get(s.url)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	if err := handshake(tls.VersionTLS12); err != nil {
		t.Fatalf("Intermediate (no profile) refused TLS 1.2: %v", err)
	}
	setProfile := func(p *ocpconfigv1.TLSSecurityProfile) {
		t.Helper()
		if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			if err := k.Get(ctx, client.ObjectKeyFromObject(hc), hc); err != nil {
				return err
			}
			hc.Spec.TLSSecurityProfile = p
			return k.Update(ctx, hc)
		}); err != nil {
			t.Fatal(err)
		}
	}
	setProfile(&ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileModernType, Modern: &ocpconfigv1.ModernTLSProfile{}})
	testenv.Eventually(t, "Modern: TLS 1.2 refused", func() error {
		if handshake(tls.VersionTLS12) == nil {
			return errors.New("a TLS 1.2 handshake still succeeds")
		}
		return nil
	})
	if err := handshake(tls.VersionTLS13); err != nil {
		t.Errorf("Modern refused TLS 1.3: %v", err)
	}
	setProfile(nil)

	deleteHC(t, hc)
	testenv.Eventually(t, "kubevirt_hco_hyperconverged_cr_exists 0 once the HyperConverged is gone", func() error {
		_, body, err := s.get(tokens.allowed)
		if err != nil {
			return err
		}
		if !strings.Contains(body, "kubevirt_hco_hyperconverged_cr_exists 0") {
			return fmt.Errorf("metrics lack %q", "kubevirt_hco_hyperconverged_cr_exists 0")
		}
		return nil
	})
}

// deleteHC deletes the HyperConverged and waits for the operator's uninstall.
func deleteHC(t *testing.T, hc *v1beta1.HyperConverged) {
	t.Helper()
	testenv.DeleteAndWait(t, k, hc.DeepCopy())
}

// The webhook's metrics, served as its ServiceAccount with the shipped RBAC,
// are guarded the same way; with --metrics-cert-path
// it serves the certificate found there (here envtest's serving certificate,
// which the test verifies against its CA).
func TestWebhookMetricsNeedAnAllowedTokenAndUseTheGivenCertificate(t *testing.T) {
	env.Require(t)
	tokens := newScrapers(t)
	w := env.Environment.WebhookInstallOptions
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(w.LocalServingCAData) {
		t.Fatal("envtest's serving CA does not parse")
	}
	installRBAC(t)
	port := freePort(t)
	run(t, "webhook", "--kubeconfig="+serviceAccountKubeconfig(t, operatorNamespace, "hco-webhook"), "--cert-dir="+w.LocalServingCertDir, "--port="+strconv.Itoa(freePort(t)),
		"--health-probe-bind-address=0", "--metrics-bind-address=127.0.0.1:"+strconv.Itoa(port), "--metrics-cert-path="+w.LocalServingCertDir)
	s := newScraper(port, roots)
	s.waitServing(t)

	body := checkAccess(t, s, tokens, "system:serviceaccount:"+operatorNamespace+":hco-webhook")
	if !strings.Contains(body, "controller_runtime_webhook_requests_total") && !strings.Contains(body, "go_goroutines") {
		t.Errorf("webhook metrics lack the runtime's metrics:\n%.500s", body)
	}
}
