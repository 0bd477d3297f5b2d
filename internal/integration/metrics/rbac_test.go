package metrics

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/hcokit/hcokit/internal/testenv"
)

// operatorNamespace is the namespace the shipped manifests install into.
const operatorNamespace = "kubevirt-hyperconverged"

// manifests reads the objects of the kustomization in dir (config/...),
// following its resources: plain files and directories with their own
// kustomization.
func manifests(t *testing.T, dir string) []*unstructured.Unstructured {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var k struct {
		Resources []string `json:"resources"`
	}
	if err := yaml.Unmarshal(raw, &k); err != nil {
		t.Fatalf("%s: %v", dir, err)
	}
	var out []*unstructured.Unstructured
	for _, r := range k.Resources {
		p := filepath.Join(dir, r)
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			out = append(out, manifests(t, p)...)
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
		for {
			doc, err := reader.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			u := &unstructured.Unstructured{}
			if err := yaml.Unmarshal(doc, &u.Object); err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			if len(u.Object) > 0 {
				out = append(out, u)
			}
		}
	}
	return out
}

// installRBAC applies the ServiceAccounts and RBAC of config/ (the operator's
// and the webhook's, the metrics ones among them) and removes them when the
// test ends; the namespace is created if missing and kept (envtest never
// finishes deleting a namespace).
func installRBAC(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	if err := k.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: operatorNamespace}}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range manifests(t, filepath.Join(root, "config")) {
		switch u.GetKind() {
		case "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding":
		default:
			continue
		}
		if err := k.Patch(ctx, u, client.Apply, client.FieldOwner("metrics-test"), client.ForceOwnership); err != nil {
			t.Fatalf("apply %s %s: %v", u.GetKind(), u.GetName(), err)
		}
		t.Cleanup(func() {
			if err := k.Delete(context.Background(), u); client.IgnoreNotFound(err) != nil {
				t.Errorf("delete %s %s: %v", u.GetKind(), u.GetName(), err)
			}
		})
	}
}

// serviceAccountKubeconfig writes a kubeconfig with a TokenRequest token of
// the ServiceAccount namespace/name: the binary then runs with exactly the
// RBAC the manifests grant it.
func serviceAccountKubeconfig(t *testing.T, namespace, name string) string {
	t.Helper()
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
	tr := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)}}
	if err := k.SubResource("token").Create(context.Background(), sa, tr); err != nil {
		t.Fatalf("TokenRequest for ServiceAccount %s/%s: %v", namespace, name, err)
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["test"] = &clientcmdapi.Cluster{Server: env.Config.Host, CertificateAuthorityData: env.Config.CAData}
	cfg.AuthInfos[name] = &clientcmdapi.AuthInfo{Token: tr.Status.Token}
	cfg.Contexts["test"] = &clientcmdapi.Context{Cluster: "test", AuthInfo: name}
	cfg.CurrentContext = "test"
	p := filepath.Join(t.TempDir(), name+".kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, p); err != nil {
		t.Fatal(err)
	}
	return p
}

// config/prometheus lets the Prometheus service account it binds GET
// /metrics, and find the endpoints in the operator's namespace (upstream's
// Role: Services, Endpoints and Pods, read only, there only); config/ itself
// holds no Prometheus operator kinds, so that it applies on a cluster without
// their CRDs.
func TestPrometheusMayScrapeAndDefaultConfigNeedsNoPrometheusCRDs(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	installRBAC(t)
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range manifests(t, filepath.Join(root, "config")) {
		if u.GroupVersionKind().Group == "monitoring.coreos.com" {
			t.Errorf("config/ holds %s %s: it would not apply without the Prometheus operator's CRDs; it belongs in config/prometheus", u.GetKind(), u.GetName())
		}
	}
	var subjects []rbacv1.Subject
	kinds := map[string]bool{}
	for _, u := range manifests(t, filepath.Join(root, "config", "prometheus")) {
		kinds[u.GetKind()] = true
		switch u.GetKind() {
		case "ClusterRoleBinding", "Role", "RoleBinding":
		default:
			continue
		}
		if err := k.Patch(ctx, u, client.Apply, client.FieldOwner("metrics-test"), client.ForceOwnership); err != nil {
			t.Fatalf("apply %s %s: %v", u.GetKind(), u.GetName(), err)
		}
		t.Cleanup(func() {
			if err := k.Delete(context.Background(), u); client.IgnoreNotFound(err) != nil {
				t.Errorf("delete %s %s: %v", u.GetKind(), u.GetName(), err)
			}
		})
		if u.GetKind() != "ClusterRoleBinding" {
			continue
		}
		var b rbacv1.ClusterRoleBinding
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &b); err != nil {
			t.Fatal(err)
		}
		subjects = append(subjects, b.Subjects...)
	}
	for _, kind := range []string{"ServiceMonitor", "PrometheusRule", "ClusterRoleBinding", "Role", "RoleBinding"} {
		if !kinds[kind] {
			t.Errorf("config/prometheus has no %s", kind)
		}
	}
	if len(subjects) == 0 {
		t.Fatal("config/prometheus binds no one to hco-metrics-reader")
	}
	for _, s := range subjects {
		user := "system:serviceaccount:" + s.Namespace + ":" + s.Name
		// The allowed path first: once it is, the binding is in effect, and
		// the refusal of the other means something.
		for _, c := range []struct {
			path string
			want bool
		}{{"/metrics", true}, {"/debug/pprof", false}} {
			path, want := c.path, c.want
			// The API server's authorizer learns of the binding just
			// applied from its own watch, a moment later.
			testenv.Eventually(t, fmt.Sprintf("%s GET %s allowed %v", user, path, want), func() error {
				sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
					User: user, NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: path, Verb: "get"},
				}}
				if err := k.Create(ctx, sar); err != nil {
					return err
				}
				if sar.Status.Allowed != want {
					return fmt.Errorf("allowed %v (%s)", sar.Status.Allowed, sar.Status.Reason)
				}
				return nil
			})
		}
		// The allowed requests first, as above.
		for _, c := range []struct {
			resource, verb, namespace string
			want                      bool
		}{
			{"endpoints", "list", operatorNamespace, true},
			{"services", "watch", operatorNamespace, true},
			{"pods", "get", operatorNamespace, true},
			{"endpoints", "list", "default", false},
			{"secrets", "list", operatorNamespace, false},
			{"services", "update", operatorNamespace, false},
		} {
			testenv.Eventually(t, fmt.Sprintf("%s %s %s in %s allowed %v", user, c.verb, c.resource, c.namespace, c.want), func() error {
				sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
					User:               user,
					ResourceAttributes: &authorizationv1.ResourceAttributes{Resource: c.resource, Verb: c.verb, Namespace: c.namespace},
				}}
				if err := k.Create(ctx, sar); err != nil {
					return err
				}
				if sar.Status.Allowed != c.want {
					return fmt.Errorf("allowed %v (%s)", sar.Status.Allowed, sar.Status.Reason)
				}
				return nil
			})
		}
	}
}
