package preview

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/hcokit/hcokit/hco"
)

var kubevirtGVK = schema.GroupVersionKind{Group: "kubevirt.io", Version: "v1", Kind: "KubeVirt"}

func kubevirt(replicas int64) map[string]any {
	return map[string]any{"apiVersion": "kubevirt.io/v1", "kind": "KubeVirt", "metadata": map[string]any{"name": "kv", "namespace": "ns"},
		"spec": map[string]any{"replicas": replicas}}
}

func requireDiff(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("diff"); err != nil {
		t.Skip("no diff program on PATH")
	}
}

func TestDiffWritesOnlyWhatDiffers(t *testing.T) {
	requireDiff(t)
	objs := []Object{
		{GVK: kubevirtGVK, Namespace: "ns", Name: "kv", Live: kubevirt(1), Merged: kubevirt(2), JSONPatch: "kubevirt.kubevirt.io/jsonpatch", JSONPatchOps: 2},
		{GVK: kubevirtGVK, Namespace: "ns", Name: "same", Live: kubevirt(1), Merged: kubevirt(1), JSONPatch: "kubevirt.kubevirt.io/jsonpatch", JSONPatchOps: 1},
		{GVK: schema.GroupVersionKind{Version: "v1", Kind: "Service"}, Namespace: "ns", Name: "new", Merged: map[string]any{"kind": "Service"}},
	}
	var out bytes.Buffer
	differs, err := Diff(context.Background(), &out, io.Discard, objs, "")
	if err != nil || !differs {
		t.Fatalf("differs %v, err %v", differs, err)
	}
	s := out.String()
	if !strings.HasPrefix(s, `# KubeVirt ns/kv: jsonpatch annotation "kubevirt.kubevirt.io/jsonpatch" in effect (2 operations)`+"\n") {
		t.Errorf("the header line first:\n%s", s)
	}
	for _, want := range []string{"-  replicas: 1\n+  replicas: 2\n", "/kubevirt.io.v1.KubeVirt.ns.kv\t", "/v1.Service.ns.new\t", "@@ -0,0 +1 @@\n+kind: Service\n"} {
		if !strings.Contains(s, want) {
			t.Errorf("want %q in:\n%s", want, s)
		}
	}
	if strings.Contains(s, "same") {
		t.Errorf("an object that does not differ is left out:\n%s", s)
	}

	out.Reset()
	differs, err = Diff(context.Background(), &out, io.Discard, objs[1:2], "")
	if err != nil || differs || out.Len() > 0 {
		t.Errorf("nothing differs: differs %v, err %v, output %q", differs, err, out.String())
	}
}

func TestDiffHonoursTheExternalDiffProgram(t *testing.T) {
	requireDiff(t)
	objs := []Object{{GVK: kubevirtGVK, Namespace: "ns", Name: "kv", Live: kubevirt(1), Merged: kubevirt(2)}}
	var out bytes.Buffer
	// Arguments as kubectl passes them: after the directories, only the
	// allowed characters.
	differs, err := Diff(context.Background(), &out, io.Discard, objs, "diff -q $(evil)")
	if err != nil || !differs {
		t.Fatalf("differs %v, err %v", differs, err)
	}
	if !strings.HasPrefix(out.String(), "Files /") || strings.Contains(out.String(), "@@") {
		t.Errorf("diff -q's output:\n%s", out.String())
	}
	_, err = Diff(context.Background(), io.Discard, io.Discard, objs, "diff --no-such-option")
	var exit *exec.ExitError
	if !errors.Is(err, ErrDiffFailed) || !errors.As(err, &exit) || exit.ExitCode() != 2 {
		t.Errorf("a failing program: %v", err)
	}
	if _, err := Diff(context.Background(), io.Discard, io.Discard, objs, "no-such-diff-program"); err == nil || !strings.Contains(err.Error(), "KUBECTL_EXTERNAL_DIFF") {
		t.Errorf("a missing program: %v", err)
	}
}

