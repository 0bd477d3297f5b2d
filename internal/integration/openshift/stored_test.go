package openshift

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/hcokit/hcokit/internal/testenv"
)

// expectStoredAsSent waits until the API server holds each of objs, as an
// operand builds them, and checks that it pruned or changed nothing of
// what they hold besides their metadata and status: their CRDs (and Go
// types) take them as sent. skip leaves out a top-level field of a kind
// that the test built with other facts than the operator's (nil: none).
func expectStoredAsSent(t *testing.T, objs []client.Object, skip func(kind, field string) bool) {
	t.Helper()
	for _, want := range objs {
		sent, err := runtime.DefaultUnstructuredConverter.ToUnstructured(want)
		if err != nil {
			t.Fatal(err)
		}
		got := testenv.Stored(t, k, want)
		for field, v := range sent {
			if field == "metadata" || field == "apiVersion" || field == "kind" || field == "status" || v == nil ||
				(skip != nil && skip(got.GetKind(), field)) {
				continue
			}
			if missing := testenv.NotIn(v, got.Object[field], field); missing != "" {
				t.Errorf("%s %s: the API server pruned or changed %s", got.GetKind(), got.GetName(), missing)
			}
		}
	}
}
