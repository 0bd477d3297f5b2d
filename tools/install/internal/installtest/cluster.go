package installtest

import (
	"bytes"
	"cmp"
	"context"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

const (
	// HCOCRD is the HyperConverged CRD's name.
	HCOCRD = "hyperconvergeds.hco.kubevirt.io"
	// WebhookService is the Service of hcokit's webhook.
	WebhookService = "hco-webhook"
	// Eventually bounds every wait: generous, as the machine may be busy;
	// the polls end as soon as the state is reached.
	Eventually = 3 * time.Minute
	// Poll is the pause between two checks of a wait.
	Poll = 200 * time.Millisecond
	// ManagedBy is the label the operator sets on what it manages.
	ManagedBy = "app.kubernetes.io/managed-by"
)

// WaitFor polls check until it passes, failing the test with its last error
// after the generous bound.
func WaitFor(t *testing.T, what string, check func() error) {
	t.Helper()
	var err error
	for deadline := time.Now().Add(Eventually); time.Now().Before(deadline); time.Sleep(Poll) {
		if err = check(); err == nil {
			return
		}
	}
	t.Fatalf("%s: not after %s: %v", what, Eventually, err)
}

// Find returns the rendered object of kind and name, failing the test when
// there is none.
func Find(t *testing.T, objs []*unstructured.Unstructured, kind, name string) *unstructured.Unstructured {
	t.Helper()
	for _, o := range objs {
		if o.GetKind() == kind && o.GetName() == name {
			return o
		}
	}
	t.Fatalf("no %s %s in the rendered manifests", kind, name)
	return nil
}

// Into converts u into the typed out.
func Into(t *testing.T, u *unstructured.Unstructured, out any) {
	t.Helper()
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, out), "%s %s", u.GetKind(), u.GetName())
}

// ApplyAll applies objs with c as kubectl apply --server-side would, with
// the webhooks and the conversion pointed at base instead of the Service,
// waits until the HyperConverged CRD is established, and removes them at
// cleanup (but the namespaces, which no controller would empty).
func ApplyAll(t *testing.T, ctx context.Context, c client.Client, objs []*unstructured.Unstructured, base string) {
	t.Helper()
	// Namespaces first, as kubectl orders them.
	objs = slices.Clone(objs)
	slices.SortStableFunc(objs, func(a, b *unstructured.Unstructured) int {
		first := func(u *unstructured.Unstructured) int {
			if u.GetKind() == "Namespace" {
				return 0
			}
			return 1
		}
		return cmp.Compare(first(a), first(b))
	})
	for _, u := range objs {
		u = u.DeepCopy()
		switch u.GetKind() {
		case "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration":
			// hcokit's webhook's; a component operator's stays pointed at its
			// Service, but ignores a failure: no component operator runs
			// here, so its webhook admits by not answering (the operator's
			// CRs are created as if it had).
			hooks, _, _ := unstructured.NestedSlice(u.Object, "webhooks")
			for _, h := range hooks {
				cc := h.(map[string]any)["clientConfig"].(map[string]any)
				if svc, _ := cc["service"].(map[string]any); svc != nil && svc["name"] == WebhookService {
					toURL(t, cc, base)
				} else {
					h.(map[string]any)["failurePolicy"] = "Ignore"
				}
			}
			require.NoError(t, unstructured.SetNestedSlice(u.Object, hooks, "webhooks"))
		case "CustomResourceDefinition":
			if u.GetName() == HCOCRD {
				cc, ok, _ := unstructured.NestedMap(u.Object, "spec", "conversion", "webhook", "clientConfig")
				require.True(t, ok, "the CRD's conversion webhook")
				toURL(t, cc, base)
				require.NoError(t, unstructured.SetNestedMap(u.Object, cc, "spec", "conversion", "webhook", "clientConfig"))
			}
		}
		// A CRD the control plane had before (the test package's operand
		// CRDs) is left at cleanup, as an uninstall leaves CRDs.
		existed := false
		if u.GetKind() == "CustomResourceDefinition" {
			existed = c.Get(ctx, client.ObjectKeyFromObject(u), &apiextensionsv1.CustomResourceDefinition{}) == nil
		}
		require.NoError(t, c.Patch(ctx, u, client.Apply, client.FieldOwner("install-test"), client.ForceOwnership), "%s %s", u.GetKind(), u.GetName())
		if u.GetKind() == "Namespace" || existed {
			continue // envtest runs no namespace controller: a deleted one never goes
		}
		t.Cleanup(func() {
			err := c.Delete(context.Background(), u)
			if err != nil && !apierrors.IsNotFound(err) {
				t.Errorf("cleanup: delete %s %s: %v", u.GetKind(), u.GetName(), err)
			}
			if u.GetKind() == "CustomResourceDefinition" {
				// The next run applies it again: wait until it is gone.
				WaitFor(t, "the CRD deleted", func() error {
					if err := c.Get(context.Background(), client.ObjectKeyFromObject(u), &apiextensionsv1.CustomResourceDefinition{}); !apierrors.IsNotFound(err) {
						return fmt.Errorf("still there: %v", err)
					}
					return nil
				})
			}
		})
	}
	WaitFor(t, "the HyperConverged CRD established", func() error {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := c.Get(ctx, client.ObjectKey{Name: HCOCRD}, crd); err != nil {
			return err
		}
		for _, c := range crd.Status.Conditions {
			if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
				return nil
			}
		}
		return fmt.Errorf("not established")
	})
}

