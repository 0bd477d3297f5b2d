package webhook_test

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

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

// reviewOf is a ConversionReview of n tiny v1beta1 HyperConvergeds.
func reviewOf(n int) string {
	objs := make([]string, n)
	for i := range objs {
		objs[i] = `{"apiVersion":"hco.kubevirt.io/v1beta1","kind":"HyperConverged","metadata":{"name":"kubevirt-hyperconverged","namespace":"ns"},"spec":{}}`
	}
	return `{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"1","desiredAPIVersion":"hco.kubevirt.io/v1","objects":[` + strings.Join(objs, ",") + `]}}`
}

// A ConversionReview of more objects than MaxConversionObjects is refused
// before it is decoded (many tiny objects within the byte bound took 582
// MiB); one of that many is converted.
func TestConversionObjectsAreBounded(t *testing.T) {
	h, err := webhook.ConversionHandler()
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	for n, want := range map[int]int{webhook.MaxConversionObjects: http.StatusOK, webhook.MaxConversionObjects + 1: http.StatusRequestEntityTooLarge, 60000: http.StatusRequestEntityTooLarge} {
		resp, err := http.Post(srv.URL, "application/json", strings.NewReader(reviewOf(n)))
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, want, resp.StatusCode, "%d objects: %s", n, body)
	}
}

// Past MaxConcurrentConversions requests at once, the next is refused with
// 429 and Retry-After; once one ends, a request is served again.
func TestConversionConcurrencyIsBounded(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 8)
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		started <- struct{}{}
		<-release
	})
	const limit = 2
	srv := httptest.NewServer(webhook.Bounded(next, webhook.ConversionBounds{Bytes: 1 << 10, Objects: 1, Concurrent: limit, ReadTimeout: time.Second}))
	t.Cleanup(srv.Close)
	done := make(chan int, limit)
	for range limit {
		go func() {
			resp, err := http.Post(srv.URL, "application/json", strings.NewReader(reviewOf(1)))
			if err == nil {
				resp.Body.Close()
				done <- resp.StatusCode
			} else {
				done <- 0
			}
		}()
	}
	for range limit {
		<-started
	}
	resp, err := http.Post(srv.URL, "application/json", strings.NewReader(reviewOf(1)))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	assert.Equal(t, "1", resp.Header.Get("Retry-After"))
	close(release)
	for range limit {
		assert.Equal(t, http.StatusOK, <-done)
	}
	resp, err = http.Post(srv.URL, "application/json", strings.NewReader(reviewOf(1)))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, "served again once the others ended")
}

// A body that does not arrive within the read timeout is not waited for:
// the request ends, and its slot is free again.
func TestConversionSlowBodyTimesOut(t *testing.T) {
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	srv := httptest.NewServer(webhook.Bounded(next, webhook.ConversionBounds{Bytes: 1 << 10, Objects: 1, Concurrent: 1, ReadTimeout: 200 * time.Millisecond}))
	t.Cleanup(srv.Close)
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	// Headers and a part of the promised body, then nothing.
	_, err = io.WriteString(conn, "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"request\":")
	require.NoError(t, err)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(5*time.Second)))
	reply, err := io.ReadAll(conn)
	require.NoError(t, err, "the server ends the request (it does not wait for the rest)")
	assert.NotContains(t, string(reply), "200 OK")

	// The slot is free again.
	resp, err := http.Post(srv.URL, "application/json", strings.NewReader(reviewOf(1)))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
}
