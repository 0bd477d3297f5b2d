package upstreamstatus

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.uber.org/zap/zapcore"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/internal/testenv"
	"github.com/hcokit/hcokit/operands/stock"
)

// KubernetesCRDs are, under the repository root, the CRDs of a whole-stack
// install on plain Kubernetes as upstream's captures there need them: the
// HyperConverged's and the operand CRDs but SSP's (ssp-operator runs on
// OpenShift only: upstream deploys no SSP there, and hcokit none without its
// API) and the opt-in HostPathProvisioner's.
var KubernetesCRDs = []string{"config/crd/bases",
	"config/crd/operands/kubevirt.io_kubevirts.yaml",
	"config/crd/operands/cdi.kubevirt.io_cdis.yaml",
	"config/crd/operands/networkaddonsoperator.network.kubevirt.io_networkaddonsconfigs.yaml",
	"config/crd/operands/migrations.kubevirt.io_migcontrollers.yaml",
	"config/crd/operands/filerestore.kubevirt.io_filerestoreoperators.yaml",
	"config/crd/operands/aaq.kubevirt.io_aaqs.yaml"}

// captures is where upstream's status was captured, under the repository
// root.
const captures = "internal/upstreamtest/testdata/upstream-03da3cf/status"

// States are the captured cluster states, in the order Run plays them on
// one HyperConverged: the component CRs made and reporting nothing yet;
// every component Available; KubeVirt degraded.
var States = []string{"new", "available", "kubevirt-degraded"}

// UpgradeStates are the states captured on a HyperConverged that upstream
// 1.18.1 left (status.versions operator 1.18.1), played after States: the
// component CRs Available at their old versions, then at the versions the
// operator's environment expects. Captured on Kubernetes only: on
// upstream's OpenShift mock its upgrade does not complete (the capture's
// fake OLM objects fail it), so there is nothing to compare.
var UpgradeStates = []string{"upgrading", "upgraded"}

// Component is a component CR's kind, where it reports its version, and
// the variable of the operator's environment naming the version expected
// (stock.VersionVariables' values).
type Component struct {
	GVK            schema.GroupVersionKind
	Field, Version string
}

// Components are the component CRs whose conditions upstream's aggregation
// reads (its operands' GetConditions at 03da3cf), and the
// HostPathProvisioner, which reports a version too.
var Components = []Component{
	{schema.GroupVersionKind{Group: "kubevirt.io", Version: "v1", Kind: "KubeVirt"}, "observedKubeVirtVersion", "KUBEVIRT_VERSION"},
	{schema.GroupVersionKind{Group: "cdi.kubevirt.io", Version: "v1beta1", Kind: "CDI"}, "observedVersion", "CDI_VERSION"},
	{schema.GroupVersionKind{Group: "networkaddonsoperator.network.kubevirt.io", Version: "v1", Kind: "NetworkAddonsConfig"}, "observedVersion", "NETWORK_ADDONS_VERSION"},
	{schema.GroupVersionKind{Group: "ssp.kubevirt.io", Version: "v1beta3", Kind: "SSP"}, "observedVersion", "SSP_VERSION"},
	{schema.GroupVersionKind{Group: "migrations.kubevirt.io", Version: "v1alpha1", Kind: "MigController"}, "observedVersion", "MIGRATION_OPERATOR_VERSION"},
	{schema.GroupVersionKind{Group: "filerestore.kubevirt.io", Version: "v1alpha1", Kind: "FileRestoreOperator"}, "observedVersion", "VM_FILE_RESTORE_OPERATOR_VERSION"},
	{schema.GroupVersionKind{Group: "aaq.kubevirt.io", Version: "v1alpha1", Kind: "AAQ"}, "observedVersion", "AAQ_VERSION"},
	{schema.GroupVersionKind{Group: "hostpathprovisioner.kubevirt.io", Version: "v1beta1", Kind: "HostPathProvisioner"}, "observedVersion", "HPPO_VERSION"},
}

// stamp is the captures' condition time.
const stamp = "2026-08-21T00:00:00Z"

