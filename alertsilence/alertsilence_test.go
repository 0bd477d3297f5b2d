package alertsilence_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hcokit/hcokit/alertsilence"
)

// alertmanager is the test's Alertmanager: Debian's prometheus-alertmanager
// (apt-get install prometheus-alertmanager; .ci/run installs it), one per
// test package, behind proxy.
var (
	alertmanager string // its URL, plain HTTP
	proxy        *authProxy
	skipReason   string
)

func TestMain(m *testing.M) {
	stop, err := startAlertmanager()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if stop != nil {
		proxy = newAuthProxy(alertmanager)
	}
	code := m.Run()
	if stop != nil {
		proxy.server.Close()
		os.RemoveAll(proxy.caDir)
		stop()
	}
	os.Exit(code)
}

// startAlertmanager starts Debian's Alertmanager on a free local port, with
// no cluster peers; without it, tests skip (CI=true: fail).
func startAlertmanager() (stop func(), err error) {
	bin, err := exec.LookPath("prometheus-alertmanager")
	if err != nil {
		bin, err = exec.LookPath("alertmanager")
	}
	if err != nil {
		skipReason = "prometheus-alertmanager not found: install Debian's prometheus-alertmanager package"
		if os.Getenv("CI") == "true" {
			return nil, fmt.Errorf("%s; CI=true: the silence tests must not be skipped", skipReason)
		}
		return nil, nil
	}
	dir, err := os.MkdirTemp("", "alertmanager-")
	if err != nil {
		return nil, err
	}
	defer func() {
		if stop == nil {
			os.RemoveAll(dir)
		}
	}()
	config := filepath.Join(dir, "alertmanager.yml")
	if err := os.WriteFile(config, []byte("route:\n  receiver: none\nreceivers:\n- name: none\n"), 0o600); err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	l.Close()
	var out bytes.Buffer
	cmd := exec.Command(bin, "--config.file="+config, "--storage.path="+dir, "--web.listen-address="+addr, "--cluster.listen-address=")
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	// The port was free a moment ago; another process may take it first:
	// then the Alertmanager exits and the wait below says why.
	stop = func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		os.RemoveAll(dir)
	}
	alertmanager = "http://" + addr
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if resp, err := http.Get(alertmanager + "/-/ready"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return stop, nil
			}
		}
	}
	stop()
	return nil, fmt.Errorf("the Alertmanager did not get ready at %s:\n%s", addr, out.String())
}

func requireAlertmanager(t *testing.T) {
	t.Helper()
	if skipReason != "" {
		t.Skip(skipReason)
	}
}

// authProxy stands for OpenShift's proxy in front of the Alertmanager: TLS,
// a bearer token, and the verb each token may use (get for GET, create for
// POST, delete for DELETE).
type authProxy struct {
	server        *httptest.Server
	caDir, caFile string

	mu      sync.Mutex
	allowed map[string][]string // token → verbs
	seen    []string            // "token verb path" of each request
}

func newAuthProxy(target string) *authProxy {
	u, _ := url.Parse(target)
	p := &authProxy{allowed: map[string][]string{}}
	rp := httputil.NewSingleHostReverseProxy(u)
	p.server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		verb := map[string]string{http.MethodGet: "get", http.MethodPost: "create", http.MethodDelete: "delete"}[r.Method]
		p.mu.Lock()
		p.seen = append(p.seen, token+" "+verb+" "+r.URL.Path)
		verbs, known := p.allowed[token]
		p.mu.Unlock()
		switch {
		case !ok || !known:
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
		case !contains(verbs, verb):
			http.Error(w, "Forbidden", http.StatusForbidden)
		default:
			rp.ServeHTTP(w, r)
		}
	}))
	p.server.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshakes refused on purpose
	p.server.StartTLS()
	p.caDir, _ = os.MkdirTemp("", "alertmanager-ca-")
	p.caFile = filepath.Join(p.caDir, "service-ca.crt")
	_ = os.WriteFile(p.caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: p.server.Certificate().Raw}), 0o600)
	return p
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// allow lets token in with verbs until the test ends, and forgets its
// requests then.
func (p *authProxy) allow(t *testing.T, token string, verbs ...string) {
	p.mu.Lock()
	p.allowed[token] = verbs
	p.mu.Unlock()
	t.Cleanup(func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		delete(p.allowed, token)
		kept := p.seen[:0]
		for _, s := range p.seen {
			if !strings.HasPrefix(s, token+" ") {
				kept = append(kept, s)
			}
		}
		p.seen = kept
	})
}