func TestDocumentShowsTheOwnedMetadataAndTheContent(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "c", "namespace": "ns", "resourceVersion": "7", "uid": "u", "generation": int64(3),
			"labels": map[string]any{"ours": "1", "theirs": "2"}, "annotations": map[string]any{"theirs": "x"}},
		"data": map[string]any{"k": "v"}, "status": map[string]any{"s": "x"},
	}}
	got := document(u, metadataKeys{labels: []string{"ours"}})
	want := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "c", "namespace": "ns", "labels": map[string]any{"ours": "1"}},
		"data": map[string]any{"k": "v"}}
	if a, b := mustYAML(t, got), mustYAML(t, want); a != b {
		t.Errorf("document:\n%s\nwant:\n%s", a, b)
	}
}

func mustYAML(t *testing.T, doc map[string]any) string {
	t.Helper()
	b, err := marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A Route's private key and a Secret's data are masked in what the diff
// prints, as kubectl diff masks a Secret's: whether they change still
// shows, their values do not.
func TestDiffMasksSecretMaterial(t *testing.T) {
	requireDiff(t)
	route := func(key string) map[string]any {
		return map[string]any{"apiVersion": "route.openshift.io/v1", "kind": "Route", "metadata": map[string]any{"name": "r", "namespace": "ns"},
			"spec": map[string]any{"host": "h.example.com", "tls": map[string]any{"termination": "edge", "certificate": "CERT", "key": key}}}
	}
	secret := func(v string) map[string]any {
		return map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "s", "namespace": "ns"},
			"data": map[string]any{"tls.key": v, "same": "U0FNRQ=="}, "stringData": map[string]any{"token": v}}
	}
	routeGVK := schema.GroupVersionKind{Group: "route.openshift.io", Version: "v1", Kind: "Route"}
	secretGVK := schema.GroupVersionKind{Version: "v1", Kind: "Secret"}
	live := route("-----BEGIN PRIVATE KEY-----OLD")
	objs := []Object{
		{GVK: routeGVK, Namespace: "ns", Name: "r", Live: live, Merged: route("-----BEGIN PRIVATE KEY-----NEW")},
		{GVK: secretGVK, Namespace: "ns", Name: "s", Live: secret("T0xE"), Merged: secret("TkVX")},
		{GVK: routeGVK, Namespace: "ns", Name: "new", Merged: route("-----BEGIN PRIVATE KEY-----MADE")},
	}
	var out bytes.Buffer
	differs, err := Diff(context.Background(), &out, io.Discard, objs, "")
	if err != nil || !differs {
		t.Fatalf("differs %v, err %v", differs, err)
	}
	s := out.String()
	for _, secret := range []string{"PRIVATE KEY", "T0xE", "TkVX", "U0FNRQ=="} {
		if strings.Contains(s, secret) {
			t.Errorf("%q printed:\n%s", secret, s)
		}
	}
	for _, want := range []string{"-    key: '*** (before)'\n+    key: '*** (after)'\n", "same: '***'", "+    key: '*** (after)'\n"} {
		if !strings.Contains(s, want) {
			t.Errorf("want %q in:\n%s", want, s)
		}
	}
	if got := live["spec"].(map[string]any)["tls"].(map[string]any)["key"]; got != "-----BEGIN PRIVATE KEY-----OLD" {
		t.Errorf("the object itself changed: %v", got)
	}
}

// A shared list's change is shown as its object with that one list, before
// and after: the lines the operator's patch adds.
func TestDiffShowsASharedListChange(t *testing.T) {
	requireDiff(t)
	console := hco.ListTarget{GVK: schema.GroupVersionKind{Group: "operator.openshift.io", Version: "v1", Kind: "Console"}, Name: "cluster", Path: []string{"spec", "plugins"}}
	o := listObject(hco.ListChange{Target: console, Live: &unstructured.Unstructured{}, Was: []any{"monitoring-plugin"}, List: []any{"monitoring-plugin", "kubevirt-plugin"}})
	var out bytes.Buffer
	differs, err := Diff(context.Background(), &out, io.Discard, []Object{o}, "")
	if err != nil || !differs {
		t.Fatalf("differs %v, err %v", differs, err)
	}
	for _, want := range []string{"/operator.openshift.io.v1.Console..cluster\t", "   - monitoring-plugin\n+  - kubevirt-plugin\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("want %q in:\n%s", want, out.String())
		}
	}
}