func condition(t, s, reason, msg string) any {
	return map[string]any{"type": t, "status": s, "reason": reason, "message": msg,
		"lastTransitionTime": stamp, "lastHeartbeatTime": stamp, "lastProbeTime": stamp}
}

// Healthy are a component CR's conditions as the captures set them when it
// is Available, neither Progressing nor Degraded.
func Healthy() []any {
	return []any{
		condition("Available", "True", "AsExpected", "All components are available"),
		condition("Progressing", "False", "AsExpected", "All components are available"),
		condition("Degraded", "False", "AsExpected", "All components are available"),
	}
}

// conditions are a component CR's conditions in a state, as the capture
// (capture_status_test.go.txt) sets them; nil: none reported yet.
func conditions(state, kind string) []any {
	healthy := Healthy()
	switch {
	case state == "new":
		return nil
	case state == "kubevirt-degraded" && kind == "KubeVirt":
		return []any{
			condition("Available", "True", "AllComponentsReady", "All components are ready."),
			condition("Progressing", "False", "AllComponentsReady", "All components are ready."),
			condition("Degraded", "True", "VirtHandlerNotReady", "virt-handler is not ready on 1 node"),
		}
	}
	return healthy
}

// captured reads a capture file, under the repository root.
func captured(root, name string, into any) error {
	raw, err := os.ReadFile(filepath.Join(root, captures, name))
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, into); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// Environment is the operator's environment as upstream's
// deploy/operator.yaml at 03da3cf gives it to its own operator
// (operator-env.json), read as the stock binary reads it: its namespace and
// version, SMBIOS and machine types, each stock operand's image by the
// variable both read, and the versions its components must reach.
func Environment(root string) (hco.Environment, error) {
	var vars map[string]string
	if err := captured(root, "operator-env.json", &vars); err != nil {
		return hco.Environment{}, err
	}
	env := hco.Environment{Namespace: vars["OPERATOR_NAMESPACE"], Version: vars["HCO_KV_IO_VERSION"], Images: map[string]string{},
		OperandVersions: map[string]string{}, CommonTemplatesNamespace: hco.DefaultCommonTemplatesNamespace}
	if err := stock.ReadKubeVirtEnvironment(&env, func(k string) string { return vars[k] }); err != nil {
		return env, err
	}
	for operand, variable := range stock.VersionVariables() {
		if v := vars[variable]; v != "" {
			env.OperandVersions[operand] = v
		}
	}
	for _, op := range stock.Operands() {
		if im, ok := op.(hco.Imager); ok {
			for _, img := range im.Images() {
				if v := vars[img.Variable]; v != "" {
					env.Images[img.Key] = v
				}
			}
		}
	}
	return env, nil
}

// StartOperator runs, for the test package's lifetime, the operator as the
// stock binary starts without --operands on the platform, in upstream's
// operator environment (its namespace, created here).
func StartOperator(e *testenv.Env, openShift bool) error {
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.Level(zapcore.ErrorLevel)))
	root, err := testenv.RepoRoot()
	if err != nil {
		return err
	}
	env, err := Environment(root)
	if err != nil {
		return err
	}
	reg, err := stock.Registry(stock.Default()...)
	if err == nil {
		err = stock.PlatformDefaults(reg, openShift, nil)
	}
	if err != nil {
		return err
	}
	ctx := context.Background()
	err = e.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: env.Namespace}})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	if openShift {
		// Every OpenShift cluster has its Ingress configuration; the
		// domain is the capture's (upstream's test base domain).
		ingress := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"domain": "apps.basedomain"}}}
		ingress.SetGroupVersionKind(schema.GroupVersionKind{Group: "config.openshift.io", Version: "v1", Kind: "Ingress"})
		ingress.SetName(hco.ClusterConfigName)
		if err := e.Client.Create(ctx, ingress); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	_, err = e.StartOperator(reg, env, testenv.OperatorOptions{})
	return err
}