// toURL points a webhook clientConfig with a service at the same path under base.
func toURL(t *testing.T, cc map[string]any, base string) {
	t.Helper()
	svc, ok := cc["service"].(map[string]any)
	require.True(t, ok, "clientConfig without a service: %v", cc)
	path, _ := svc["path"].(string)
	delete(cc, "service")
	cc["url"] = base + path
}

// PlayKubelet projects the Secret's certificate into dir whenever it
// changes, as the kubelet does for a Secret volume: the files are symlinks
// into a directory that is swapped atomically, so that a reader never sees
// a certificate with another one's key. It runs until ctx ends.
func PlayKubelet(ctx context.Context, t *testing.T, c client.Client, key client.ObjectKey, dir string) {
	var last []byte
	for n := 0; ctx.Err() == nil; {
		var s corev1.Secret
		if err := c.Get(ctx, key, &s); err == nil && len(s.Data["tls.crt"]) > 0 && !bytes.Equal(s.Data["tls.crt"], last) {
			n++
			if err := project(dir, fmt.Sprintf("..%d", n), s.Data); err != nil {
				t.Errorf("project Secret %s into %s: %v", key, dir, err)
				return
			}
			last = s.Data["tls.crt"]
		}
		select {
		case <-ctx.Done():
		case <-time.After(Poll):
		}
	}
}

// project writes data into dir/version and points dir/..data at it.
func project(dir, version string, data map[string][]byte) error {
	if err := os.Mkdir(filepath.Join(dir, version), 0o700); err != nil {
		return err
	}
	for _, name := range []string{"tls.crt", "tls.key"} {
		if err := os.WriteFile(filepath.Join(dir, version, name), data[name], 0o600); err != nil {
			return err
		}
		link := filepath.Join(dir, name)
		if _, err := os.Lstat(link); os.IsNotExist(err) {
			if err := os.Symlink(filepath.Join("..data", name), link); err != nil {
				return err
			}
		}
	}
	tmp := filepath.Join(dir, "..data_tmp")
	if err := os.Symlink(version, tmp); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, "..data"))
}

