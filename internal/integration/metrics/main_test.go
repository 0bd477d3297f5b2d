package metrics

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/internal/testenv"
	"github.com/hcokit/hcokit/operands"
)

var (
	env *testenv.Env
	k   client.Client
	// binary builds cmd/hco-operator once for the package.
	binary = sync.OnceValues(buildOperator)
)

// auditPolicy records the reviews the metrics endpoints ask for, and nothing
// else: what a scrape costs the API server.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: Metadata
  resources:
  - group: authentication.k8s.io
    resources: ["tokenreviews"]
  - group: authorization.k8s.io
    resources: ["subjectaccessreviews"]
- level: None
`

func TestMain(m *testing.M) {
	testenv.Main(m, testenv.Options{
		AddToScheme: []func(*runtime.Scheme) error{v1beta1.AddToScheme, operands.AddToScheme},
		AuditPolicy: auditPolicy,
	},
		func(e *testenv.Env) {
			env = e
			k = e.Client
		})
}

// buildOperator builds the stock binary into a temporary directory.
func buildOperator() (string, error) {
	root, err := testenv.RepoRoot()
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "hcokit-metrics-test-")
	if err != nil {
		return "", err
	}
	out := filepath.Join(dir, "hco-operator")
	cmd := exec.Command("go", "build", "-o", out, "./cmd/hco-operator")
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/hco-operator: %w\n%s", err, b)
	}
	return out, nil
}

// freePort returns a local TCP port that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// run starts the stock binary with args and stops it when the test ends;
// its output is logged if the test fails.
func run(t *testing.T, args ...string) {
	t.Helper()
	bin, err := binary()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("%s output:\n%s", args[0], out.String())
		}
	})
}

// scrapers are the tokens of two ServiceAccounts of namespace: allowed is
// bound to the shipped ClusterRole hco-metrics-reader, denied to nothing.
type scrapers struct{ namespace, allowed, denied string }

// newScrapers applies config/rbac/metrics_reader_role.yaml, creates the two
// ServiceAccounts and the binding, and asks the TokenRequest API for their
// tokens; all of it is removed when the test ends.
func newScrapers(t *testing.T) scrapers {
	t.Helper()
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(root, "config", "rbac", "metrics_reader_role.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	role := &rbacv1.ClusterRole{}
	if err := yaml.UnmarshalStrict(raw, role); err != nil {
		t.Fatalf("config/rbac/metrics_reader_role.yaml: %v", err)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "metrics-scrapers-"}}
	create(t, ns)
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "metrics-test-"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "allowed", Namespace: ns.Name}},
	}
	create(t, role)
	create(t, binding)
	s := scrapers{namespace: ns.Name}
	for name, token := range map[string]*string{"allowed": &s.allowed, "denied": &s.denied} {
		create(t, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns.Name}})
		*token = newToken(t, ns.Name, name)
	}
	return s
}

// newToken asks the TokenRequest API for a new token of the ServiceAccount
// namespace/name.
func newToken(t *testing.T, namespace, name string) string {
	t.Helper()
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}}
	tr := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)}}
	if err := k.SubResource("token").Create(context.Background(), sa, tr); err != nil {
		t.Fatalf("TokenRequest for ServiceAccount %s/%s: %v", namespace, name, err)
	}
	return tr.Status.Token
}

// reviews counts the TokenReviews and SubjectAccessReviews user created so
// far, from the audit log.
func reviews(t *testing.T, user string) (tokenReviews, subjectAccessReviews int) {
	t.Helper()
	raw, err := os.ReadFile(env.AuditLog)
	if err != nil {
		t.Fatal(err)
	}
	for line := range bytes.Lines(raw) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var e struct {
			Verb      string `json:"verb"`
			User      struct{ Username string }
			ObjectRef struct{ Resource, APIGroup string }
		}
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatalf("audit log %s: %v", env.AuditLog, err)
		}
		if e.Verb != "create" || e.User.Username != user {
			continue
		}
		switch e.ObjectRef {
		case struct{ Resource, APIGroup string }{"tokenreviews", "authentication.k8s.io"}:
			tokenReviews++
		case struct{ Resource, APIGroup string }{"subjectaccessreviews", "authorization.k8s.io"}:
			subjectAccessReviews++
		}
	}
	return tokenReviews, subjectAccessReviews
}

func create(t *testing.T, obj client.Object) {
	t.Helper()
	if err := k.Create(context.Background(), obj); err != nil {
		t.Fatalf("create %T %s: %v", obj, obj.GetName(), err)
	}
	t.Cleanup(func() {
		if err := k.Delete(context.Background(), obj); client.IgnoreNotFound(err) != nil {
			t.Errorf("delete %T %s: %v", obj, obj.GetName(), err)
		}
	})
}

// scraper is an HTTPS client of a metrics endpoint.
type scraper struct {
	url    string
	client *http.Client
}

// newScraper trusts roots, or any certificate when roots is nil (the
// binary's self-signed one).
func newScraper(port int, roots *x509.CertPool) scraper {
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: roots, InsecureSkipVerify: roots == nil} //nolint:gosec // self-signed by design
	return scraper{
		url:    "https://127.0.0.1:" + strconv.Itoa(port) + "/metrics",
		client: &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: tlsConfig}},
	}
}

// get scrapes with token (none when empty) and returns the status and body.
func (s scraper) get(token string) (int, string, error) {
	req, err := http.NewRequest(http.MethodGet, s.url, nil)
	if err != nil {
		return 0, "", err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// waitServing waits until the endpoint answers over TLS at all.
func (s scraper) waitServing(t *testing.T) {
	t.Helper()
	testenv.Eventually(t, "metrics endpoint "+s.url+" serving", func() error {
		_, _, err := s.get("")
		return err
	})
}
