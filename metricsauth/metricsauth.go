package metricsauth

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"golang.org/x/sync/singleflight"
	"golang.org/x/time/rate"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/cache"
	authenticationv1client "k8s.io/client-go/kubernetes/typed/authentication/v1"
	authorizationv1client "k8s.io/client-go/kubernetes/typed/authorization/v1"
	"k8s.io/client-go/rest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// The defaults of Options.
const (
	// DefaultAllowTTL is how long an allowed decision is remembered.
	DefaultAllowTTL = time.Minute
	// DefaultDenyTTL is how long a refused decision (401 or 403) is remembered.
	DefaultDenyTTL = 10 * time.Second
	// DefaultCacheSize is the most decisions remembered at once.
	DefaultCacheSize = 1024
	// DefaultTimeout bounds the reviews of one request.
	DefaultTimeout = 10 * time.Second
	// DefaultReviewsPerSecond and DefaultReviewBurst bound the reviews made
	// for tokens not remembered: past them a request is refused with 429.
	DefaultReviewsPerSecond = 10
	DefaultReviewBurst      = 20
)

// Options tune the filter; the zero value means the defaults.
type Options struct {
	// AllowTTL is how long an allowed decision is remembered (DefaultAllowTTL
	// when 0): a revoked permission takes up to this long to apply.
	AllowTTL time.Duration
	// DenyTTL is how long a refused decision is remembered (DefaultDenyTTL
	// when 0): a new permission takes up to this long to apply.
	DenyTTL time.Duration
	// CacheSize is the most decisions remembered of each kind, allowed and
	// refused, apart (so that refused tokens never push out an allowed
	// one); the least recently used goes first (DefaultCacheSize when 0).
	CacheSize int
	// ReviewsPerSecond and ReviewBurst bound the reviews of tokens not
	// remembered (a token bucket; DefaultReviewsPerSecond and
	// DefaultReviewBurst when 0): a request past them is refused with 429
	// without a review, so that a flood of made-up tokens costs the API
	// server a bounded number of reviews.
	ReviewsPerSecond float64
	ReviewBurst      int
	// Timeout bounds the TokenReview and SubjectAccessReview of one request
	// together (DefaultTimeout when 0).
	Timeout time.Duration
}

func (o Options) withDefaults() Options {
	if o.AllowTTL <= 0 {
		o.AllowTTL = DefaultAllowTTL
	}
	if o.DenyTTL <= 0 {
		o.DenyTTL = DefaultDenyTTL
	}
	if o.CacheSize <= 0 {
		o.CacheSize = DefaultCacheSize
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.ReviewsPerSecond <= 0 {
		o.ReviewsPerSecond = DefaultReviewsPerSecond
	}
	if o.ReviewBurst <= 0 {
		o.ReviewBurst = DefaultReviewBurst
	}
	return o
}

// FilterProvider returns a provider for metricsserver.Options.FilterProvider:
// the filter reviews with the manager's rest.Config and HTTP client. Its
// ServiceAccount needs create on tokenreviews (authentication.k8s.io) and
// subjectaccessreviews (authorization.k8s.io); a scraper needs get on the
// non-resource URL it scrapes (/metrics).
func FilterProvider(o Options) func(*rest.Config, *http.Client) (metricsserver.Filter, error) {
	return func(c *rest.Config, httpClient *http.Client) (metricsserver.Filter, error) {
		authn, err := authenticationv1client.NewForConfigAndClient(c, httpClient)
		if err != nil {
			return nil, fmt.Errorf("metrics authentication client: %w", err)
		}
		authz, err := authorizationv1client.NewForConfigAndClient(c, httpClient)
		if err != nil {
			return nil, fmt.Errorf("metrics authorization client: %w", err)
		}
		return New(authn.TokenReviews(), authz.SubjectAccessReviews(), o), nil
	}
}

// New returns the filter that reviews with tokens and access. Every filter
// has its own cache; the handlers it wraps share it.
func New(tokens authenticationv1client.TokenReviewInterface, access authorizationv1client.SubjectAccessReviewInterface, o Options) metricsserver.Filter {
	return newReviewer(tokens, access, o, nil).filter
}

// reviewer makes and remembers the decisions of one filter.
type reviewer struct {
	tokens authenticationv1client.TokenReviewInterface
	access authorizationv1client.SubjectAccessReviewInterface
	opts   Options
	// allowed and refused remember the decisions of each kind apart.
	allowed, refused *cache.LRUExpireCache
	// inFlight merges the concurrent reviews of one key.
	inFlight singleflight.Group
	// limit bounds the reviews made.
	limit *rate.Limiter
}

// newReviewer uses clock for the expiry of decisions, the real one when nil.
func newReviewer(tokens authenticationv1client.TokenReviewInterface, access authorizationv1client.SubjectAccessReviewInterface, o Options, clock cache.Clock) *reviewer {
	o = o.withDefaults()
	newCache := func() *cache.LRUExpireCache {
		if clock != nil {
			return cache.NewLRUExpireCacheWithClock(o.CacheSize, clock)
		}
		return cache.NewLRUExpireCache(o.CacheSize)
	}
	return &reviewer{tokens: tokens, access: access, opts: o, allowed: newCache(), refused: newCache(),
		limit: rate.NewLimiter(rate.Limit(o.ReviewsPerSecond), o.ReviewBurst)}
}

// key identifies a decision: the token's SHA-256 (never the token) and the
// non-resource attributes asked for.
type key struct {
	token      [sha256.Size]byte
	verb, path string
}

// decision is a review's outcome: status is http.StatusOK (allowed),
// http.StatusUnauthorized (the token is not authenticated) or
// http.StatusForbidden (the user is not allowed); user is the authenticated
// user's name, reason the API server's explanation, for the log.
type decision struct {
	status       int
	user, reason string
}

func (r *reviewer) filter(log logr.Logger, next http.Handler) (http.Handler, error) {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		token, ok := bearerToken(req)
		if !ok {
			log.V(4).Info("Metrics request refused: no bearer token", "path", req.URL.Path)
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		d, err := r.decide(req.Context(), token, strings.ToLower(req.Method), req.URL.Path)
		if errors.Is(err, errTooManyReviews) {
			log.V(4).Info("Metrics request refused: too many reviews", "path", req.URL.Path)
			w.Header().Set("Retry-After", "1")
			http.Error(w, "Too Many Requests", http.StatusTooManyRequests)
			return
		}
		if err != nil {
			log.Error(err, "Metrics request not reviewed", "path", req.URL.Path)
			http.Error(w, "Internal Server Error: the request could not be reviewed", http.StatusInternalServerError)
			return
		}
		switch d.status {
		case http.StatusOK:
		case http.StatusUnauthorized:
			log.V(4).Info("Metrics request refused: token not authenticated", "path", req.URL.Path, "reason", d.reason)
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		default:
			log.V(4).Info("Metrics request refused: user not allowed", "path", req.URL.Path, "user", d.user, "reason", d.reason)
			http.Error(w, fmt.Sprintf("Forbidden: user %q may not %s %s", d.user, strings.ToLower(req.Method), req.URL.Path), http.StatusForbidden)
			return
		}
		// The handler has no use for the token; it is not passed on, as the
		// API server's own bearer token authenticator does.
		req.Header.Del("Authorization")
		next.ServeHTTP(w, req)
	}), nil
}

