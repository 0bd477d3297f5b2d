package upstreamupgrade

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap/zapcore"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/extensions"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hco/manager"
	"github.com/hcokit/hcokit/internal/integration/upstreamstatus"
	"github.com/hcokit/hcokit/internal/testenv"
	"github.com/hcokit/hcokit/operands"
	"github.com/hcokit/hcokit/operands/stock"
)

// captures is where upstream's clusters were captured, under the
// repository root, by the version upgraded from: upgrade-from-<version>/
// <case>/upstream-<version>.json, what that version's operator left;
// upstream-03da3cf.json, what upstream 1.20.0's made of it;
// upstream-03da3cf-read.json, the HyperConverged as 1.20.0 read it (its
// conversion from v1beta1, its v1 CRD's defaults);
// upstream-03da3cf-upgrading.json, its HyperConverged while the components
// still reported their old versions.
const captures = "internal/upstreamtest/testdata/upgrade-from-"

// cases are the captured HyperConvergeds, by the version upgraded from:
// upstream's deploy/hco.cr.yaml of that version, and the same with the AIE
// webhook asked for (hco.kubevirt.io/deployAIE) and a
// completionTimeoutPerGiB of its own.
var cases = map[string][]string{
	"1.18.1": {"default", "aie"},
	"1.19.0": {"default", "aie"},
}

// all is every case of every version, as "<version>/<case>".
func all(versions ...string) []string {
	var out []string
	for _, v := range versions {
		for _, c := range cases[v] {
			out = append(out, v+"/"+c)
		}
	}
	return out
}

// difference is a change upstream 1.20.0 and hcokit make otherwise: kind
// (any name), a path prefix (JSON member names joined by "."), and why.
type difference struct {
	cases      []string
	kind, path string
	reason     string
}

// Reasons of the differences.
const (
	seed003 = "seed 003_bbf2f7447ec7d982.txt: live migration 64Mi/800/5/2/150 (hcokit's CRD defaults bandwidthPerMigration, upstream's leaves it unset); upstream's upgrade patch turns 1.18's old default 150 into 20, hcokit's into the seed's 800"
	ownCert = "hcokit's own certificate for the injector (operands/netresinjector: the install's Secret, filled by `hco-operator webhook --manage-certs`): no cert-manager Certificate backs upstream's annotation"
	install = "the workloads' ClusterRoles ship with hcokit's install (config/rbac/operand_roles.yaml), not written by the operator, which would need every permission they grant; this test applies no install"
	adopted = "hcokit's record that the upgrade steps ran for this version (extensions/upgrade), so that they run once; upstream keeps it in its process (req.UpgradeMode)"
	webhook = "upstream's mutating webhook stores it (mutateEvictionStrategy at 03da3cf) once the status records infrastructureHighlyAvailable, under the earlier version already; the capture runs upstream's operators without their webhook, hcokit's operator stores it itself (docs/compatibility.md)"
)

// differences are every way hcokit's upgrade differs from upstream's, each
// with its reason; a difference not listed fails the test, and so does a
// listed one not found in each of its cases.
var differences = []difference{
	{all("1.18.1", "1.19.0"), "KubeVirt", "spec.configuration.migrations.bandwidthPerMigration", seed003},
	{[]string{"1.18.1/default"}, "KubeVirt", "spec.configuration.migrations.completionTimeoutPerGiB", seed003},
	{[]string{"1.18.1/default"}, "HyperConverged", "spec.virtualization.liveMigrationConfig.completionTimeoutPerGiB", seed003},
	// 1.18.1 made none on Kubernetes: 1.20.0 creates the injector's objects.
	{all("1.18.1"), "MutatingWebhookConfiguration", "metadata.annotations.cert-manager.io/inject-ca-from", ownCert},
	{all("1.18.1"), "ClusterRole", objectPath, install},
	{[]string{"1.18.1/aie", "1.19.0/default", "1.19.0/aie"}, "ClusterRole", "metadata.labels.app.kubernetes.io/version", install},
	{all("1.18.1", "1.19.0"), "HyperConverged", "metadata.annotations.hco.kubevirt.io/adopted-for-version", adopted},
	{all("1.18.1", "1.19.0"), "HyperConverged", "spec.virtualization.evictionStrategy", webhook},
	{all("1.18.1", "1.19.0"), "KubeVirt", "spec.configuration.evictionStrategy", webhook},
}

// objectPath stands for the whole object: one side has it, the other not.
const objectPath = "(object)"

// hcUID is the HyperConverged's UID in the captures (the capture set it):
// owner references to it are pointed at the HyperConverged created here.
const hcUID = "hc-uid"

