package metricsauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// reviews plays the API server: tokens maps a token to its user (any other
// token is not authenticated), allowed holds "user verb path" triples; the
// errors, when set, are what the API server's reviews fail with. It counts
// the reviews it answers and keeps the last SubjectAccessReview.
type reviews struct {
	users                  map[string]authenticationv1.UserInfo
	allowed                map[string]bool
	tokenErr, accessErr    error
	tokenReviews, sarCount int
	lastSAR                authorizationv1.SubjectAccessReviewSpec
}

type fakeTokenReviews struct{ r *reviews }

func (f fakeTokenReviews) Create(_ context.Context, tr *authenticationv1.TokenReview, _ metav1.CreateOptions) (*authenticationv1.TokenReview, error) {
	f.r.tokenReviews++
	if f.r.tokenErr != nil {
		return nil, f.r.tokenErr
	}
	out := tr.DeepCopy()
	if u, ok := f.r.users[tr.Spec.Token]; ok {
		out.Status = authenticationv1.TokenReviewStatus{Authenticated: true, User: u}
	} else {
		out.Status = authenticationv1.TokenReviewStatus{Error: "invalid bearer token"}
	}
	return out, nil
}

type fakeSubjectAccessReviews struct{ r *reviews }

func (f fakeSubjectAccessReviews) Create(_ context.Context, sar *authorizationv1.SubjectAccessReview, _ metav1.CreateOptions) (*authorizationv1.SubjectAccessReview, error) {
	f.r.sarCount++
	f.r.lastSAR = sar.Spec
	if f.r.accessErr != nil {
		return nil, f.r.accessErr
	}
	out := sar.DeepCopy()
	a := sar.Spec.NonResourceAttributes
	out.Status.Allowed = a != nil && f.r.allowed[sar.Spec.User+" "+a.Verb+" "+a.Path]
	if !out.Status.Allowed {
		out.Status.Reason = "no RBAC policy matched"
	}
	return out, nil
}

// clock is the cache's clock, moved by the test.
type clock struct{ now time.Time }

func (c *clock) Now() time.Time { return c.now }

var (
	scraper = authenticationv1.UserInfo{Username: "system:serviceaccount:monitoring:prometheus", UID: "u1",
		Groups: []string{"system:serviceaccounts", "system:authenticated"},
		Extra:  map[string]authenticationv1.ExtraValue{"authentication.kubernetes.io/pod-name": {"prometheus-0"}}}
	stranger = authenticationv1.UserInfo{Username: "system:serviceaccount:default:default", Groups: []string{"system:authenticated"}}
)

// fixture is a filter in front of a handler that answers "metrics", on a
// fake API server and clock.
type fixture struct {
	api     *reviews
	clock   *clock
	r       *reviewer
	handler http.Handler
	// seenAuthorization is the Authorization header the handler got last.
	seenAuthorization *string
}

func newFixture(t *testing.T, o Options) fixture {
	t.Helper()
	api := &reviews{
		users:   map[string]authenticationv1.UserInfo{"scraper-token": scraper, "stranger-token": stranger},
		allowed: map[string]bool{scraper.Username + " get /metrics": true},
	}
	c := &clock{now: time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)}
	r := newReviewer(fakeTokenReviews{api}, fakeSubjectAccessReviews{api}, o, c)
	seen := new(string)
	h, err := r.filter(logr.Discard(), http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		*seen = req.Header.Get("Authorization")
		fmt.Fprint(w, "metrics")
	}))
	if err != nil {
		t.Fatal(err)
	}
	return fixture{api: api, clock: c, r: r, handler: h, seenAuthorization: seen}
}

func (f fixture) do(method, path, authorization string) (int, string) {
	req := httptest.NewRequest(method, path, nil)
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	w := httptest.NewRecorder()
	f.handler.ServeHTTP(w, req)
	return w.Code, w.Body.String()
}

