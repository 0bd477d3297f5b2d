package alertsilence

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/transport"
)

// Upstream's way to the platform's Alertmanager on OpenShift
// (controllers/observability/pod_disruption_budget_at_limit.go at 03da3cf).
const (
	// OpenShiftURL is the API of OpenShift's Alertmanager (alertmanager-main
	// in openshift-monitoring) behind its authorizing proxy, port 9094: the
	// proxy asks the API server whether the caller may get (GET) or create
	// (POST) monitoring.coreos.com alertmanagers/api "main" in
	// openshift-monitoring.
	OpenShiftURL = "https://alertmanager-main.openshift-monitoring.svc.cluster.local:9094"

	// ServiceCAFile is the service CA bundle OpenShift puts beside every
	// service account token: it signs the proxy's serving certificate.
	ServiceCAFile = "/var/run/secrets/kubernetes.io/serviceaccount/service-ca.crt"

	// DefaultInterval is how often a Keeper checks its silences, upstream's.
	DefaultInterval = time.Hour

	// Forever is when the silences end, upstream's.
	Forever = "3000-01-01T00:00:00Z"
)

// Matcher is an Alertmanager silence matcher (API v2).
type Matcher struct {
	Name    string `json:"name"`
	Value   string `json:"value"`
	IsRegex bool   `json:"isRegex"`
	IsEqual bool   `json:"isEqual"`
}

// Silence is a silence a Keeper keeps in place: while none that is active
// has all of its matchers, the Keeper creates it, from now until Forever.
type Silence struct {
	Matchers  []Matcher
	Comment   string
	CreatedBy string
}

// PodDisruptionBudgetAtLimit is upstream's silence of OpenShift's
// PodDisruptionBudgetAtLimit alert for the disruption budgets KubeVirt puts
// on the pods of VMs that live-migrate (kubevirt-disruption-budget-*): such
// a budget is at its limit by design, so the alert would fire for every VM.
// An Alertmanager silence upstream's operator made has the same matchers,
// so the Keeper finds it and makes none.
func PodDisruptionBudgetAtLimit() Silence {
	return Silence{
		Comment:   "Silence KubeVirt PodDisruptionBudgetAtLimit alerts",
		CreatedBy: "hyperconverged-cluster-operator",
		Matchers: []Matcher{
			{Name: "alertname", Value: "PodDisruptionBudgetAtLimit", IsEqual: true},
			{Name: "poddisruptionbudget", Value: "kubevirt-disruption-budget-.*", IsRegex: true, IsEqual: true},
		},
	}
}

// Keeper keeps silences in an Alertmanager: it checks them when it starts
// and every Interval after, and creates each one that is missing (expired,
// or never made). A failed check is logged and retried sooner, from
// retryMin, doubling, up to Interval. It is a controller-runtime Runnable
// that runs on the leader only.
type Keeper struct {
	// URL is the Alertmanager's base URL (OpenShiftURL); its API v2 is under
	// /api/v2.
	URL string
	// CAFile holds the certificates that sign the Alertmanager's serving
	// certificate (ServiceCAFile), read on each check (a rotated CA is
	// followed); empty trusts the system's roots.
	CAFile string
	// Token, or the file TokenFile names (re-read as it rotates), is the
	// bearer token the requests carry: the operator's service account's
	// (rest.Config's BearerToken and BearerTokenFile in a pod).
	Token, TokenFile string
	// Silences are the silences to keep.
	Silences []Silence
	// Interval is the time between checks; 0 is DefaultInterval.
	Interval time.Duration
	// Log receives a line per silence made and per failed check.
	Log logr.Logger
}

// retryMin is the first wait after a failed check.
const retryMin = 30 * time.Second

// requestTimeout bounds each request to the Alertmanager.
const requestTimeout = 30 * time.Second

// maxResponse bounds what is read of a response.
const maxResponse = 32 << 20

// NeedLeaderElection implements manager.LeaderElectionRunnable: one replica
// keeps the silences.
func (*Keeper) NeedLeaderElection() bool { return true }

// Start implements manager.Runnable: it checks the silences until ctx ends.
func (k *Keeper) Start(ctx context.Context) error {
	interval := k.Interval
	if interval <= 0 {
		interval = DefaultInterval
	}
	retry := retryMin
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-timer.C:
		}
		next := interval
		if err := k.Ensure(ctx); err != nil {
			if ctx.Err() != nil {
				return nil // stopped meanwhile: not a failure
			}
			next = min(retry, interval)
			retry = min(2*retry, interval)
			k.Log.Error(err, "cannot keep the Alertmanager silences; retrying", "url", k.URL, "in", next.String())
		} else {
			retry = retryMin
		}
		timer.Reset(next)
	}
}

// Ensure checks the silences once and creates those missing.
func (k *Keeper) Ensure(ctx context.Context) error {
	c, err := k.client()
	if err != nil {
		return err
	}
	defer c.CloseIdleConnections()
	var errs []error
	for _, s := range k.Silences {
		found, err := k.find(ctx, c, s)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if found != "" {
			continue
		}
		id, err := k.create(ctx, c, s)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		k.Log.Info("silenced in the Alertmanager", "silence", s.Comment, "id", id, "url", k.URL)
	}
	return errors.Join(errs...)
}