// requests returns the requests token made.
func (p *authProxy) requests(token string) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, s := range p.seen {
		if strings.HasPrefix(s, token+" ") {
			out = append(out, strings.TrimPrefix(s, token+" "))
		}
	}
	return out
}

// gettable is a silence as the Alertmanager lists it.
type gettable struct {
	ID        string                 `json:"id"`
	Matchers  []alertsilence.Matcher `json:"matchers"`
	StartsAt  time.Time              `json:"startsAt"`
	EndsAt    time.Time              `json:"endsAt"`
	CreatedBy string                 `json:"createdBy"`
	Comment   string                 `json:"comment"`
	Status    struct{ State string } `json:"status"`
}

// active returns the Alertmanager's active silences, asked directly.
func active(t *testing.T) []gettable {
	t.Helper()
	resp, err := http.Get(alertmanager + "/api/v2/silences")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var all, out []gettable
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&all))
	for _, s := range all {
		if s.Status.State == "active" {
			out = append(out, s)
		}
	}
	return out
}

// expire ends a silence, directly.
func expire(t *testing.T, id string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodDelete, alertmanager+"/api/v2/silence/"+id, nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
}

// expireAll ends every active silence when the test ends.
func expireAll(t *testing.T) {
	t.Cleanup(func() {
		for _, s := range active(t) {
			expire(t, s.ID)
		}
	})
}

// post makes a silence directly, from its JSON.
func post(t *testing.T, silence string) {
	t.Helper()
	resp, err := http.Post(alertmanager+"/api/v2/silences", "application/json", strings.NewReader(silence))
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(b))
}

func keeper(token string) *alertsilence.Keeper {
	return &alertsilence.Keeper{URL: proxy.server.URL, CAFile: proxy.caFile, Token: token,
		Silences: []alertsilence.Silence{alertsilence.PodDisruptionBudgetAtLimit()}, Log: logr.Discard()}
}

// The silence is made once, as upstream makes it, through the proxy with the
// token and the service CA; checked again, it is found and not made twice;
// expired, it is made again.
func TestKeeperMakesTheSilenceOnce(t *testing.T) {
	requireAlertmanager(t)
	expireAll(t)
	proxy.allow(t, "operator-token", "get", "create")
	k := keeper("operator-token")
	ctx := context.Background()

	before := time.Now().Add(-time.Second)
	require.NoError(t, k.Ensure(ctx))
	silences := active(t)
	require.Len(t, silences, 1)
	s := silences[0]
	assert.Equal(t, []alertsilence.Matcher{
		{Name: "alertname", Value: "PodDisruptionBudgetAtLimit", IsEqual: true},
		{Name: "poddisruptionbudget", Value: "kubevirt-disruption-budget-.*", IsRegex: true, IsEqual: true},
	}, s.Matchers)
	assert.Equal(t, "hyperconverged-cluster-operator", s.CreatedBy)
	assert.Equal(t, "Silence KubeVirt PodDisruptionBudgetAtLimit alerts", s.Comment)
	assert.Equal(t, 3000, s.EndsAt.Year())
	assert.False(t, s.StartsAt.Before(before.Truncate(time.Second)), "starts now: %v", s.StartsAt)
	assert.Equal(t, []string{"get /api/v2/silences", "create /api/v2/silences"}, proxy.requests("operator-token"))

	require.NoError(t, k.Ensure(ctx))
	assert.Len(t, active(t), 1, "found, not made again")
	assert.Equal(t, []string{"get /api/v2/silences", "create /api/v2/silences", "get /api/v2/silences"}, proxy.requests("operator-token"))

	expire(t, s.ID)
	require.NoError(t, k.Ensure(ctx))
	again := active(t)
	require.Len(t, again, 1, "an expired silence is made again")
	assert.NotEqual(t, s.ID, again[0].ID)
}

