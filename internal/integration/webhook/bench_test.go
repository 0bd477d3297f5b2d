package webhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/webhook"
)

const (
	benchNS  = "bench"
	benchVMs = 5000
)

// BenchmarkAdmissionUpdateWith5000VMs measures the admission latency of an
// UPDATE that changes spec.workloads.nodePlacement (the request that has to
// ask the cluster whether workloads exist) with 5,000 VirtualMachines present,
// and reports the median and p99:
//
//	handler:   the webhook's handler alone, including its two metadata-only
//	           limit=1 lists against the API server;
//	https:     an AdmissionReview POSTed to the webhook over TLS, as the API
//	           server sends it: the admission latency the API server sees;
//	apiserver: a dry-run UPDATE through the API server, which calls the
//	           webhook: what a user waits for (decoding, defaulting, CRD
//	           schema and CEL validation, admission).
//
// The VirtualMachines are created once, concurrently, and left for the
// control plane's teardown. Run it with a fixed count for a stable p99:
//
//	go test ./internal/integration/webhook -run '^$' -bench AdmissionUpdate -benchtime 500x
func BenchmarkAdmissionUpdateWith5000VMs(b *testing.B) {
	env.Require(b)
	ctx := context.Background()
	hc := ensureHC(b)
	began := time.Now()
	ensureVMs(b, benchVMs)
	b.Logf("%d VirtualMachines present (setup %.1fs)", benchVMs, time.Since(began).Seconds())

	moved := hc.DeepCopy()
	moved.Spec.Workloads.NodePlacement = &v1beta1.NodePlacement{NodeSelector: map[string]string{"bench": "moved"}}
	wantCount := fmt.Sprintf("found %d VirtualMachines, e.g. %s/", benchVMs, benchNS)

	b.Run("handler", func(b *testing.B) {
		req := admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
			Operation: admissionv1.Update, Namespace: ns, Name: hc.Name,
			Object: rawJSON(b, moved), OldObject: rawJSON(b, hc),
		}}
		var latencies []time.Duration
		for b.Loop() {
			start := time.Now()
			resp := handler.Handle(ctx, req)
			latencies = append(latencies, time.Since(start))
			if resp.Allowed || resp.Result == nil || !strings.Contains(resp.Result.Message, wantCount) {
				b.Fatalf("want a denial naming %q, got allowed=%v %+v", wantCount, resp.Allowed, resp.Result)
			}
		}
		reportLatency(b, latencies)
	})

	b.Run("https", func(b *testing.B) {
		post := webhookPoster(b)
		review := admissionv1.AdmissionReview{
			TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
			Request: &admissionv1.AdmissionRequest{
				UID: "bench", Operation: admissionv1.Update, Namespace: ns, Name: hc.Name,
				Kind:     metav1.GroupVersionKind{Group: v1beta1.GroupVersion.Group, Version: v1beta1.GroupVersion.Version, Kind: "HyperConverged"},
				Resource: metav1.GroupVersionResource{Group: v1beta1.GroupVersion.Group, Version: v1beta1.GroupVersion.Version, Resource: "hyperconvergeds"},
				Object:   rawJSON(b, moved), OldObject: rawJSON(b, hc),
			},
		}
		body, err := json.Marshal(review)
		if err != nil {
			b.Fatal(err)
		}
		var latencies []time.Duration
		for b.Loop() {
			start := time.Now()
			resp := post(body)
			latencies = append(latencies, time.Since(start))
			if resp.Allowed || resp.Result == nil || !strings.Contains(resp.Result.Message, wantCount) {
				b.Fatalf("want a denial naming %q, got allowed=%v %+v", wantCount, resp.Allowed, resp.Result)
			}
		}
		reportLatency(b, latencies)
	})

	b.Run("apiserver", func(b *testing.B) {
		// The current resourceVersion: the operator may have written the
		// status since ensureHC read it.
		current := ensureHC(b)
		current.Spec.Workloads.NodePlacement = moved.Spec.Workloads.NodePlacement
		var latencies []time.Duration
		for b.Loop() {
			obj := current.DeepCopy()
			start := time.Now()
			err := k.Update(ctx, obj, client.DryRunAll)
			latencies = append(latencies, time.Since(start))
			if err == nil || !strings.Contains(err.Error(), wantCount) {
				b.Fatalf("want a denial naming %q, got %v", wantCount, err)
			}
		}
		reportLatency(b, latencies)
	})
}

