// Package metrics tests the metrics endpoints of the stock binary as a
// scraper meets them: it builds cmd/hco-operator, runs `hco-operator
// operator` and `hco-operator webhook` against a real kube-apiserver with
// their default metrics flags (HTTPS, authentication and authorization), and
// scrapes them with ServiceAccount tokens from the TokenRequest API, bound or
// not to the shipped ClusterRole hco-metrics-reader (config/rbac); the
// apiserver's audit log records only TokenReviews and SubjectAccessReviews,
// to count what scrapes cost.
//
// It holds tests only: nothing may import it, and it must not start more than
// one control plane (TestMain starts it for the whole package).
package metrics