// TestUpgradeFrom118AsUpstream starts hcokit, as the stock binary with
// upstream 1.20.0's operator environment, on the cluster upstream 1.18.1's
// operator left (its objects, the HyperConverged stored through v1beta1,
// the component CRs Available at 1.18.1's versions), and plays the
// component operators upgrading: hcokit's HyperConverged conditions are
// upstream's while the components report their old versions, then once
// they report the new ones; its writes stop; and every object upstream
// 1.20.0 changes, creates or deletes, hcokit changes, creates or deletes
// alike (but the differences listed), recreating none.
func TestUpgradeFrom118AsUpstream(t *testing.T) { upgradeFrom(t, "1.18.1") }

// TestUpgradeFrom119AsUpstream is the same from upstream 1.19.0 (branch
// release-1.19), whose HyperConverged is stored as v1.
func TestUpgradeFrom119AsUpstream(t *testing.T) { upgradeFrom(t, "1.19.0") }

func upgradeFrom(t *testing.T, version string) {
	env.Require(t)
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	upstreamstatus.CreateNodes(t, env.Client, "upstreamupgrade")
	found := map[int]map[string]bool{}
	for _, name := range cases[version] {
		t.Run(name, func(t *testing.T) {
			upgradeCase(t, root, version, name, func(i int) {
				if found[i] == nil {
					found[i] = map[string]bool{}
				}
				found[i][version+"/"+name] = true
			})
		})
	}
	for i, d := range differences {
		for _, c := range d.cases {
			if strings.HasPrefix(c, version+"/") && !found[i][c] {
				t.Errorf("listed difference %s %s (%s) not found in case %s: take it out", d.kind, d.path, d.reason, c)
			}
		}
	}
}

func upgradeCase(t *testing.T, root, version, name string, listed func(int)) {
	ctx := context.Background()
	c := env.Client
	dir := captures + version
	before := load(t, root, filepath.Join(dir, name, "upstream-"+version+".json"))
	after := load(t, root, filepath.Join(dir, name, "upstream-03da3cf.json"))
	var upgrading hcov1.HyperConverged
	read(t, root, filepath.Join(dir, name, "upstream-03da3cf-upgrading.json"), &upgrading)
	// The HyperConverged as upstream 1.20.0 reads the earlier version's
	// (its conversion, its CRD's defaults): its changes are compared from
	// there.
	var readRaw map[string]any
	read(t, root, filepath.Join(dir, name, "upstream-03da3cf-read.json"), &readRaw)
	readHC := &unstructured.Unstructured{Object: readRaw}

	// The cluster as the earlier version left it.
	served := map[string]bool{}
	hc := byKind(before, "HyperConverged")[0]
	created := createAsLeft(t, c, hc, "")
	hcKey := client.ObjectKeyFromObject(created)
	var skipped []string
	for _, u := range before {
		if u.GetKind() == "HyperConverged" {
			continue
		}
		if !kindServed(c, u) {
			skipped = append(skipped, key(u))
			continue
		}
		served[key(u)] = true
		createAsLeft(t, c, u, created.GetUID())
	}
	if len(skipped) > 0 {
		t.Logf("not served in this cluster, left out: %s", strings.Join(skipped, ", "))
	}
	stored := map[string]*unstructured.Unstructured{}
	for _, u := range before {
		if got := get(t, c, u); got != nil {
			stored[key(u)] = got
		}
	}

	// hcokit 1.20.0 takes over; at the end, its uninstall takes away what
	// it owns, then the rest of the captures goes, for the next case.
	vars := operatorEnv(t, root)
	t.Cleanup(startOperator(t, root))
	t.Cleanup(func() { uninstall(t, c, hcKey, before, after) })
	hcNow := &hcov1.HyperConverged{}
	testenv.Eventually(t, "the conditions upstream 1.20.0 writes while the components report their old versions", func() error {
		if err := playCluster(c, vars, false); err != nil {
			return err
		}
		if err := c.Get(ctx, hcKey, hcNow); err != nil {
			return err
		}
		return upstreamstatus.SameConditions(upgrading.Status.Conditions, hcNow.Status.Conditions)
	})
	var final hcov1.HyperConverged
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(byKind(after, "HyperConverged")[0].Object, &final); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, "the conditions and versions upstream 1.20.0 ends with", func() error {
		if err := playCluster(c, vars, true); err != nil {
			return err
		}
		if err := c.Get(ctx, hcKey, hcNow); err != nil {
			return err
		}
		if !slices.Equal(final.Status.Versions, hcNow.Status.Versions) {
			return fmt.Errorf("status.versions: upstream %v, hcokit %v (components: %s)", final.Status.Versions, hcNow.Status.Versions, reported(c))
		}
		return upstreamstatus.SameConditions(final.Status.Conditions, hcNow.Status.Conditions)
	})
	waitWritesStop(t, c, after, before)

	// Object for object.
	var problems []string
	for _, k := range keys(before, after) {
		was, is := find(before, k), find(after, k)
		if is != nil && is.GetKind() == "HyperConverged" {
			was = readHC
		}
		if was != nil && !served[k] && was.GetKind() != "HyperConverged" {
			continue
		}
		if is != nil && !kindServed(c, is) {
			continue
		}
		ours := get(t, c, firstOf(is, was))
		switch {
		case is == nil && ours != nil:
			problems = append(problems, differs(version+"/"+name, listed, ours.GetKind(), k, objectPath, "deleted", "kept"))
			continue
		case is == nil:
			continue
		case ours == nil:
			problems = append(problems, differs(version+"/"+name, listed, is.GetKind(), k, objectPath, "present", "absent"))
			continue
		case was != nil && stored[k] != nil && ours.GetUID() != stored[k].GetUID():
			problems = append(problems, k+": recreated")
		}
		if was == nil {
			// Created by both: upstream's content, in hcokit's.
			for p, v := range form(is) {
				if got, ok := form(ours)[p]; !ok || got != v {
					problems = append(problems, differs(version+"/"+name, listed, is.GetKind(), k, p, v, got))
				}
			}
			continue
		}
		theirs, mine := changes(form(was), form(is)), changes(form(stored[k]), form(ours))
		for _, p := range slices.Sorted(maps.Keys(union(theirs, mine))) {
			up, upChanged := theirs[p]
			us, usChanged := mine[p]
			switch {
			case upChanged && usChanged && up == us:
			case upChanged:
				problems = append(problems, differs(version+"/"+name, listed, is.GetKind(), k, p, up, orKept(us, usChanged)))
			default:
				problems = append(problems, differs(version+"/"+name, listed, is.GetKind(), k, p, "(unchanged)", us))
			}
		}
	}
	for _, p := range problems {
		if p != "" {
			t.Error(p)
		}
	}
}

