package installtest

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"

	"github.com/hcokit/hcokit/internal/testenv"
)

// BuildOperator builds hco-operator once for the test.
func BuildOperator(t *testing.T) string {
	t.Helper()
	root, err := testenv.RepoRoot()
	require.NoError(t, err)
	bin := filepath.Join(t.TempDir(), "hco-operator")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/hco-operator")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go build ./cmd/hco-operator: %s", out)
	return bin
}

// FreeAddress returns a local address nothing listens on (yet).
func FreeAddress(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().String()
}

// Kubeconfig writes a kubeconfig for env's apiserver that authenticates as
// the service account ns/name with a token from the TokenRequest API, as a
// pod's projected token would.
func Kubeconfig(t *testing.T, ctx context.Context, env *testenv.Env, ns, name string) string {
	t.Helper()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["test"] = &clientcmdapi.Cluster{Server: env.Config.Host, CertificateAuthorityData: env.Config.CAData}
	cfg.AuthInfos[name] = &clientcmdapi.AuthInfo{Token: Token(t, ctx, env, ns, name)}
	cfg.Contexts[name] = &clientcmdapi.Context{Cluster: "test", AuthInfo: name}
	cfg.CurrentContext = name
	path := filepath.Join(t.TempDir(), name+".kubeconfig")
	require.NoError(t, clientcmd.WriteToFile(*cfg, path))
	return path
}

// Token returns a token of the service account ns/name from the
// TokenRequest API.
func Token(t *testing.T, ctx context.Context, env *testenv.Env, ns, name string) string {
	t.Helper()
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	tr := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)}}
	require.NoError(t, env.Client.SubResource("token").Create(ctx, sa, tr), "token of service account %s/%s", ns, name)
	return tr.Status.Token
}

// Scrape asks addr for /metrics with token, over HTTPS or HTTP, and returns
// the status code (0 when neither answers). The install tests do not judge
// the answer (the monitoring tests do): it makes the process use what its
// metrics endpoint is granted (token and access reviews, when authenticated).
func Scrape(addr, token string) int {
	for _, scheme := range []string{"https", "http"} {
		req, err := http.NewRequest(http.MethodGet, scheme+"://"+addr+"/metrics", nil)
		if err != nil {
			return 0
		}
		req.Header.Set("Authorization", "Bearer "+token)
		// The serving certificate of the metrics endpoint is not what this test checks.
		c := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec
		resp, err := c.Do(req)
		if err != nil {
			continue
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	return 0
}

// Container returns the first container of the rendered Deployment name.
func Container(t *testing.T, objs []*unstructured.Unstructured, name string) corev1.Container {
	t.Helper()
	var d appsv1.Deployment
	Into(t, Find(t, objs, "Deployment", name), &d)
	require.NotEmpty(t, d.Spec.Template.Spec.Containers, name)
	return d.Spec.Template.Spec.Containers[0]
}

// SetEnv sets the values of set in the environment of the first container
// of the rendered Deployment name, as an admin edits the manifests before
// applying them (the install's admission policy reads the operator's images
// from its Deployment, so a test sets them there, not in the process only).
func SetEnv(t *testing.T, objs []*unstructured.Unstructured, name string, set map[string]string) {
	t.Helper()
	u := Find(t, objs, "Deployment", name)
	var d appsv1.Deployment
	Into(t, u, &d)
	c := &d.Spec.Template.Spec.Containers[0]
	for i, e := range c.Env {
		if v, ok := set[e.Name]; ok {
			c.Env[i] = corev1.EnvVar{Name: e.Name, Value: v}
		}
	}
	missing := maps.Clone(set)
	for _, e := range c.Env {
		delete(missing, e.Name)
	}
	require.Empty(t, missing, "variables the Deployment %s does not have", name)
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&d)
	require.NoError(t, err)
	u.Object = m
}

// ProcessEnv is the container's environment as the kubelet would give it
// in namespace ns (only the sources the manifests use are resolved), with
// the values of set in place of the manifests'.
func ProcessEnv(t *testing.T, c corev1.Container, ns string, set map[string]string) []string {
	t.Helper()
	var out []string
	for _, e := range c.Env {
		if v, ok := set[e.Name]; ok {
			out = append(out, e.Name+"="+v)
			continue
		}
		switch {
		case e.ValueFrom == nil:
			out = append(out, e.Name+"="+e.Value)
		case e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "metadata.namespace":
			out = append(out, e.Name+"="+ns)
		default:
			t.Fatalf("container %s: env %s: a source the install test does not resolve", c.Name, e.Name)
		}
	}
	return out
}

// WithFlags returns args with each --name=value of set replacing the
// argument of that name, or appended when absent.
func WithFlags(args []string, set map[string]string) []string {
	out := make([]string, 0, len(args)+len(set))
	done := map[string]bool{}
	for _, a := range args {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if v, ok := set[name]; ok && strings.HasPrefix(a, "-") {
			out = append(out, "--"+name+"="+v)
			done[name] = true
			continue
		}
		out = append(out, a)
	}
	for name, v := range set {
		if !done[name] {
			out = append(out, "--"+name+"="+v)
		}
	}
	return out
}

// Process is a running hco-operator.
type Process struct {
	cmd  *exec.Cmd
	log  string
	done chan error
}

// Start runs bin with args and env; its output goes to a file that the test
// prints when it fails. It is stopped (SIGTERM) at cleanup.
func Start(t *testing.T, name, bin string, args, environ []string) *Process {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), name+".log")
	f, err := os.Create(logPath)
	require.NoError(t, err)
	cmd := exec.Command(bin, args...)
	cmd.Env = environ
	cmd.Stdout, cmd.Stderr = f, f
	require.NoError(t, cmd.Start(), "start %s", name)
	p := &Process{cmd: cmd, log: logPath, done: make(chan error, 1)}
	go func() { p.done <- cmd.Wait(); f.Close() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-p.done
		}
		if t.Failed() {
			out, _ := os.ReadFile(logPath)
			t.Logf("%s %s output (last 6000 bytes):\n%s", name, strings.Join(args, " "), tail(out, 6000))
		}
	})
	return p
}

// Running fails the test when the process has exited.
func (p *Process) Running(t *testing.T) {
	t.Helper()
	select {
	case err := <-p.done:
		p.done <- err
		out, _ := os.ReadFile(p.log)
		t.Fatalf("%s exited: %v\n%s", p.cmd.Path, err, tail(out, 4000))
	default:
	}
}

// Stop interrupts the process and waits until it has exited, so that its
// requests are all in the audit log.
func (p *Process) Stop() {
	_ = p.cmd.Process.Signal(os.Interrupt)
	<-p.done
	p.done <- nil
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// Ready reports whether addr's /readyz answers 200.
func Ready(addr string) error {
	resp, err := http.Get("http://" + addr + "/readyz")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var b bytes.Buffer
		_, _ = b.ReadFrom(resp.Body)
		return fmt.Errorf("readyz: %s: %s", resp.Status, b.String())
	}
	return nil
}
