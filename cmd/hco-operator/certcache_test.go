package main

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type recordingTransport struct{ urls []string }

func (r *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r.urls = append(r.urls, req.Method+" "+req.URL.String())
	return &http.Response{StatusCode: http.StatusOK, Body: http.NoBody}, nil
}

// The rotators' caches list and watch their own objects only: a GET of a
// named collection gets a metadata.name field selector; a GET of one
// object, a write, another collection and a request that selects already
// pass unchanged.
func TestRotatorCachesSelectByName(t *testing.T) {
	rec := &recordingTransport{}
	secrets := collectionPath("", "v1", "ns", "secrets")
	crds := collectionPath("apiextensions.k8s.io", "v1", "", "customresourcedefinitions")
	rt := byName{next: rec, names: map[string]string{secrets: "cert", crds: "hyperconvergeds.hco.kubevirt.io"}}
	for _, r := range []struct{ method, url string }{
		{http.MethodGet, "https://api" + secrets + "?limit=500&resourceVersion=0"},
		{http.MethodGet, "https://api" + secrets + "?watch=true&resourceVersion=7"},
		{http.MethodGet, "https://api" + crds},
		{http.MethodGet, "https://api" + secrets + "/cert"},
		{http.MethodPut, "https://api" + secrets + "/cert"},
		{http.MethodGet, "https://api/api/v1/namespaces/ns/configmaps"},
		{http.MethodGet, "https://api" + secrets + "?fieldSelector=metadata.name%3Dother"},
	} {
		req, err := http.NewRequest(r.method, r.url, nil)
		require.NoError(t, err)
		_, err = rt.RoundTrip(req)
		require.NoError(t, err)
	}
	assert.Equal(t, []string{
		"GET https://api/api/v1/namespaces/ns/secrets?fieldSelector=metadata.name%3Dcert&limit=500&resourceVersion=0",
		"GET https://api/api/v1/namespaces/ns/secrets?fieldSelector=metadata.name%3Dcert&resourceVersion=7&watch=true",
		"GET https://api/apis/apiextensions.k8s.io/v1/customresourcedefinitions?fieldSelector=metadata.name%3Dhyperconvergeds.hco.kubevirt.io",
		"GET https://api/api/v1/namespaces/ns/secrets/cert",
		"PUT https://api/api/v1/namespaces/ns/secrets/cert",
		"GET https://api/api/v1/namespaces/ns/configmaps",
		"GET https://api/api/v1/namespaces/ns/secrets?fieldSelector=metadata.name%3Dother",
	}, rec.urls)
}