// bearerToken returns the token of the Authorization header, read as the
// API server reads it ("Bearer <token>", the scheme in any case).
func bearerToken(req *http.Request) (string, bool) {
	scheme, rest, ok := strings.Cut(strings.TrimSpace(req.Header.Get("Authorization")), " ")
	if !ok || !strings.EqualFold(scheme, "bearer") {
		return "", false
	}
	token, _, _ := strings.Cut(rest, " ")
	return token, token != ""
}

// errTooManyReviews is decide's answer past the review rate.
var errTooManyReviews = errors.New("too many reviews")

// decide returns the remembered decision for token, verb and path, or
// reviews them and remembers the outcome; an error is not remembered.
// Concurrent requests of one key share one review; a new review past the
// rate limit is errTooManyReviews.
func (r *reviewer) decide(ctx context.Context, token, verb, path string) (decision, error) {
	k := key{token: sha256.Sum256([]byte(token)), verb: verb, path: path}
	if d, ok := r.allowed.Get(k); ok {
		return d.(decision), nil
	}
	if d, ok := r.refused.Get(k); ok {
		return d.(decision), nil
	}
	v, err, _ := r.inFlight.Do(string(k.token[:])+" "+verb+" "+path, func() (any, error) {
		if !r.limit.Allow() {
			return decision{}, errTooManyReviews
		}
		d, err := r.review(ctx, token, verb, path)
		if err != nil {
			return decision{}, err
		}
		if d.status == http.StatusOK {
			r.allowed.Add(k, d, r.opts.AllowTTL)
		} else {
			r.refused.Add(k, d, r.opts.DenyTTL)
		}
		return d, nil
	})
	if err != nil {
		return decision{}, err
	}
	return v.(decision), nil
}

// review asks the API server who token belongs to (TokenReview, with the
// API server's default audiences) and whether that user may verb path
// (SubjectAccessReview).
func (r *reviewer) review(ctx context.Context, token, verb, path string) (decision, error) {
	ctx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
	defer cancel()
	tr, err := r.tokens.Create(ctx, &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: token}}, metav1.CreateOptions{})
	if err != nil {
		return decision{}, fmt.Errorf("TokenReview: %w", err)
	}
	if !tr.Status.Authenticated {
		return decision{status: http.StatusUnauthorized, reason: tr.Status.Error}, nil
	}
	u := tr.Status.User
	var extra map[string]authorizationv1.ExtraValue
	if len(u.Extra) > 0 {
		extra = make(map[string]authorizationv1.ExtraValue, len(u.Extra))
		for k, v := range u.Extra {
			extra[k] = authorizationv1.ExtraValue(v)
		}
	}
	sar, err := r.access.Create(ctx, &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User: u.Username, UID: u.UID, Groups: u.Groups, Extra: extra,
		NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: path, Verb: verb},
	}}, metav1.CreateOptions{})
	if err != nil {
		return decision{}, fmt.Errorf("SubjectAccessReview of user %q for %s %s: %w", u.Username, verb, path, err)
	}
	if !sar.Status.Allowed || sar.Status.Denied {
		return decision{status: http.StatusForbidden, user: u.Username, reason: sar.Status.Reason}, nil
	}
	return decision{status: http.StatusOK, user: u.Username}, nil
}
