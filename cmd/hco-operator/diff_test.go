package main

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hcokit/hcokit/operands/netresinjector"
)

// The installed operator's Deployment is read as the operator reads its
// pod: the arguments and environment of its container, the namespace from
// the downward API; a flag given to diff wins over it.
func TestDiffReadsTheOperatorDeployment(t *testing.T) {
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "hco-operator", Namespace: "hco"},
		Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{
			{Name: "sidecar", Env: []corev1.EnvVar{{Name: "SMBIOS", Value: "Family: wrong"}}},
			{Name: "hco-operator", Args: []string{"--leader-elect", "--operands=kubevirt,cdi"}, Env: []corev1.EnvVar{
				{Name: "OPERATOR_NAMESPACE", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}},
				{Name: "HCO_VERSION", Value: "1.2.3"},
				{Name: "SMBIOS", Value: "Family: KubeVirt"},
				{Name: "NETWORK_RESOURCES_INJECTOR_IMAGE", Value: "example.com/injector:1"},
			}},
		}}}},
	}
	c, err := deploymentConfig(d)
	if err != nil {
		t.Fatal(err)
	}
	if c.env.Namespace != "hco" || c.env.Version != "1.2.3" || c.env.SMBIOS != "Family: KubeVirt" || c.operands != "kubevirt,cdi" ||
		c.env.Images[netresinjector.ImageKey] != "example.com/injector:1" {
		t.Errorf("from the Deployment: namespace %q, version %q, SMBIOS %q, operands %q, images %v", c.env.Namespace, c.env.Version, c.env.SMBIOS, c.operands, c.env.Images)
	}

	_, over, err := parseDiff([]string{"--operator-version=2.0.0", "--network-resources-injector-image=", "-f", "hc.yaml"}, c, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if over.env.Version != "2.0.0" || over.env.Images[netresinjector.ImageKey] != "" || over.operands != "kubevirt,cdi" || over.env.Namespace != "hco" {
		t.Errorf("flags over the Deployment: version %q, images %v, operands %q, namespace %q", over.env.Version, over.env.Images, over.operands, over.env.Namespace)
	}
	if c.env.Images[netresinjector.ImageKey] != "example.com/injector:1" {
		t.Error("parseDiff changed the base configuration's images")
	}

	d.Spec.Template.Spec.Containers[1].Env = append(d.Spec.Template.Spec.Containers[1].Env, corev1.EnvVar{Name: "AMD64_MACHINETYPE",
		ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{Key: "k"}}})
	if _, err := deploymentConfig(d); err == nil || !strings.Contains(err.Error(), "env AMD64_MACHINETYPE") || !strings.Contains(err.Error(), "--operator-deployment=") {
		t.Errorf("a variable from a ConfigMap: %v", err)
	}
}

// diff's errors exit with a status above 1, as kubectl diff's; -h is no
// error; a bare kubectl hco asks for a command.
func TestDiffExitStatus(t *testing.T) {
	if err := dispatch([]string{"diff", "-h"}, noEnv); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("diff -h: %v", err)
	}
	if err := dispatch([]string{"diff", "--no-such-flag"}, noEnv); !errors.Is(err, errUsage) {
		t.Errorf("a bad flag: %v, want a usage error (exit status 2)", err)
	}
	err := diffCommand([]string{"--kubeconfig", filepath.Join(t.TempDir(), "missing")}, noEnv, strings.NewReader(""), io.Discard, io.Discard)
	var status *exitStatus
	if !errors.As(err, &status) || status.code != 2 || !strings.Contains(err.Error(), "--kubeconfig") {
		t.Errorf("no cluster: %v, want exit status 2 naming --kubeconfig", err)
	}
	if err := dispatchAs(pluginName, nil, noEnv); !errors.Is(err, errUsage) {
		t.Errorf("kubectl hco: %v, want a usage error", err)
	}
	if err := dispatchAs(pluginName, []string{"-h"}, noEnv); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("kubectl hco -h: %v", err)
	}
	if err := dispatchAs(pluginName, []string{"version"}, noEnv); err != nil {
		t.Errorf("kubectl hco version: %v", err)
	}
}

// render --diff: the objects that change between two HyperConvergeds, as
// diff shows them; exit status 0 with none.
func TestRenderDiff(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	old := write("old.yaml", renderHC)
	next := write("new.yaml", renderHC+"  liveMigrationConfig:\n    parallelMigrationsPerCluster: 9\n")
	var out bytes.Buffer
	err := renderCommand([]string{"--diff", old, next}, noEnv, strings.NewReader(""), &out, io.Discard)
	var status *exitStatus
	if !errors.As(err, &status) || status.code != 1 {
		t.Fatalf("differences: %v, want exit status 1", err)
	}
	if !strings.Contains(out.String(), "-      parallelMigrationsPerCluster: 5\n+      parallelMigrationsPerCluster: 9\n") ||
		strings.Count(out.String(), "diff -u -N ") != 1 {
		t.Errorf("one object, the KubeVirt, changes:\n%s", out.String())
	}
	out.Reset()
	if err := renderCommand([]string{"--diff", old, old}, noEnv, strings.NewReader(""), &out, io.Discard); err != nil || out.Len() > 0 {
		t.Errorf("no differences: %v, %q", err, out.String())
	}
	if err := renderCommand([]string{"--diff", old}, noEnv, strings.NewReader(""), io.Discard, io.Discard); !errors.Is(err, errUsage) {
		t.Errorf("one file: %v, want a usage error", err)
	}
	bad := write("bad.yaml", renderHC+"  noSuchField: 1\n")
	err = renderCommand([]string{"--diff", old, bad}, noEnv, strings.NewReader(""), io.Discard, io.Discard)
	if !errors.As(err, &status) || status.code != 2 || !strings.Contains(err.Error(), "noSuchField") {
		t.Errorf("an invalid file: %v, want exit status 2 naming the field", err)
	}
}