// ManagedKinds are the kinds the default install manages (hpp is opt-in,
// config/components/hpp), and the component operators, or the Deployment
// controller, report on.
var ManagedKinds = []schema.GroupVersionKind{
	{Group: "kubevirt.io", Version: "v1", Kind: "KubeVirt"},
	{Group: "cdi.kubevirt.io", Version: "v1beta1", Kind: "CDI"},
	{Group: "networkaddonsoperator.network.kubevirt.io", Version: "v1", Kind: "NetworkAddonsConfig"},
	{Group: "ssp.kubevirt.io", Version: "v1beta3", Kind: "SSP"},
	{Group: "migrations.kubevirt.io", Version: "v1alpha1", Kind: "MigController"},
	{Group: "filerestore.kubevirt.io", Version: "v1alpha1", Kind: "FileRestoreOperator"},
	{Group: "apps", Version: "v1", Kind: "Deployment"},
	{Version: "v1", Kind: "Service"},
	{Group: "scheduling.k8s.io", Version: "v1", Kind: "PriorityClass"},
	{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "ValidatingAdmissionPolicy"},
	{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "ValidatingAdmissionPolicyBinding"},
	// The network-resources-injector's (its Deployment and Service are above).
	{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRoleBinding"},
	{Version: "v1", Kind: "ServiceAccount"},
	{Group: "policy", Version: "v1", Kind: "PodDisruptionBudget"},
	{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "MutatingWebhookConfiguration"},
	// The AIE webhook's (the HyperConverged below carries its annotation).
	{Version: "v1", Kind: "ConfigMap"},
}

// ReportsNoStatus are the managed kinds nothing reports on: they are
// available once they exist.
var ReportsNoStatus = map[string]bool{
	"Service": true, "PriorityClass": true, "ValidatingAdmissionPolicy": true, "ValidatingAdmissionPolicyBinding": true,
	"ClusterRole": true, "ClusterRoleBinding": true, "ServiceAccount": true, "PodDisruptionBudget": true, "MutatingWebhookConfiguration": true,
	"ConfigMap": true,
}

// MarkAvailable plays the component operators and the Deployment
// controller: every object of kinds that the operator manages and that has
// no conditions is reported Available, not progressing, not degraded (the
// kinds in ReportsNoStatus are left as they are).
func MarkAvailable(t *testing.T, ctx context.Context, c client.Client, kinds []schema.GroupVersionKind) {
	t.Helper()
	now := time.Now().UTC().Format(time.RFC3339)
	healthy := []any{
		map[string]any{"type": "Available", "status": "True", "reason": "Simulated", "message": "", "lastTransitionTime": now},
		map[string]any{"type": "Progressing", "status": "False", "reason": "Simulated", "message": "", "lastTransitionTime": now},
		map[string]any{"type": "Degraded", "status": "False", "reason": "Simulated", "message": "", "lastTransitionTime": now},
	}
	rolledOut := []any{
		map[string]any{"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable", "message": "", "lastTransitionTime": now, "lastUpdateTime": now},
		map[string]any{"type": "Progressing", "status": "True", "reason": "NewReplicaSetAvailable", "message": "", "lastTransitionTime": now, "lastUpdateTime": now},
	}
	for _, gvk := range kinds {
		if ReportsNoStatus[gvk.Kind] {
			continue
		}
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		require.NoError(t, c.List(ctx, list, client.MatchingLabels{ManagedBy: "hco-operator"}))
		for i := range list.Items {
			o := &list.Items[i]
			if c, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions"); len(c) > 0 {
				continue
			}
			conds := healthy
			if gvk.Kind == "Deployment" {
				conds = rolledOut
				require.NoError(t, unstructured.SetNestedField(o.Object, o.GetGeneration(), "status", "observedGeneration"))
				// Every replica ready (what the injector's status reads).
				replicas, _, _ := unstructured.NestedInt64(o.Object, "spec", "replicas")
				for _, f := range []string{"replicas", "readyReplicas", "availableReplicas", "updatedReplicas"} {
					require.NoError(t, unstructured.SetNestedField(o.Object, replicas, "status", f))
				}
			}
			require.NoError(t, unstructured.SetNestedSlice(o.Object, conds, "status", "conditions"))
			err := c.Status().Update(ctx, o)
			if apierrors.IsNotFound(err) {
				// A CRD without the status subresource (upstream's CDI and
				// HostPathProvisioner CRDs, which the install brings): the
				// component operator writes its status with the object.
				err = c.Update(ctx, o)
			}
			if err != nil && !apierrors.IsConflict(err) {
				require.NoError(t, err, "mark %s %s Available", gvk.Kind, o.GetName())
			}
		}
	}
}

// ExpectTakenBack removes the operator's managed-by label from every object
// of kinds it manages, which takes each out of the operator's cache: the
// operator's create then finds it, reads it past the cache and restores it.
// It waits until each has its label back; alive fails the test when the
// operator has exited. Every kind must have an object.
func ExpectTakenBack(t *testing.T, ctx context.Context, c client.Client, kinds []schema.GroupVersionKind, alive func(*testing.T)) {
	t.Helper()
	var managed []*unstructured.Unstructured
	for _, gvk := range kinds {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		require.NoError(t, c.List(ctx, list, client.MatchingLabels{ManagedBy: "hco-operator"}))
		require.NotEmpty(t, list.Items, "the operator manages a %s", gvk.Kind)
		for i := range list.Items {
			o := &list.Items[i]
			require.NoError(t, c.Patch(ctx, o, client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"labels":{"`+ManagedBy+`":null}}}`))))
			managed = append(managed, o)
		}
	}
	for _, o := range managed {
		WaitFor(t, o.GetKind()+" "+o.GetName()+" taken back", func() error {
			alive(t)
			got := &unstructured.Unstructured{}
			got.SetGroupVersionKind(o.GroupVersionKind())
			if err := c.Get(ctx, client.ObjectKeyFromObject(o), got); err != nil {
				return err
			}
			if v := got.GetLabels()[ManagedBy]; v != "hco-operator" {
				return fmt.Errorf("label %s is %q", ManagedBy, v)
			}
			return nil
		})
	}
}

// ExpectNoneLeft checks that no object of kinds carries the operator's
// managed-by label.
func ExpectNoneLeft(t *testing.T, ctx context.Context, c client.Client, kinds []schema.GroupVersionKind) {
	t.Helper()
	for _, gvk := range kinds {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		require.NoError(t, c.List(ctx, list, client.MatchingLabels{ManagedBy: "hco-operator"}))
		assert.Empty(t, list.Items, "%s left after the HyperConverged", gvk.Kind)
	}
}

// Verifies says whether cert (PEM) is signed by the CA in ca (PEM) for
// dnsName.
func Verifies(ca, cert []byte, dnsName string) error {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		return fmt.Errorf("no CA in the caBundle")
	}
	block, _ := pem.Decode(cert)
	if block == nil {
		return fmt.Errorf("no certificate in the Secret")
	}
	c, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return err
	}
	_, err = c.Verify(x509.VerifyOptions{Roots: pool, DNSName: dnsName})
	return err
}
