package testenv_test

import (
	"bufio"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/hcokit/hcokit/internal/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) {
	testenv.Main(m, testenv.Options{}, func(e *testenv.Env) { env = e })
}

// TestServerVersion checks that the apiserver in bin/k8s is the one pinned by
// tools/controlplane/apiserver/go.mod and was stamped with that version.
func TestServerVersion(t *testing.T) {
	env.Require(t)
	dc, err := discovery.NewDiscoveryClientForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	got, err := dc.ServerVersion()
	if err != nil {
		t.Fatal(err)
	}
	if want := pinnedKubernetesVersion(t); got.GitVersion != want {
		t.Errorf("server version = %q, want %q (rebuild with `make controlplane`)", got.GitVersion, want)
	}
}

// TestCRDsInstalled checks that the default CRD directories were installed
// and that the client can use them.
func TestCRDsInstalled(t *testing.T) {
	env.Require(t)
	if len(env.Environment.CRDs) == 0 {
		t.Fatal("no CRDs installed from config/crd")
	}
	ctx := context.Background()
	for _, crd := range env.Environment.CRDs {
		var got apiextensionsv1.CustomResourceDefinition
		if err := env.Client.Get(ctx, client.ObjectKey{Name: crd.Name}, &got); err != nil {
			t.Errorf("get CRD %s: %v", crd.Name, err)
		}
	}
}

func TestClientRoundTrip(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "testenv-"}}
	if err := env.Client.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), ns) })
	var got corev1.Namespace
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(ns), &got); err != nil {
		t.Fatal(err)
	}
}

func TestStartWithoutBinaries(t *testing.T) {
	_, err := testenv.Start(testenv.Options{BinaryAssetsDirectory: t.TempDir()})
	if !errors.Is(err, testenv.ErrBinariesMissing) {
		t.Fatalf("Start with an empty binary directory: err = %v, want ErrBinariesMissing", err)
	}
}

func TestRepoRoot(t *testing.T) {
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "internal", "testenv", "doc.go")); err != nil {
		t.Errorf("RepoRoot() = %s, which does not hold this package: %v", root, err)
	}
}

// pinnedKubernetesVersion reads the k8s.io/kubernetes requirement from the
// control plane tool module.
func pinnedKubernetesVersion(t *testing.T) string {
	t.Helper()
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(root, "tools", "controlplane", "apiserver", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(strings.TrimPrefix(strings.TrimSpace(sc.Text()), "require "))
		if len(fields) >= 2 && fields[0] == "k8s.io/kubernetes" && strings.HasPrefix(fields[1], "v") {
			return fields[1]
		}
	}
	t.Fatal("no k8s.io/kubernetes requirement in tools/controlplane/apiserver/go.mod")
	return ""
}

// A killed and restarted apiserver keeps what etcd stored and answers the
// clients made before, with the same address, certificate and user.
func TestKillAndStartAPIServer(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "restart-", Namespace: "default"}}
	if err := env.Client.Create(ctx, cm); err != nil {
		t.Fatal(err)
	}
	if err := env.KillAPIServer(); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(cm), &corev1.ConfigMap{}); err == nil {
		t.Fatal("the apiserver answered while killed")
	}
	if err := env.StartAPIServer(); err != nil {
		t.Fatal(err)
	}
	var got corev1.ConfigMap
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(cm), &got); err != nil {
		t.Fatalf("after the restart: %v", err)
	}
	if got.UID != cm.UID {
		t.Errorf("uid %s, was %s", got.UID, cm.UID)
	}
	_ = env.Client.Delete(ctx, &got)
}