// reportLatency reports the median and p99 of latencies, in milliseconds.
func reportLatency(b *testing.B, latencies []time.Duration) {
	b.Helper()
	if len(latencies) == 0 {
		return
	}
	slices.Sort(latencies)
	at := func(q float64) float64 {
		i := int(q * float64(len(latencies)-1))
		return float64(latencies[i].Microseconds()) / 1000
	}
	b.ReportMetric(at(0.50), "p50-ms")
	b.ReportMetric(at(0.99), "p99-ms")
	b.ReportMetric(0, "ns/op") // the percentiles say more than the mean
}

func rawJSON(b *testing.B, obj runtime.Object) runtime.RawExtension {
	b.Helper()
	raw, err := json.Marshal(obj)
	if err != nil {
		b.Fatal(err)
	}
	return runtime.RawExtension{Raw: raw}
}

// ensureHC returns the HyperConverged, creating it if needed. Benchmarks run
// after the tests, so it is left in place.
func ensureHC(b *testing.B) *v1beta1.HyperConverged {
	b.Helper()
	ctx := context.Background()
	hc := newHC(nil)
	if err := k.Create(ctx, hc); err != nil && !apierrors.IsAlreadyExists(err) {
		b.Fatalf("create HyperConverged: %v", err)
	}
	if err := k.Get(ctx, client.ObjectKeyFromObject(hc), hc); err != nil {
		b.Fatalf("get HyperConverged: %v", err)
	}
	// As an admission request carries it: with its apiVersion and kind.
	hc.SetGroupVersionKind(v1beta1.GroupVersion.WithKind("HyperConverged"))
	return hc
}

// ensureVMs makes n VirtualMachines exist in benchNS, creating the missing
// ones with 16 concurrent, unthrottled clients.
func ensureVMs(b *testing.B, n int) {
	b.Helper()
	ctx := context.Background()
	cfg := rest.CopyConfig(env.Config)
	cfg.QPS, cfg.Burst = 1e6, 1e6
	c, err := client.New(cfg, client.Options{Scheme: env.Scheme})
	if err != nil {
		b.Fatal(err)
	}
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: benchNS}}); err != nil && !apierrors.IsAlreadyExists(err) {
		b.Fatal(err)
	}
	names := make(chan string)
	errs := make(chan error, 16)
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for name := range names {
				if err := c.Create(ctx, newVM(benchNS, name)); err != nil && !apierrors.IsAlreadyExists(err) {
					select {
					case errs <- fmt.Errorf("create VirtualMachine %s/%s: %w", benchNS, name, err):
					default:
					}
				}
			}
		}()
	}
	for i := range n {
		names <- fmt.Sprintf("vm-%05d", i)
	}
	close(names)
	wg.Wait()
	select {
	case err := <-errs:
		b.Fatal(err)
	default:
	}
}

// webhookPoster returns a function that POSTs an AdmissionReview to the
// webhook server over TLS, trusting envtest's CA, and returns the response.
func webhookPoster(b *testing.B) func([]byte) *admissionv1.AdmissionResponse {
	b.Helper()
	wio := env.Environment.WebhookInstallOptions
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(wio.LocalServingCAData) {
		b.Fatal("no CA in envtest's webhook install options")
	}
	hc := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
	url := fmt.Sprintf("https://%s%s", net.JoinHostPort(wio.LocalServingHost, strconv.Itoa(wio.LocalServingPort)), webhook.Path)
	return func(body []byte) *admissionv1.AdmissionResponse {
		resp, err := hc.Post(url, "application/json", bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		var review admissionv1.AdmissionReview
		if err := json.NewDecoder(resp.Body).Decode(&review); err != nil || review.Response == nil {
			b.Fatalf("decoding the webhook's answer (HTTP %d): %v", resp.StatusCode, err)
		}
		return review.Response
	}
}