// A silence upstream's operator made (its JSON at 03da3cf) is found: after a
// switch in place, the Keeper makes none. One that silences less (another
// budget) or that other silences do not count.
func TestKeeperFindsUpstreamsSilence(t *testing.T) {
	requireAlertmanager(t)
	expireAll(t)
	proxy.allow(t, "switched", "get", "create")
	post(t, `{"comment":"other","createdBy":"admin","endsAt":"3000-01-01T00:00:00Z","startsAt":"2026-01-01T00:00:00Z",
		"matchers":[{"isEqual":true,"isRegex":false,"name":"alertname","value":"PodDisruptionBudgetAtLimit"},
		{"isEqual":true,"isRegex":false,"name":"poddisruptionbudget","value":"kubevirt-disruption-budget-abc"}]}`)
	post(t, `{"comment":"other","createdBy":"admin","endsAt":"3000-01-01T00:00:00Z","startsAt":"2026-01-01T00:00:00Z",
		"matchers":[{"isEqual":true,"isRegex":false,"name":"alertname","value":"KubePodNotReady"}]}`)
	require.NoError(t, keeper("switched").Ensure(context.Background()))
	assert.Len(t, active(t), 3, "neither of the others is the silence")

	for _, s := range active(t) {
		if s.CreatedBy != "admin" {
			expire(t, s.ID)
		}
	}
	post(t, `{"id":"","comment":"Silence KubeVirt PodDisruptionBudgetAtLimit alerts","createdBy":"hyperconverged-cluster-operator",
		"endsAt":"3000-01-01T00:00:00Z","matchers":[{"isEqual":true,"isRegex":false,"name":"alertname","value":"PodDisruptionBudgetAtLimit"},
		{"isEqual":true,"isRegex":true,"name":"poddisruptionbudget","value":"kubevirt-disruption-budget-.*"}],
		"startsAt":"2026-08-21T00:00:00Z","status":{"state":""}}`)
	require.Len(t, active(t), 3)
	require.NoError(t, keeper("switched").Ensure(context.Background()))
	assert.Len(t, active(t), 3, "upstream's silence is found")
	assert.NotContains(t, proxy.requests("switched")[2:], "create /api/v2/silences")
}

// What the proxy refuses is an error that names the permission; nothing is
// made. A token read from a file is read again on the next check.
func TestKeeperErrors(t *testing.T) {
	requireAlertmanager(t)
	expireAll(t)
	ctx := context.Background()

	err := keeper("unknown").Ensure(ctx)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "401")
	assert.Contains(t, err.Error(), "did not take the operator's service account token")

	proxy.allow(t, "nothing")
	err = keeper("nothing").Ensure(ctx)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "403")
	assert.Contains(t, err.Error(), `needs get on monitoring.coreos.com alertmanagers/api "main" in openshift-monitoring`)

	proxy.allow(t, "reader", "get")
	err = keeper("reader").Ensure(ctx)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "403")
	assert.Contains(t, err.Error(), "needs create on")
	assert.Empty(t, active(t))

	k := keeper("")
	k.TokenFile = filepath.Join(t.TempDir(), "token")
	require.NoError(t, os.WriteFile(k.TokenFile, []byte("reader\n"), 0o600))
	require.Error(t, k.Ensure(ctx))
	proxy.allow(t, "rotated", "get", "create")
	require.NoError(t, os.WriteFile(k.TokenFile, []byte("rotated\n"), 0o600))
	require.NoError(t, k.Ensure(ctx), "the rotated token is read")
	assert.Len(t, active(t), 1)

	k = keeper("rotated")
	k.CAFile = filepath.Join(t.TempDir(), "other-ca.crt")
	require.NoError(t, os.WriteFile(k.CAFile, otherCA(t), 0o600))
	err = k.Ensure(ctx)
	require.Error(t, err, "a server the CA did not sign is not trusted")
	assert.Contains(t, err.Error(), "certificate")

	k.CAFile = filepath.Join(t.TempDir(), "missing.crt")
	err = k.Ensure(ctx)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "reading the Alertmanager's CA")
}

// otherCA returns a self-signed CA certificate (PEM) that signed nothing.
func otherCA(t *testing.T) []byte {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "other"}, IsCA: true,
		BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// Started, a Keeper checks at once, and returns when its context ends.
func TestKeeperStart(t *testing.T) {
	requireAlertmanager(t)
	expireAll(t)
	proxy.allow(t, "started", "get", "create")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	k := keeper("started")
	assert.True(t, k.NeedLeaderElection())
	go func() { done <- k.Start(ctx) }()
	require.Eventually(t, func() bool { return len(active(t)) == 1 }, 30*time.Second, 50*time.Millisecond)
	cancel()
	select {
	case err := <-done:
		assert.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("Start did not return after its context ended")
	}
}

// The token goes to the Alertmanager's address only: a redirect elsewhere
// is an error, and the other server sees no request (with or without the
// token).
func TestKeeperFollowsNoRedirect(t *testing.T) {
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
	}))
	defer other.Close()
	redirector := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer redirector.Close()
	caFile := filepath.Join(t.TempDir(), "ca.crt")
	require.NoError(t, os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: redirector.Certificate().Raw}), 0o600))
	k := &alertsilence.Keeper{URL: redirector.URL, CAFile: caFile, Token: "secret",
		Silences: []alertsilence.Silence{alertsilence.PodDisruptionBudgetAtLimit()}, Log: logr.Discard()}
	err := k.Ensure(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "307")
	assert.Zero(t, elsewhere.Load(), "requests that reached the redirect's target")
}
