package webhook_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hcokit/hcokit/webhook"
)

// A conversion request past MaxConversionBytes is refused before it is
// read whole, whether it says its length or not; one within the bound is
// converted.
func TestConversionBodyIsBounded(t *testing.T) {
	h, err := webhook.ConversionHandler()
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)

	big := bytes.Repeat([]byte(" "), webhook.MaxConversionBytes+1)
	resp, err := http.Post(srv.URL, "application/json", bytes.NewReader(big))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode, "declared length past the bound")

	// Chunked: no length declared, the reader stops at the bound.
	resp, err = http.Post(srv.URL, "application/json", io.MultiReader(bytes.NewReader(big)))
	require.NoError(t, err)
	resp.Body.Close()
	assert.NotEqual(t, http.StatusOK, resp.StatusCode, "undeclared length past the bound")

	review := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"1","desiredAPIVersion":"hco.kubevirt.io/v1","objects":[` +
		`{"apiVersion":"hco.kubevirt.io/v1beta1","kind":"HyperConverged","metadata":{"name":"kubevirt-hyperconverged","namespace":"ns"},"spec":{}}]}}`
	resp, err = http.Post(srv.URL, "application/json", strings.NewReader(review))
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	assert.Contains(t, string(body), `"hco.kubevirt.io/v1"`)
}