func TestAnswersAndWhatTheyCost(t *testing.T) {
	apiDown := errors.New("connection refused")
	for _, tc := range []struct {
		name                string
		method, path, auth  string
		tokenErr, accessErr error
		want                int
		// reviews made by the first request; the second one, within the
		// cache window, costs none unless the first failed.
		wantTokenReviews, wantSARs int
		cached                     bool
	}{
		{name: "no Authorization header", auth: "", want: http.StatusUnauthorized, cached: true},
		{name: "not a bearer token", auth: "Basic dXNlcjpwYXNz", want: http.StatusUnauthorized, cached: true},
		{name: "empty bearer token", auth: "Bearer ", want: http.StatusUnauthorized, cached: true},
		{name: "a token the API server does not authenticate", auth: "Bearer made-up", want: http.StatusUnauthorized,
			wantTokenReviews: 1, cached: true},
		{name: "an authenticated user without the permission", auth: "Bearer stranger-token", want: http.StatusForbidden,
			wantTokenReviews: 1, wantSARs: 1, cached: true},
		{name: "an allowed user", auth: "Bearer scraper-token", want: http.StatusOK,
			wantTokenReviews: 1, wantSARs: 1, cached: true},
		{name: "the scheme in any case", auth: "bearer scraper-token", want: http.StatusOK,
			wantTokenReviews: 1, wantSARs: 1, cached: true},
		{name: "an allowed user on a path it may not get", path: "/debug/pprof/", auth: "Bearer scraper-token", want: http.StatusForbidden,
			wantTokenReviews: 1, wantSARs: 1, cached: true},
		{name: "an allowed user with a verb it may not use", method: http.MethodPost, auth: "Bearer scraper-token", want: http.StatusForbidden,
			wantTokenReviews: 1, wantSARs: 1, cached: true},
		{name: "TokenReview fails", auth: "Bearer scraper-token", tokenErr: apiDown, want: http.StatusInternalServerError,
			wantTokenReviews: 1},
		{name: "SubjectAccessReview fails", auth: "Bearer scraper-token", accessErr: apiDown, want: http.StatusInternalServerError,
			wantTokenReviews: 1, wantSARs: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, Options{})
			f.api.tokenErr, f.api.accessErr = tc.tokenErr, tc.accessErr
			method, path := tc.method, tc.path
			if method == "" {
				method = http.MethodGet
			}
			if path == "" {
				path = "/metrics"
			}
			for scrape := 1; scrape <= 2; scrape++ {
				code, body := f.do(method, path, tc.auth)
				if code != tc.want {
					t.Errorf("scrape %d: %d %q, want %d", scrape, code, body, tc.want)
				}
				if (code == http.StatusOK) != (body == "metrics") {
					t.Errorf("scrape %d: %d with body %q", scrape, code, body)
				}
				times := 1
				if !tc.cached {
					times = scrape
				}
				if f.api.tokenReviews != times*tc.wantTokenReviews || f.api.sarCount != times*tc.wantSARs {
					t.Errorf("after scrape %d: %d TokenReviews and %d SubjectAccessReviews, want %d and %d",
						scrape, f.api.tokenReviews, f.api.sarCount, times*tc.wantTokenReviews, times*tc.wantSARs)
				}
			}
			if tc.want == http.StatusOK && *f.seenAuthorization != "" {
				t.Errorf("the handler got the Authorization header %q", *f.seenAuthorization)
			}
		})
	}
}

// The SubjectAccessReview asks about the authenticated user as the
// TokenReview described it, and the non-resource URL as requested, the verb
// the lower-case method.
func TestSubjectAccessReviewIsTheUsersAndTheRequests(t *testing.T) {
	f := newFixture(t, Options{})
	if code, _ := f.do(http.MethodGet, "/metrics", "Bearer scraper-token"); code != http.StatusOK {
		t.Fatalf("got %d", code)
	}
	got := f.api.lastSAR
	if got.User != scraper.Username || got.UID != scraper.UID || strings.Join(got.Groups, ",") != strings.Join(scraper.Groups, ",") ||
		fmt.Sprint(got.Extra) != fmt.Sprint(map[string]authorizationv1.ExtraValue{"authentication.kubernetes.io/pod-name": {"prometheus-0"}}) {
		t.Errorf("SubjectAccessReview subject: %+v, want the TokenReview's %+v", got, scraper)
	}
	if got.ResourceAttributes != nil || got.NonResourceAttributes == nil ||
		*got.NonResourceAttributes != (authorizationv1.NonResourceAttributes{Path: "/metrics", Verb: "get"}) {
		t.Errorf("SubjectAccessReview attributes: resource %v, non-resource %v; want get /metrics", got.ResourceAttributes, got.NonResourceAttributes)
	}
}

// Allowed decisions are remembered for AllowTTL, refused ones for DenyTTL;
// then the next request is reviewed again. The cache never holds a token.
func TestDecisionsExpire(t *testing.T) {
	for _, tc := range []struct {
		token string
		want  int
		ttl   time.Duration
		sars  int
	}{
		{"scraper-token", http.StatusOK, DefaultAllowTTL, 1},
		{"stranger-token", http.StatusForbidden, DefaultDenyTTL, 1},
		{"made-up", http.StatusUnauthorized, DefaultDenyTTL, 0},
	} {
		t.Run(tc.token, func(t *testing.T) {
			f := newFixture(t, Options{})
			start := f.clock.now
			scrapeAt := func(elapsed time.Duration, wantReviews int) {
				t.Helper()
				f.clock.now = start.Add(elapsed)
				if code, _ := f.do(http.MethodGet, "/metrics", "Bearer "+tc.token); code != tc.want {
					t.Errorf("at %v: got %d, want %d", elapsed, code, tc.want)
				}
				if f.api.tokenReviews != wantReviews || f.api.sarCount != wantReviews*tc.sars {
					t.Errorf("at %v: %d TokenReviews and %d SubjectAccessReviews, want %d and %d",
						elapsed, f.api.tokenReviews, f.api.sarCount, wantReviews, wantReviews*tc.sars)
				}
			}
			// Ten scrapes within the window cost one review; the first
			// after it, another.
			for i := range 10 {
				scrapeAt(time.Duration(i)*(tc.ttl-time.Millisecond)/9, 1)
			}
			scrapeAt(tc.ttl+time.Millisecond, 2)
			for _, k := range append(f.r.allowed.Keys(), f.r.refused.Keys()...) {
				hash := k.(key).token
				if strings.Contains(fmt.Sprintf("%v %s", k, hash[:]), tc.token) {
					t.Errorf("the cache key %v holds the token", k)
				}
			}
		})
	}
}

