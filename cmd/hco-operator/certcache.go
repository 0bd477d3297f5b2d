package main

import (
	"net/http"
	"strings"

	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
)

// cert-controller's rotator (AddRotator) builds a cache of its own from
// mgr.GetConfig() that lists and watches every Secret of its namespace and
// every webhook configuration and CRD of the cluster, while it reads one
// object of each. byNameManager gives it a configuration whose transport
// adds a metadata.name field selector to those lists and watches, so that
// its cache holds its own objects only and RBAC can grant list and watch
// by name (resourceNames: the API server authorizes a list or watch whose
// field selector names one object as a request for that object).

// byNameManager is mgr with GetConfig's transport selecting objects by
// name: names maps a collection's path (collectionPath) to the one name
// listed and watched there.
type byNameManager struct {
	ctrl.Manager
	cfg *rest.Config
}

func (m byNameManager) GetConfig() *rest.Config { return m.cfg }

// withNames returns mgr whose GetConfig lists and watches by name.
func withNames(mgr ctrl.Manager, names map[string]string) ctrl.Manager {
	cfg := rest.CopyConfig(mgr.GetConfig())
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return byName{next: rt, names: names} })
	return byNameManager{Manager: mgr, cfg: cfg}
}

// collectionPath is the API path of a collection: core for group "".
func collectionPath(group, version, namespace, resource string) string {
	p := "/apis/" + group + "/" + version
	if group == "" {
		p = "/api/" + version
	}
	if namespace != "" {
		p += "/namespaces/" + namespace
	}
	return p + "/" + resource
}

// byName adds fieldSelector=metadata.name=<name> to a GET of a collection
// in names that selects by no field yet.
type byName struct {
	next  http.RoundTripper
	names map[string]string
}

func (b byName) RoundTrip(req *http.Request) (*http.Response, error) {
	name, ok := b.names[strings.TrimSuffix(req.URL.Path, "/")]
	if !ok || req.Method != http.MethodGet || req.URL.Query().Has("fieldSelector") {
		return b.next.RoundTrip(req)
	}
	out := req.Clone(req.Context())
	q := out.URL.Query()
	q.Set("fieldSelector", "metadata.name="+name)
	u := *out.URL
	u.RawQuery = q.Encode()
	out.URL = &u
	return b.next.RoundTrip(out)
}
