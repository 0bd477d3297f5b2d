package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	conditionsv1 "github.com/openshift/custom-resource-status/conditions/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	kvv1 "kubevirt.io/api/core/v1"
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	sspv1beta3 "kubevirt.io/ssp-operator/api/v1beta3"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/yaml"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/internal/localcluster"
	"github.com/hcokit/hcokit/operands"
	"github.com/hcokit/hcokit/operands/aaq"
	aaqv1alpha1 "github.com/hcokit/hcokit/operands/aaq/api/v1alpha1"
	cnaov1 "github.com/hcokit/hcokit/operands/cnao/api/v1"
	"github.com/hcokit/hcokit/operands/filerestore"
	frv1alpha1 "github.com/hcokit/hcokit/operands/filerestore/api/v1alpha1"
	hppv1beta1 "github.com/hcokit/hcokit/operands/hpp/api/v1beta1"
	"github.com/hcokit/hcokit/operands/migcontroller"
	migv1alpha1 "github.com/hcokit/hcokit/operands/migcontroller/api/v1alpha1"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "hcolocal:", err)
		os.Exit(1)
	}
}

func run() error {
	log.SetLogger(logr.Discard())
	operator := flag.String("operator", "bin/hco-operator", "Path of the hco-operator binary.")
	hcFile := flag.String("f", "examples/hyperconverged.yaml", "HyperConverged to apply.")
	operandsFlag := flag.String("operands", "", "Passed to hco-operator --operands (default: its own default).")
	once := flag.Bool("once", false, "Exit 0 once the HyperConverged has converged (1 on timeout) instead of running until Ctrl-C.")
	timeout := flag.Duration("timeout", 2*time.Minute, "With --once: how long to wait for convergence.")
	simulate := flag.Bool("simulate-components", true, "Play the component operators: mark operand CRs Available.")
	withWebhook := flag.Bool("webhook", true, "Also run the validating webhook (hco-operator webhook), registered with the local apiserver.")
	flag.Parse()

	root, err := os.Getwd()
	if err != nil {
		return err
	}
	state := filepath.Join(root, "bin", "local")
	say("starting kube-apiserver and etcd from bin/k8s...")
	scheme, err := hco.NewScheme(operands.AddToScheme)
	if err != nil {
		return err
	}
	lo := localcluster.Options{Root: root, StateDir: state}
	if *withWebhook {
		lo.WebhookConfigs = []string{
			filepath.Join(root, "config", "webhook", "validatingwebhookconfiguration.yaml"),
			filepath.Join(root, "config", "webhook", "mutatingwebhookconfiguration.yaml"),
		}
	}
	cluster, err := localcluster.Start(lo)
	if err != nil {
		return err
	}
	defer func() {
		say("stopping the control plane")
		if err := cluster.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "hcolocal: stop control plane:", err)
		}
	}()
	say("control plane up; kubeconfig: %s (kubectl --kubeconfig %s get hco -A)", rel(root, cluster.Kubeconfig), rel(root, cluster.Kubeconfig))

	c, err := client.New(cluster.Config, client.Options{Scheme: scheme})
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: hcov1.DefaultNamespace}}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}

	args := append([]string{"--leader-elect=false", "--metrics-bind-address=0", "--health-probe-bind-address=0"}, operandArgs(*operandsFlag)...)
	logPath := filepath.Join(state, "operator.log")
	proc, err := startOperator(*operator, args, cluster.Kubeconfig, logPath)
	if err != nil {
		return err
	}
	defer proc.stop()
	say("hco-operator started (pid %d); its log: %s", proc.cmd.Process.Pid, rel(root, logPath))

	if w := cluster.Webhook; *withWebhook {
		whLog := filepath.Join(state, "webhook.log")
		wh, err := startOperator(*operator, append([]string{"webhook", "--cert-dir=" + w.CertDir, fmt.Sprintf("--port=%d", w.Port),
			"--metrics-bind-address=0", "--health-probe-bind-address=0"}, operandArgs(*operandsFlag)...), cluster.Kubeconfig, whLog)
		if err != nil {
			return err
		}
		defer wh.stop()
		if err := waitListening(ctx, net.JoinHostPort(w.Host, strconv.Itoa(w.Port)), 30*time.Second); err != nil {
			return fmt.Errorf("webhook (log %s): %w", whLog, err)
		}
		say("validating webhook started (pid %d) on %s:%d; its log: %s", wh.cmd.Process.Pid, w.Host, w.Port, rel(root, whLog))
	}

	hc, err := readHyperConverged(*hcFile)
	if err != nil {
		return err
	}
	if err := c.Create(ctx, hc, client.FieldValidation(metav1.FieldValidationStrict)); err != nil {
		return fmt.Errorf("apply %s: %w", *hcFile, err)
	}
	say("applied %s", *hcFile)
	if *simulate {
		say("playing the component operators: each operand CR is marked Available once it exists")
	}
	if !*once {
		say("watching; Ctrl-C to stop. The stack's health, from another terminal: bin/hco-operator status --kubeconfig %s (--watch to follow it)", rel(root, cluster.Kubeconfig))
	}

	var deadline <-chan time.Time
	if *once {
		deadline = time.After(*timeout)
	}
	w := &watcher{c: c, seen: map[string]bool{}}
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		converged, err := w.step(ctx, *simulate)
		if err != nil && ctx.Err() == nil {
			fmt.Fprintln(os.Stderr, "hcolocal:", err)
		}
		if *once && converged {
			say("converged")
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-proc.done:
			return fmt.Errorf("hco-operator exited: %v (see %s)", proc.err, logPath)
		case <-deadline:
			return fmt.Errorf("not converged after %s (see %s)", *timeout, logPath)
		case <-tick.C:
		}
	}
}

