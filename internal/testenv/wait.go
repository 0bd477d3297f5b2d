package testenv

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// EventuallyTimeout and EventuallyPoll bound Eventually: long enough for a
// loaded 2-core machine, short enough to fail fast.
const (
	EventuallyTimeout = 20 * time.Second
	EventuallyPoll    = 25 * time.Millisecond
)

// Eventually polls f until it returns nil, and fails t with what and f's
// last error when EventuallyTimeout passes first.
func Eventually(t testing.TB, what string, f func() error) {
	t.Helper()
	deadline := time.Now().Add(EventuallyTimeout)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %v", what, err)
		}
		time.Sleep(EventuallyPoll)
	}
}

// DeleteAndWait deletes obj (its kind set, or known to c's scheme) and
// waits until the API server no longer has it: its finalizers done (a
// HyperConverged's: the operator's uninstall). One already gone is fine.
func DeleteAndWait(t testing.TB, c client.Client, obj client.Object) {
	t.Helper()
	ctx := context.Background()
	if err := c.Delete(ctx, obj); client.IgnoreNotFound(err) != nil {
		t.Fatalf("delete %T %s: %v", obj, client.ObjectKeyFromObject(obj), err)
	}
	Eventually(t, fmt.Sprintf("%T %s gone", obj, client.ObjectKeyFromObject(obj)), func() error {
		probe := obj.DeepCopyObject().(client.Object)
		err := c.Get(ctx, client.ObjectKeyFromObject(obj), probe)
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("still there (finalizers %v): %v", probe.GetFinalizers(), err)
	})
}

// CreateForTest creates obj and, when the test ends, deletes it and waits
// until it is gone (DeleteAndWait); cleanups registered after this one run
// first.
func CreateForTest(t testing.TB, c client.Client, obj client.Object) {
	t.Helper()
	if err := c.Create(context.Background(), obj); err != nil {
		t.Fatalf("create %T %s: %v", obj, client.ObjectKeyFromObject(obj), err)
	}
	t.Cleanup(func() { DeleteAndWait(t, c, obj.DeepCopyObject().(client.Object)) })
}

// EnsureNamespace creates the namespace name unless it exists. It is kept
// when the test ends: no namespace controller runs on the test control
// plane to finish a namespace's deletion, so a deleted one would block the
// next run's create (go test -count=N).
func EnsureNamespace(t testing.TB, c client.Client, name string) {
	t.Helper()
	err := c.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("create namespace %s: %v", name, err)
	}
}

// Stored waits until the API server holds an object of obj's kind, namespace
// and name, and returns it as stored (unstructured: every field, whatever
// obj's Go type lacks).
func Stored(t testing.TB, c client.Client, obj client.Object) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(obj.GetObjectKind().GroupVersionKind())
	Eventually(t, fmt.Sprintf("%s %s", u.GetKind(), obj.GetName()), func() error {
		return c.Get(context.Background(), client.ObjectKeyFromObject(obj), u)
	})
	return u
}