// differs is a difference between upstream's change and hcokit's at path p
// of object k, "" when listed (and marked found).
func differs(name string, listed func(int), kind, k, p, upstream, hcokit string) string {
	for i, d := range differences {
		if d.kind == kind && strings.HasPrefix(p, d.path) && slices.Contains(d.cases, name) {
			listed(i)
			return ""
		}
	}
	return fmt.Sprintf("%s %s: upstream 1.20.0 %s, hcokit %s", k, p, upstream, hcokit)
}

func orKept(v string, changed bool) string {
	if !changed {
		return "(unchanged)"
	}
	return v
}

// ignoredAnnotations are hcokit's ownership records (docs/ownership.md).
var ignoredAnnotations = []string{hco.OwnerAnnotation, hco.OwnerUIDAnnotation}

// form is an object's content compared: everything but its status and its
// metadata, but its labels and annotations (the ownership records aside),
// flattened to JSON paths with JSON values.
func form(u *unstructured.Unstructured) map[string]string {
	out := map[string]string{}
	if u == nil {
		return out
	}
	for k, v := range u.Object {
		switch k {
		case "status", "metadata", "apiVersion", "kind":
		default:
			flatten(k, v, out)
		}
	}
	for k, v := range u.GetLabels() {
		out["metadata.labels."+k] = v
	}
	for k, v := range u.GetAnnotations() {
		if !slices.Contains(ignoredAnnotations, k) {
			out["metadata.annotations."+k] = v
		}
	}
	return out
}

// flatten adds v's leaves to out under path: a map's members and a list's
// items by index; an empty map or list, or null, is no leaf (an API server
// drops what upstream's capture may keep).
func flatten(path string, v any, out map[string]string) {
	switch v := v.(type) {
	case nil:
	case map[string]any:
		for k, e := range v {
			flatten(path+"."+k, e, out)
		}
	case []any:
		for i, e := range v {
			flatten(fmt.Sprintf("%s[%d]", path, i), e, out)
		}
	default:
		raw, _ := json.Marshal(v)
		out[path] = string(raw)
	}
}

// changes are the paths whose value differs from was to is, with is's
// value ("(absent)" when gone).
func changes(was, is map[string]string) map[string]string {
	out := map[string]string{}
	for p, v := range is {
		if was[p] != v {
			out[p] = v
		}
	}
	for p := range was {
		if _, ok := is[p]; !ok {
			out[p] = "(absent)"
		}
	}
	return out
}