func say(format string, args ...any) {
	fmt.Printf("%s  %s\n", time.Now().Format("15:04:05.000"), fmt.Sprintf(format, args...))
}

func rel(root, p string) string {
	if r, err := filepath.Rel(root, p); err == nil {
		return r
	}
	return p
}

func operandArgs(operands string) []string {
	if operands == "" {
		return nil
	}
	return []string{"--operands=" + operands}
}

// waitListening waits until something accepts connections on addr.
func waitListening(ctx context.Context, addr string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		conn, err := (&net.Dialer{Timeout: time.Second}).DialContext(ctx, "tcp", addr)
		if err == nil {
			return conn.Close()
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("nothing listens on %s after %s: %w", addr, limit, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func readHyperConverged(path string) (*unstructured.Unstructured, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	// Applied as written, in either API version: the API server converts.
	hc := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(raw, &hc.Object); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if hc.Object == nil {
		hc.Object = map[string]any{}
	}
	if hc.GetAPIVersion() == "" {
		hc.SetAPIVersion(hcov1.GroupVersion.String())
	}
	if hc.GetKind() == "" {
		hc.SetKind("HyperConverged")
	}
	if hc.GetNamespace() == "" {
		hc.SetNamespace(hcov1.DefaultNamespace)
	}
	if hc.GetName() == "" {
		hc.SetName(hcov1.HyperConvergedName)
	}
	return hc, nil
}

// process is the operator child process.
type process struct {
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

func startOperator(path string, args []string, kubeconfig, logPath string) (*process, error) {
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(path, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig, "OPERATOR_NAMESPACE="+hcov1.DefaultNamespace, "HCO_KV_IO_VERSION=0.1.0-local")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// Its own process group, so that it is stopped with us and nothing is left behind.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	if err := cmd.Start(); err != nil {
		_ = logFile.Close()
		return nil, fmt.Errorf("start %s (run `make build` first): %w", path, err)
	}
	p := &process{cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		_ = logFile.Close()
		close(p.done)
	}()
	return p, nil
}

func (p *process) stop() {
	select {
	case <-p.done:
		return
	default:
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	}
}

// watcher prints what changed since its last look.
type watcher struct {
	c          client.Client
	seen       map[string]bool
	lastStatus string
}

func (w *watcher) step(ctx context.Context, simulate bool) (bool, error) {
	objs := []client.Object{
		&kvv1.KubeVirt{ObjectMeta: metav1.ObjectMeta{Namespace: hcov1.DefaultNamespace, Name: "kubevirt-kubevirt-hyperconverged"}},
		&cdiv1beta1.CDI{ObjectMeta: metav1.ObjectMeta{Name: "cdi-kubevirt-hyperconverged"}},
		&cnaov1.NetworkAddonsConfig{ObjectMeta: metav1.ObjectMeta{Name: "cluster"}},
		&sspv1beta3.SSP{ObjectMeta: metav1.ObjectMeta{Namespace: hcov1.DefaultNamespace, Name: "ssp-kubevirt-hyperconverged"}},
		&hppv1beta1.HostPathProvisioner{ObjectMeta: metav1.ObjectMeta{Name: "hostpath-provisioner"}},
		&aaqv1alpha1.AAQ{ObjectMeta: metav1.ObjectMeta{Name: aaq.CRName}},
		&migv1alpha1.MigController{ObjectMeta: metav1.ObjectMeta{Namespace: hcov1.DefaultNamespace, Name: migcontroller.CRName}},
		&frv1alpha1.FileRestoreOperator{ObjectMeta: metav1.ObjectMeta{Namespace: hcov1.DefaultNamespace, Name: filerestore.CRName}},
	}
	var errs []error
	for _, obj := range objs {
		kind := fmt.Sprintf("%T", obj)[strings.LastIndex(fmt.Sprintf("%T", obj), ".")+1:]
		err := w.c.Get(ctx, client.ObjectKeyFromObject(obj), obj)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		id := kind + "/" + obj.GetName()
		if !w.seen[id] {
			w.seen[id] = true
			say("%-20s %-34s created by the operator", kind, obj.GetName())
		}
		if simulate {
			if done, err := markAvailable(ctx, w.c, obj); err != nil {
				errs = append(errs, err)
			} else if done {
				say("%-20s %-34s marked Available (simulated component operator)", kind, obj.GetName())
			}
		}
	}
	hc := &hcov1.HyperConverged{}
	if err := w.c.Get(ctx, client.ObjectKey{Namespace: hcov1.DefaultNamespace, Name: hcov1.HyperConvergedName}, hc); err != nil {
		return false, errors.Join(append(errs, err)...)
	}
	line := statusLine(hc)
	if line != w.lastStatus {
		w.lastStatus = line
		say("HyperConverged       %s", line)
	}
	rc := meta.FindStatusCondition(hc.Status.Conditions, hcov1.ConditionReconcileComplete)
	av := meta.FindStatusCondition(hc.Status.Conditions, hcov1.ConditionAvailable)
	converged := rc != nil && rc.Status == metav1.ConditionTrue && rc.ObservedGeneration == hc.Generation &&
		(!simulate || (av != nil && av.Status == metav1.ConditionTrue))
	return converged, errors.Join(errs...)
}

func statusLine(hc *hcov1.HyperConverged) string {
	var parts []string
	for _, t := range []string{hcov1.ConditionReconcileComplete, hcov1.ConditionAvailable, hcov1.ConditionProgressing, hcov1.ConditionDegraded, hcov1.ConditionUpgradeable, hcov1.ConditionTaintedConfiguration} {
		if c := meta.FindStatusCondition(hc.Status.Conditions, t); c != nil {
			parts = append(parts, fmt.Sprintf("%s=%s(%s)", t, c.Status, c.Reason))
		}
	}
	if len(parts) == 0 {
		return "no status yet"
	}
	return strings.Join(parts, " ") + " health=" + hc.Status.SystemHealthStatus
}

// markAvailable plays a component operator: it reports the object Available,
// not progressing, not degraded. It reports whether it changed anything.
func markAvailable(ctx context.Context, c client.Client, obj client.Object) (bool, error) {
	healthy := []conditionsv1.Condition{
		{Type: "Available", Status: corev1.ConditionTrue, Reason: "Simulated"},
		{Type: "Progressing", Status: corev1.ConditionFalse, Reason: "Simulated"},
		{Type: "Degraded", Status: corev1.ConditionFalse, Reason: "Simulated"},
	}
	switch o := obj.(type) {
	case *kvv1.KubeVirt:
		if len(o.Status.Conditions) > 0 {
			return false, nil
		}
		for _, h := range healthy {
			o.Status.Conditions = append(o.Status.Conditions, kvv1.KubeVirtCondition{Type: kvv1.KubeVirtConditionType(h.Type), Status: h.Status, Reason: h.Reason})
		}
	case *cdiv1beta1.CDI:
		if len(o.Status.Conditions) > 0 {
			return false, nil
		}
		o.Status.Conditions = healthy
	case *cnaov1.NetworkAddonsConfig:
		if len(o.Status.Conditions) > 0 {
			return false, nil
		}
		o.Status.Conditions = healthy
	case *sspv1beta3.SSP:
		if len(o.Status.Conditions) > 0 {
			return false, nil
		}
		o.Status.Conditions = healthy
	case *hppv1beta1.HostPathProvisioner:
		if len(o.Status.Conditions) > 0 {
			return false, nil
		}
		o.Status.Conditions = healthy
	case *aaqv1alpha1.AAQ:
		if len(o.Status.Conditions) > 0 {
			return false, nil
		}
		o.Status.Conditions = healthy
	case *migv1alpha1.MigController:
		if len(o.Status.Conditions) > 0 {
			return false, nil
		}
		o.Status.Conditions = healthy
	case *frv1alpha1.FileRestoreOperator:
		if len(o.Status.Conditions) > 0 {
			return false, nil
		}
		for _, h := range healthy {
			o.Status.Conditions = append(o.Status.Conditions, metav1.Condition{Type: string(h.Type), Status: metav1.ConditionStatus(h.Status),
				Reason: h.Reason, LastTransitionTime: metav1.Now()})
		}
	default:
		return false, nil
	}
	if _, ok := obj.(*hppv1beta1.HostPathProvisioner); ok {
		// Its CRD has no status subresource (as upstream's): the status is
		// written with the object, as a patch of the conditions alone.
		patch := map[string]any{"status": map[string]any{"conditions": healthy}}
		data, err := json.Marshal(patch)
		if err != nil {
			return false, err
		}
		return true, c.Patch(ctx, obj, client.RawPatch(types.MergePatchType, data))
	}
	return true, c.Status().Update(ctx, obj)
}