// ownWay are the status fields hcokit writes otherwise on purpose, with
// the reason (docs/compatibility.md), and those the capture cannot hold.
var ownWay = map[string]string{
	"relatedObjects":              "every object hcokit writes, not the install's (docs/compatibility.md)",
	"controlPlaneHighlyAvailable": "hcokit's addition (docs/compatibility.md)",
	"observedGeneration":          "the capture's fake client keeps no generation",
	"dataImportCronTemplates":     "the golden images of the operator's image; the capture ran without any",
}

// scheduleForm is upstream's random golden-image schedule: a minute, and
// an hour of the first 12 every 12 hours.
var scheduleForm = regexp.MustCompile(`^[0-9]+ [0-9]+/12 \* \* \*$`)

// Run plays the States on the platform ("kubernetes" or "openshift") with
// the operator StartOperator runs: the Nodes of the capture (three
// control-plane and three worker nodes, amd64), the default HyperConverged
// (spec: {}) in upstream's namespace, then for each state the component
// CRs' conditions set, and, once the HyperConverged's conditions are
// upstream's, the rest of its status and its labels and finalizers compared
// with upstream's. What it made goes at cleanup.
func Run(t *testing.T, c client.Client, platform string) {
	ctx := context.Background()
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	CreateNodes(t, c, "upstreamstatus")
	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: hcov1.DefaultNamespace}}
	testenv.CreateForTest(t, c, hc)

	var vars map[string]string
	if err := captured(root, "operator-env.json", &vars); err != nil {
		t.Fatal(err)
	}
	compare := func(t *testing.T, state string) {
		t.Helper()
		var want struct {
			Labels     map[string]string `json:"labels"`
			Finalizers []string          `json:"finalizers"`
			Status     map[string]any    `json:"status"`
		}
		if err := captured(root, filepath.Join(platform, state+".json"), &want); err != nil {
			t.Fatal(err)
		}
		got := &hcov1.HyperConverged{}
		testenv.Eventually(t, "the HyperConverged's conditions upstream's", func() error {
			if err := c.Get(ctx, client.ObjectKeyFromObject(hc), got); err != nil {
				return err
			}
			return SameConditions(want.Status["conditions"], got.Status.Conditions)
		})
		if !equality.Semantic.DeepEqual(want.Labels, got.Labels) {
			t.Errorf("labels: upstream %v, hcokit %v", want.Labels, got.Labels)
		}
		if !slices.Equal(want.Finalizers, got.Finalizers) {
			t.Errorf("finalizers: upstream %v, hcokit %v", want.Finalizers, got.Finalizers)
		}
		for _, d := range statusDifferences(t, want.Status, got.Status) {
			t.Error(d)
		}
	}
	for _, state := range States {
		t.Run(state, func(t *testing.T) {
			play(t, ctx, c, func(kind string) []any { return conditions(state, kind) }, nil)
			compare(t, state)
		})
	}
	if platform != "kubernetes" {
		return
	}
	// As upstream 1.18.1 left it: its version recorded; an annotation edit
	// brings the reconcile (the operator filters out status-only events).
	testenv.Eventually(t, "the HyperConverged as 1.18.1 left it", func() error {
		if err := c.Get(ctx, client.ObjectKeyFromObject(hc), hc); err != nil {
			return err
		}
		hc.Status.Versions = []hcov1.Version{{Name: hco.OperatorVersionName, Version: "1.18.1"}}
		return c.Status().Update(ctx, hc)
	})
	for _, state := range UpgradeStates {
		t.Run(state, func(t *testing.T) {
			versions := map[string]string{}
			for _, comp := range Components {
				versions[comp.GVK.Kind] = "v0.0.0-old"
				if state == "upgraded" {
					versions[comp.GVK.Kind] = vars[comp.Version]
				}
			}
			play(t, ctx, c, func(kind string) []any { return conditions("available", kind) }, versions)
			testenv.Eventually(t, "an annotation edited", func() error {
				if err := c.Get(ctx, client.ObjectKeyFromObject(hc), hc); err != nil {
					return err
				}
				metav1.SetMetaDataAnnotation(&hc.ObjectMeta, "example.com/upstreamstatus", state)
				return c.Update(ctx, hc)
			})
			compare(t, state)
		})
	}
}