// Each cache holds at most CacheSize decisions; the least recently used
// goes. Refused decisions never push out allowed ones.
func TestCacheIsBounded(t *testing.T) {
	f := newFixture(t, Options{CacheSize: 2})
	for _, token := range []string{"stranger-token", "made-up", "made-up-too"} {
		f.do(http.MethodGet, "/metrics", "Bearer "+token)
	}
	if n := len(f.r.refused.Keys()); n != 2 {
		t.Errorf("%d refused decisions cached, want 2", n)
	}
	f.do(http.MethodGet, "/metrics", "Bearer stranger-token")
	if f.api.tokenReviews != 4 {
		t.Errorf("%d TokenReviews, want 4: the oldest decision should have gone", f.api.tokenReviews)
	}
}

// A flood of made-up tokens neither evicts an allowed decision nor costs
// more reviews than the rate allows: past it, 429 without a review.
func TestFloodOfTokens(t *testing.T) {
	f := newFixture(t, Options{CacheSize: 8, ReviewsPerSecond: 0.001, ReviewBurst: 5})
	if code, _ := f.do(http.MethodGet, "/metrics", "Bearer scraper-token"); code != http.StatusOK {
		t.Fatalf("the scraper got %d", code)
	}
	statuses := map[int]int{}
	for i := range 100 {
		code, _ := f.do(http.MethodGet, "/metrics", fmt.Sprintf("Bearer random-%d", i))
		statuses[code]++
	}
	if f.api.tokenReviews != 5 {
		t.Errorf("%d TokenReviews for 101 tokens, want the burst's 5", f.api.tokenReviews)
	}
	if statuses[http.StatusUnauthorized] != 4 || statuses[http.StatusTooManyRequests] != 96 {
		t.Errorf("answers %v, want 4 × 401 (reviewed) and 96 × 429", statuses)
	}
	if code, _ := f.do(http.MethodGet, "/metrics", "Bearer scraper-token"); code != http.StatusOK || f.api.tokenReviews != 5 {
		t.Errorf("the scraper got %d after the flood, %d TokenReviews: its decision should still be remembered", code, f.api.tokenReviews)
	}
}

// Concurrent requests with one token share one review.
func TestConcurrentReviewsAreMerged(t *testing.T) {
	f := newFixture(t, Options{})
	gate := &gatedTokenReviews{release: make(chan struct{}), started: make(chan struct{})}
	f.r.tokens = gate
	var wg sync.WaitGroup
	codes := make([]int, 10)
	for i := range codes {
		wg.Go(func() { codes[i], _ = f.do(http.MethodGet, "/metrics", "Bearer some-token") })
	}
	<-gate.started
	time.Sleep(50 * time.Millisecond) // the others join the review in flight
	close(gate.release)
	wg.Wait()
	if n := gate.n.Load(); n != 1 {
		t.Errorf("%d TokenReviews for 10 concurrent requests with one token, want 1", n)
	}
	for _, c := range codes {
		if c != http.StatusUnauthorized {
			t.Errorf("answers %v, want each the one review's 401", codes)
			break
		}
	}
}

// gatedTokenReviews answers "not authenticated" once release is closed,
// counting the reviews; started is closed by the first.
type gatedTokenReviews struct {
	release, started chan struct{}
	once             sync.Once
	n                atomic.Int32
}

func (g *gatedTokenReviews) Create(_ context.Context, tr *authenticationv1.TokenReview, _ metav1.CreateOptions) (*authenticationv1.TokenReview, error) {
	g.n.Add(1)
	g.once.Do(func() { close(g.started) })
	<-g.release
	out := tr.DeepCopy()
	out.Status.Error = "invalid bearer token"
	return out, nil
}

// A review that does not answer in time is a 500, not a hang.
func TestReviewsAreBoundedInTime(t *testing.T) {
	f := newFixture(t, Options{Timeout: 10 * time.Millisecond})
	block := func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }
	f.r.tokens = blockingTokenReviews(block)
	if code, _ := f.do(http.MethodGet, "/metrics", "Bearer scraper-token"); code != http.StatusInternalServerError {
		t.Errorf("got %d, want 500", code)
	}
}

type blockingTokenReviews func(context.Context) error

func (b blockingTokenReviews) Create(ctx context.Context, _ *authenticationv1.TokenReview, _ metav1.CreateOptions) (*authenticationv1.TokenReview, error) {
	return nil, b(ctx)
}