// client returns an HTTP client that trusts CAFile and sends the token.
func (k *Keeper) client() (*http.Client, error) {
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12}
	if k.CAFile != "" {
		pem, err := os.ReadFile(k.CAFile)
		if err != nil {
			return nil, fmt.Errorf("reading the Alertmanager's CA: %w", err)
		}
		tlsConfig.RootCAs = x509.NewCertPool()
		if !tlsConfig.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("the Alertmanager's CA file %s holds no PEM certificate", k.CAFile)
		}
	}
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.TLSClientConfig = tlsConfig
	// A service of the cluster: never through a proxy the environment
	// names (as upstream's client).
	base.Proxy = nil
	var rt http.RoundTripper = base
	if k.Token != "" || k.TokenFile != "" {
		var err error
		if rt, err = transport.NewBearerAuthWithRefreshRoundTripper(k.Token, k.TokenFile, base); err != nil {
			return nil, fmt.Errorf("reading the service account token for the Alertmanager: %w", err)
		}
	}
	// The token goes to the Alertmanager's proxy and nowhere else: a
	// redirect is answered as an error, not followed with the token.
	return &http.Client{Transport: rt, Timeout: requestTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}, nil
}

// silence is what the API v2 returns of a silence (gettableSilence).
type silence struct {
	ID       string    `json:"id"`
	Matchers []Matcher `json:"matchers"`
	Status   struct {
		State string `json:"state"`
	} `json:"status"`
}

// find returns the ID of an active silence with all of s's matchers, or "".
// It asks only for the silences with s's first equality matcher (the API's
// filter compares it with each silence's matcher of that name).
func (k *Keeper) find(ctx context.Context, c *http.Client, s Silence) (string, error) {
	u := k.silencesURL()
	for _, m := range s.Matchers {
		if m.IsEqual && !m.IsRegex {
			u += "?" + url.Values{"filter": {m.Name + "=" + strconv.Quote(m.Value)}}.Encode()
			break
		}
	}
	body, err := k.do(ctx, c, http.MethodGet, u, nil)
	if err != nil {
		return "", err
	}
	var found []silence
	if err := json.Unmarshal(body, &found); err != nil {
		return "", fmt.Errorf("reading the Alertmanager's silences from %s: %w", u, err)
	}
	for _, f := range found {
		if f.Status.State == "active" && hasAll(f.Matchers, s.Matchers) {
			return f.ID, nil
		}
	}
	return "", nil
}

// hasAll reports whether have holds every matcher of want.
func hasAll(have, want []Matcher) bool {
	for _, w := range want {
		found := false
		for _, h := range have {
			if h == w {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// postableSilence is what the API v2 creates a silence from.
type postableSilence struct {
	Matchers  []Matcher `json:"matchers"`
	StartsAt  string    `json:"startsAt"`
	EndsAt    string    `json:"endsAt"`
	CreatedBy string    `json:"createdBy"`
	Comment   string    `json:"comment"`
}

// create makes s, from now until Forever, and returns its ID.
func (k *Keeper) create(ctx context.Context, c *http.Client, s Silence) (string, error) {
	b, err := json.Marshal(postableSilence{Matchers: s.Matchers, StartsAt: time.Now().UTC().Format(time.RFC3339),
		EndsAt: Forever, CreatedBy: s.CreatedBy, Comment: s.Comment})
	if err != nil {
		return "", err
	}
	u := k.silencesURL()
	body, err := k.do(ctx, c, http.MethodPost, u, b)
	if err != nil {
		return "", err
	}
	var out struct {
		SilenceID string `json:"silenceID"`
	}
	if err := json.Unmarshal(body, &out); err != nil {
		return "", fmt.Errorf("reading the Alertmanager's answer to a new silence: %w", err)
	}
	return out.SilenceID, nil
}

// do sends a request and returns the body of a 200 answer.
func (k *Keeper) do(ctx context.Context, c *http.Client, method, u string, body []byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, u, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, u, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, u, err)
	}
	switch {
	case resp.StatusCode == http.StatusOK:
		return b, nil
	case resp.StatusCode == http.StatusUnauthorized:
		return nil, fmt.Errorf("%s %s: %s: the Alertmanager's proxy did not take the operator's service account token (none, expired, or not the API server's)", method, u, resp.Status)
	case resp.StatusCode == http.StatusForbidden:
		return nil, fmt.Errorf("%s %s: %s: the operator's service account needs %s on monitoring.coreos.com alertmanagers/api \"main\" in openshift-monitoring (config/openshift grants it)",
			method, u, resp.Status, verbOf(method))
	default:
		return nil, fmt.Errorf("%s %s: %s: %s", method, u, resp.Status, strings.TrimSpace(string(b[:min(len(b), 512)])))
	}
}

// verbOf is the verb the authorizing proxy asks for a method.
func verbOf(method string) string {
	if method == http.MethodPost {
		return "create"
	}
	return "get"
}

// silencesURL is the API v2's silences endpoint.
func (k *Keeper) silencesURL() string {
	return strings.TrimSuffix(k.URL, "/") + "/api/v2/silences"
}