// play sets on every component CR the conditions conds gives for its
// kind, and, when versions is not nil, the version it reports (by kind).
func play(t *testing.T, ctx context.Context, c client.Client, conds func(kind string) []any, versions map[string]string) {
	t.Helper()
	for _, comp := range Components {
		gvk := comp.GVK
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		testenv.Eventually(t, "the "+gvk.Kind+" CRs set", func() error {
			switch err := c.List(ctx, list); {
			case meta.IsNoMatchError(err):
				return nil // not served on this platform
			case err != nil:
				return err
			}
			for i := range list.Items {
				u := &list.Items[i]
				if err := unstructured.SetNestedSlice(u.Object, conds(gvk.Kind), "status", "conditions"); err != nil {
					return err
				}
				if v, ok := versions[gvk.Kind]; ok {
					if err := unstructured.SetNestedField(u.Object, v, "status", comp.Field); err != nil {
						return err
					}
				}
				if err := c.Status().Update(ctx, u); err != nil {
					return err
				}
			}
			return nil
		})
	}
}

// SameConditions reports how got's conditions differ from upstream's (the
// captured list): type, status, reason and message, none more or less.
func SameConditions(captured any, got []metav1.Condition) error {
	var want []metav1.Condition
	raw, _ := json.Marshal(captured)
	if err := json.Unmarshal(raw, &want); err != nil {
		return err
	}
	key := func(c metav1.Condition) string {
		return fmt.Sprintf("%s=%s %s: %s", c.Type, c.Status, c.Reason, c.Message)
	}
	var w, g []string
	for _, c := range want {
		w = append(w, key(c))
	}
	for _, c := range got {
		g = append(g, key(c))
	}
	slices.Sort(w)
	slices.Sort(g)
	if !slices.Equal(w, g) {
		return fmt.Errorf("upstream's:\n  %s\nhcokit's:\n  %s", strings.Join(w, "\n  "), strings.Join(g, "\n  "))
	}
	return nil
}

// statusDifferences lists what of got's status but the conditions differs
// from upstream's, but for ownWay's fields.
func statusDifferences(t *testing.T, want map[string]any, got hcov1.HyperConvergedStatus) []string {
	t.Helper()
	have := map[string]any{}
	raw, _ := json.Marshal(got)
	if err := json.Unmarshal(raw, &have); err != nil {
		t.Fatal(err)
	}
	fields := map[string]bool{}
	for k := range want {
		fields[k] = true
	}
	for k := range have {
		fields[k] = true
	}
	var out []string
	for _, field := range slices.Sorted(maps.Keys(fields)) {
		w, h := want[field], have[field]
		switch {
		case field == "conditions" || ownWay[field] != "":
		case field == "dataImportSchedule":
			if s, _ := h.(string); !scheduleForm.MatchString(s) {
				out = append(out, fmt.Sprintf("status.dataImportSchedule %q is not upstream's form (upstream's: %q)", s, w))
			}
		case !equality.Semantic.DeepEqual(w, h):
			out = append(out, fmt.Sprintf("status.%s: upstream %v, hcokit %v", field, w, h))
		}
	}
	return out
}

// CreateNodes makes, for the test, the captures' nodes: three amd64
// control-plane nodes and three amd64 workers, named prefix-0 to prefix-5.
func CreateNodes(t *testing.T, c client.Client, prefix string) {
	t.Helper()
	for i, roles := range [][]string{{"control-plane", "master"}, {"control-plane", "master"}, {"control-plane", "master"}, {"worker"}, {"worker"}, {"worker"}} {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d", prefix, i), Labels: map[string]string{"kubernetes.io/arch": "amd64"}}}
		for _, r := range roles {
			n.Labels["node-role.kubernetes.io/"+r] = ""
		}
		testenv.CreateForTest(t, c, n)
		n.Status.NodeInfo.Architecture = "amd64"
		if err := c.Status().Update(context.Background(), n); err != nil {
			t.Fatal(err)
		}
	}
}