func union(a, b map[string]string) map[string]string {
	out := maps.Clone(a)
	maps.Copy(out, b)
	return out
}

func load(t *testing.T, root, name string) []*unstructured.Unstructured {
	t.Helper()
	var raw []map[string]any
	read(t, root, name, &raw)
	out := make([]*unstructured.Unstructured, len(raw))
	for i := range raw {
		out[i] = &unstructured.Unstructured{Object: raw[i]}
	}
	return out
}

func read(t *testing.T, root, name string, into any) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, into); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

func key(u *unstructured.Unstructured) string {
	return u.GroupVersionKind().GroupKind().String() + " " + u.GetNamespace() + "/" + u.GetName()
}

func keys(lists ...[]*unstructured.Unstructured) []string {
	set := map[string]bool{}
	for _, l := range lists {
		for _, u := range l {
			set[key(u)] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

func find(l []*unstructured.Unstructured, k string) *unstructured.Unstructured {
	for _, u := range l {
		if key(u) == k {
			return u
		}
	}
	return nil
}

func byKind(l []*unstructured.Unstructured, kind string) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, u := range l {
		if u.GetKind() == kind {
			out = append(out, u)
		}
	}
	return out
}

func firstOf(us ...*unstructured.Unstructured) *unstructured.Unstructured {
	for _, u := range us {
		if u != nil {
			return u
		}
	}
	return nil
}

// kindServed reports whether the API server serves u's kind.
func kindServed(c client.Client, u *unstructured.Unstructured) bool {
	_, err := c.RESTMapper().RESTMapping(u.GroupVersionKind().GroupKind(), u.GroupVersionKind().Version)
	return err == nil
}

// get reads u's object as the cluster holds it; nil when there is none.
func get(t *testing.T, c client.Client, u *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	got := &unstructured.Unstructured{}
	got.SetGroupVersionKind(u.GroupVersionKind())
	if u.GetKind() == "HyperConverged" {
		got.SetAPIVersion(hcov1.GroupVersion.String())
	}
	switch err := c.Get(context.Background(), client.ObjectKeyFromObject(u), got); {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		t.Fatalf("get %s: %v", key(u), err)
	}
	return got
}

// createAsLeft creates u as the earlier version left it (its status too), its
// owner references to the HyperConverged pointed at owner's UID, and
// returns it as created.
func createAsLeft(t *testing.T, c client.Client, u *unstructured.Unstructured, owner types.UID) *unstructured.Unstructured {
	t.Helper()
	ctx := context.Background()
	obj := u.DeepCopy()
	status, hasStatus := obj.Object["status"]
	delete(obj.Object, "status")
	for _, f := range []string{"uid", "resourceVersion", "creationTimestamp", "generation", "managedFields"} {
		unstructured.RemoveNestedField(obj.Object, "metadata", f)
	}
	refs := obj.GetOwnerReferences()
	for i := range refs {
		if refs[i].UID == hcUID {
			refs[i].UID = owner
		}
	}
	obj.SetOwnerReferences(refs)
	if ns := obj.GetNamespace(); ns != "" {
		testenv.EnsureNamespace(t, c, ns)
	}
	if err := c.Create(ctx, obj); err != nil {
		t.Fatalf("create %s as the earlier version left it: %v", key(u), err)
	}
	if hasStatus {
		obj.Object["status"] = status
		if err := c.Status().Update(ctx, obj); err != nil && !apierrors.IsNotFound(err) && !meta.IsNoMatchError(err) {
			t.Fatalf("status of %s as the earlier version left it: %v", key(u), err)
		}
	}
	return obj
}

// startOperator runs hcokit as the stock binary starts on plain Kubernetes
// without --operands, in upstream 1.20.0's operator environment, until
// stop.
func startOperator(t *testing.T, root string) (stop func()) {
	t.Helper()
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.Level(zapcore.ErrorLevel)))
	environment, err := upstreamstatus.Environment(root)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := stock.Registry(stock.Default()...)
	if err == nil {
		err = stock.PlatformDefaults(reg, false, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	scheme, err := hco.NewScheme(operands.AddToScheme)
	if err != nil {
		t.Fatal(err)
	}
	mgr, _, err := manager.New(env.Config, reg, environment, manager.Options{Manager: testenv.ManagerOptions(scheme),
		Metrics: prometheus.NewRegistry(), Extensions: extensions.Stock()})
	if err != nil {
		t.Fatal(err)
	}
	return testenv.RunManager(mgr)
}

// playCluster plays the cluster as upstream's capture did
// (capture_common_test.go.txt's reportAvailable): every Deployment's
// replicas ready, every component CR Available, neither Progressing nor
// Degraded, and, once the components are upgraded, at the version
// upstream 1.20.0's environment (vars) expects.
func playCluster(c client.Client, vars map[string]string, upgraded bool) error {
	ctx := context.Background()
	if err := readyDeployments(c); err != nil {
		return err
	}
	conds := upstreamstatus.Healthy()
	for _, comp := range upstreamstatus.Components {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(comp.GVK.GroupVersion().WithKind(comp.GVK.Kind + "List"))
		switch err := c.List(ctx, list); {
		case meta.IsNoMatchError(err):
			continue
		case err != nil:
			return err
		}
		for i := range list.Items {
			u := &list.Items[i]
			next := u.DeepCopy()
			if err := unstructured.SetNestedSlice(next.Object, conds, "status", "conditions"); err != nil {
				return err
			}
			if upgraded {
				if err := unstructured.SetNestedField(next.Object, vars[comp.Version], "status", comp.Field); err != nil {
					return err
				}
			}
			if reflect.DeepEqual(next.Object["status"], u.Object["status"]) {
				continue
			}
			if err := c.Status().Update(ctx, next); err != nil {
				return err
			}
		}
	}
	return nil
}

// operatorEnv are the variables of upstream 1.20.0's operator environment.
func operatorEnv(t *testing.T, root string) map[string]string {
	t.Helper()
	var vars map[string]string
	raw, err := os.ReadFile(filepath.Join(root, "internal/upstreamtest/testdata/upstream-03da3cf/status/operator-env.json"))
	if err == nil {
		err = json.Unmarshal(raw, &vars)
	}
	if err != nil {
		t.Fatal(err)
	}
	return vars
}

// waitWritesStop waits until the objects of the captures' kinds keep their
// resourceVersions for three seconds.
func waitWritesStop(t *testing.T, c client.Client, lists ...[]*unstructured.Unstructured) {
	t.Helper()
	versions := func() map[string]string {
		out := map[string]string{}
		for _, l := range lists {
			for _, u := range l {
				if !kindServed(c, u) {
					continue
				}
				if got := get(t, c, u); got != nil {
					out[key(u)] = got.GetResourceVersion()
				}
			}
		}
		return out
	}
	deadline := time.Now().Add(time.Minute)
	last := versions()
	for {
		time.Sleep(3 * time.Second)
		now := versions()
		if maps.Equal(last, now) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("writes do not stop: %v → %v", last, now)
		}
		last = now
	}
}

// uninstall deletes the HyperConverged (hcokit's uninstall deletes what it
// owns) and then whatever of the captures is left, for the next case.
func uninstall(t *testing.T, c client.Client, hcKey types.NamespacedName, lists ...[]*unstructured.Unstructured) {
	t.Helper()
	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Namespace: hcKey.Namespace, Name: hcKey.Name}}
	testenv.DeleteAndWait(t, c, hc)
	for _, l := range lists {
		for _, u := range l {
			if u.GetKind() == "HyperConverged" || !kindServed(c, u) {
				continue
			}
			if got := get(t, c, u); got != nil {
				testenv.DeleteAndWait(t, c, got)
			}
		}
	}
}

