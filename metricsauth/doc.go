// Package metricsauth guards a metrics endpoint with the platform's own
// reviews: every request's bearer token is checked with an
// authentication.k8s.io/v1 TokenReview, and its user with an
// authorization.k8s.io/v1 SubjectAccessReview of the non-resource URL it asks
// for (path as requested, verb the lower-case HTTP method: "get /metrics"),
// as kube-rbac-proxy and controller-runtime's filters do. FilterProvider
// plugs it into controller-runtime's metrics server
// (metricsserver.Options.FilterProvider); New takes the two review clients
// directly, for a distribution that builds its own.
//
// Answers: 401 without a bearer token or with one the API server does not
// authenticate, 403 for a user the API server does not allow, 429 when a
// token not remembered comes past the review rate (10 a second, bursts of
// 20: a flood of made-up tokens costs the API server that much and no
// more), 500 when a review could not be made; otherwise the request
// reaches the handler. Decisions are remembered in two small LRU caches with
// an expiry, allowed ones (a minute) apart from refused ones (ten seconds),
// so refused tokens never push out an allowed decision; a scraper that
// comes back every 30 s costs about one review of each kind a minute.
// Concurrent requests with one token share one review.
//
// It must not import k8s.io/apiserver (nor anything that links it,
// OpenTelemetry or gRPC: internal/conventions checks the stock binary), keep
// a token (the cache is keyed by its SHA-256), cache an error, or hold
// package-level state: each filter owns its cache.
package metricsauth