// readyDeployments plays the cluster's controllers: every Deployment's
// replicas ready.
func readyDeployments(c client.Client) error {
	ctx := context.Background()
	list := &appsv1.DeploymentList{}
	if err := c.List(ctx, list); err != nil {
		return err
	}
	for i := range list.Items {
		d := &list.Items[i]
		replicas := ptr.Deref(d.Spec.Replicas, 1)
		if d.Status.ReadyReplicas == replicas && d.Status.ObservedGeneration == d.Generation {
			continue
		}
		d.Status = appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: replicas, UpdatedReplicas: replicas, ReadyReplicas: replicas,
			AvailableReplicas: replicas, Conditions: []appsv1.DeploymentCondition{{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue}}}
		if err := c.Status().Update(ctx, d); err != nil {
			return err
		}
	}
	return nil
}

// reported are the versions the component CRs report, for a failure's message.
func reported(c client.Client) string {
	var out []string
	for _, comp := range upstreamstatus.Components {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(comp.GVK.GroupVersion().WithKind(comp.GVK.Kind + "List"))
		if err := c.List(context.Background(), list); err != nil {
			continue
		}
		for _, u := range list.Items {
			v, _, _ := unstructured.NestedString(u.Object, "status", comp.Field)
			out = append(out, u.GetKind()+" "+u.GetName()+"="+v)
		}
	}
	return strings.Join(out, ", ")
}
