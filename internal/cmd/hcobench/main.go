package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	kvv1 "kubevirt.io/api/core/v1"
	cdiv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	sspv1beta3 "kubevirt.io/ssp-operator/api/v1beta3"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/internal/localcluster"
	"github.com/hcokit/hcokit/nodefacts"
	"github.com/hcokit/hcokit/operands"
	aaqv1alpha1 "github.com/hcokit/hcokit/operands/aaq/api/v1alpha1"
	cnaov1 "github.com/hcokit/hcokit/operands/cnao/api/v1"
	frv1alpha1 "github.com/hcokit/hcokit/operands/filerestore/api/v1alpha1"
	migv1alpha1 "github.com/hcokit/hcokit/operands/migcontroller/api/v1alpha1"
)

const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: Metadata
`

const operatorUser = "hco-operator-bench"

// benchUser is envtest's admin, the user of the benchmark's own requests.
const benchUser = "admin"

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "hcobench:", err)
		os.Exit(1)
	}
}

type options struct {
	operator     string
	runs         int
	idle         time.Duration
	warmup       time.Duration
	noise        bool
	leaderElect  bool
	pure         bool
	configMaps   int
	secrets      int
	vms          int
	nodes        int
	settle       time.Duration
	pureBenchPkg []string
	profileDir   string
	upstreamTree string
	// turns interleaves hcokit's and upstream's live benchmarks (see turns).
	turns *turns
}

// profilePath is where -profile puts the CPU profile of a reaction (or a
// heap profile) of s, or "" without -profile.
func (o options) profilePath(s subject, reaction string) string {
	if o.profileDir == "" {
		return ""
	}
	if s.name != "hcokit" {
		reaction = s.name + "-" + reaction
	}
	return filepath.Join(o.profileDir, reaction+".pprof")
}

func run() error {
	log.SetLogger(logr.Discard())
	o := options{}
	flag.StringVar(&o.operator, "operator", "bin/hco-operator", "Path of the hco-operator binary to measure.")
	flag.IntVar(&o.runs, "runs", 15, "Repetitions of each latency measurement (the median is reported).")
	flag.DurationVar(&o.idle, "idle", 30*time.Second, "Idle window in which requests are counted.")
	flag.DurationVar(&o.warmup, "warmup", 3*time.Second, "How long the control plane runs, its CR kinds touched, before the operator starts.")
	flag.BoolVar(&o.noise, "noise", true, "Create unrelated ConfigMaps, Secrets and VirtualMachines and measure RSS growth.")
	flag.BoolVar(&o.leaderElect, "leader-elect", false, "Run the operator with leader election (upstream's bar was measured without).")
	flag.BoolVar(&o.pure, "pure", true, "Also run the pure Go benchmarks.")
	flag.IntVar(&o.configMaps, "configmaps", 5000, "Unrelated ConfigMaps to create.")
	flag.IntVar(&o.secrets, "secrets", 5000, "Unrelated Secrets to create.")
	flag.IntVar(&o.vms, "vms", 2000, "Unrelated VirtualMachines to create.")
	flag.IntVar(&o.nodes, "nodes", 5000, "Node objects to create after the noise (metadata only is cached).")
	flag.StringVar(&o.profileDir, "profile", "", "Write the operator's CPU profile during each reaction measurement (spec change, revert, recreate) to DIR/<reaction>.pprof, and its heap once converged to DIR/heap-converged.pprof; the operator then serves pprof on "+pprofAddr+".")
	flag.DurationVar(&o.settle, "settle", 5*time.Second, "How long after creating the Nodes RSS is read.")
	flag.StringVar(&o.upstreamTree, "upstream-tree", "", "Upstream HCO's source tree (at 03da3cf, with its vendor directory): build its operator and run the same live measurements on a fresh control plane, printed in a column beside hcokit's.")
	flag.Parse()
	o.pureBenchPkg = []string{"./placement", "./featuregates", "./migration", "./hostdevices", "./operands"}

	root, err := os.Getwd()
	if err != nil {
		return err
	}
	// Built first: a tree that does not build fails the bench before the
	// minutes of hcokit's run.
	var upstream *subject
	if o.upstreamTree != "" {
		s, err := upstreamSubject(o, o.upstreamTree, filepath.Join(root, "bin", "bench", "upstream"))
		if err != nil {
			return err
		}
		upstream = &s
	}

	var rows []row
	if o.pure {
		pure, err := pureBenchmarks(o.pureBenchPkg)
		if err != nil {
			return err
		}
		rows = append(rows, pure...)
	}
	if upstream == nil {
		live, _, err := liveBenchmarks(o, hcokitSubject(o))
		if err != nil {
			return err
		}
		printTable(append(rows, live...))
		return nil
	}
	// Both at once, step by step in turns (see turns); one after the
	// other with -profile, as both operators would serve pprof on one
	// address.
	if o.profileDir == "" {
		o.turns = newTurns()
	}
	type result struct {
		rows []row
		f    figures
		err  error
	}
	var ours, theirs result
	var wg sync.WaitGroup
	for _, run := range []struct {
		s   subject
		out *result
	}{{hcokitSubject(o), &ours}, {*upstream, &theirs}} {
		work := func() { run.out.rows, run.out.f, run.out.err = liveBenchmarks(o, run.s) }
		if o.turns == nil {
			work()
			continue
		}
		wg.Go(work)
	}
	wg.Wait()
	if ours.err != nil {
		return ours.err
	}
	if theirs.err != nil {
		return fmt.Errorf("upstream: %w", theirs.err)
	}
	live, err := beside(ours.rows, theirs.rows)
	if err != nil {
		return err
	}
	printTable(append(append(rows, live...), ratios(ours.f, theirs.f)...))
	return nil
}

// row is one line of the table; upstream is upstream's value measured
// beside hcokit's (with -upstream-tree), bar the earlier figure and the bar.
type row struct{ section, what, value, upstream, bar string }

// beside puts upstream's values in the column beside hcokit's: both runs
// produce the same rows in the same order.
func beside(ours, theirs []row) ([]row, error) {
	if len(ours) != len(theirs) {
		return nil, fmt.Errorf("hcokit's run has %d rows, upstream's %d", len(ours), len(theirs))
	}
	out := slices.Clone(ours)
	for i := range out {
		if out[i].what != theirs[i].what {
			return nil, fmt.Errorf("row %d is %q for hcokit, %q for upstream", i, out[i].what, theirs[i].what)
		}
		out[i].upstream = theirs[i].value
	}
	return out, nil
}

// figures are the values the bars compare, of one run.
type figures struct {
	startRequests int
	// ownShare is the median of the operator's own share per reaction:
	// the trigger's event at the benchmark's watch → the operator's write
	// received.
	ownShare     map[string]time.Duration
	rssConverged float64
}

// ratios are the bars' rows: hcokit's figure, upstream's, and their ratio
// against the bar.
func ratios(ours, theirs figures) []row {
	ratio := func(a, b float64, bar string) string {
		if b <= 0 {
			return "n/a: upstream's is 0 · bar " + bar
		}
		return fmt.Sprintf("%.2f× · bar %s", a/b, bar)
	}
	rows := []row{{"bars", "requests from start to steady state", strconv.Itoa(ours.startRequests), strconv.Itoa(theirs.startRequests),
		ratio(float64(ours.startRequests), float64(theirs.startRequests), "≤ 1×")}}
	for _, r := range []string{"spec change", "out-of-band edit", "recreate"} {
		rows = append(rows, row{"bars", "the operator's own share (median), " + r, ms(ours.ownShare[r]), ms(theirs.ownShare[r]),
			ratio(float64(ours.ownShare[r]), float64(theirs.ownShare[r]), "≤ 1×")})
	}
	return append(rows, row{"bars", "RSS converged", fmt.Sprintf("%.1f MiB", ours.rssConverged), fmt.Sprintf("%.1f MiB", theirs.rssConverged),
		ratio(ours.rssConverged, theirs.rssConverged, "≤ 0.75×")})
}

// asInstalled copies the binary at path into dir, as a container runtime
// extracts an image's files, and returns the copy's path, which the bench
// runs. The file the Go linker writes sits in the page cache in a form of
// which each page fault maps far more (large folios, on this machine's
// kernel): the same bytes started from the linker's file had 4 MiB more
// file-backed RSS than from a copy (hco-operator render: peak RSS 37.4
// against 33.3 MiB), a figure no pod would show, and one that moved with
// how the binary was built rather than with the code.
func asInstalled(path, dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	in, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer in.Close()
	copied := filepath.Join(dir, "hco-operator.installed")
	out, err := os.OpenFile(copied, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o755)
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return "", err
	}
	return copied, out.Close()
}

func printTable(rows []row) {
	if !slices.ContainsFunc(rows, func(r row) bool { return r.upstream != "" }) {
		fmt.Printf("\n| section | measurement | hcokit | upstream HCO at 03da3cf / bar |\n|---|---|---|---|\n")
		for _, r := range rows {
			fmt.Printf("| %s | %s | %s | %s |\n", r.section, r.what, r.value, r.bar)
		}
	} else {
		fmt.Printf("\n| section | measurement | hcokit | upstream HCO at 03da3cf, measured beside it | earlier figure / bar |\n|---|---|---|---|---|\n")
		for _, r := range rows {
			fmt.Printf("| %s | %s | %s | %s | %s |\n", r.section, r.what, r.value, r.upstream, r.bar)
		}
	}
	fmt.Printf("\nmachine: %d CPUs, %s/%s, %s\n", runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version())
}

// pureBenchmarks runs the Go benchmarks and turns their lines into rows.
func pureBenchmarks(pkgs []string) ([]row, error) {
	fmt.Fprintln(os.Stderr, "bench: pure Go benchmarks...")
	args := append([]string{"test", "-run", "^$", "-bench", ".", "-benchmem", "-benchtime", "2000x"}, pkgs...)
	out, err := exec.Command("go", args...).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("go test -bench: %w\n%s", err, out)
	}
	var rows []row
	pkg := ""
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == "pkg:" {
			pkg = f[1][strings.LastIndex(f[1], "/")+1:]
		}
		if len(f) >= 8 && strings.HasPrefix(f[0], "Benchmark") {
			name := strings.TrimSuffix(strings.TrimPrefix(f[0], "Benchmark"), "-"+strconv.Itoa(runtime.GOMAXPROCS(0)))
			rows = append(rows, row{"pure", pkg + "." + name, fmt.Sprintf("%s ns/op, %s allocs/op", f[2], f[6]), "", ""})
		}
	}
	return rows, nil
}

// auditEvent is the part of an audit event the benchmark reads.
type auditEvent struct {
	AuditID string `json:"auditID"`
	Stage   string `json:"stage"`
	Verb    string `json:"verb"`
	User    struct {
		Username string `json:"username"`
	} `json:"user"`
	ObjectRef *struct {
		APIGroup    string `json:"apiGroup"`
		APIVersion  string `json:"apiVersion"`
		Resource    string `json:"resource"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
		Subresource string `json:"subresource"`
	} `json:"objectRef"`
	ResponseStatus *struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
	Received time.Time `json:"requestReceivedTimestamp"`
	Done     time.Time `json:"stageTimestamp"`
}

func (e auditEvent) resource() string {
	if e.ObjectRef == nil {
		return ""
	}
	if e.ObjectRef.Subresource != "" {
		return e.ObjectRef.Resource + "/" + e.ObjectRef.Subresource
	}
	return e.ObjectRef.Resource
}

// readAudit returns the completed (or, for watches, started) requests.
func readAudit(path string) ([]auditEvent, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []auditEvent
	seen := map[string]bool{}
	for _, line := range bytes.Split(raw, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var e auditEvent
		if json.Unmarshal(line, &e) != nil || seen[e.AuditID] {
			continue
		}
		if e.Stage == "ResponseComplete" || (e.Stage == "ResponseStarted" && e.Verb == "watch") {
			seen[e.AuditID] = true
			out = append(out, e)
		}
	}
	return out, nil
}

// between returns the operator's requests received in [from, to).
func between(events []auditEvent, from, to time.Time) []auditEvent {
	var out []auditEvent
	for _, e := range events {
		if e.User.Username == operatorUser && !e.Received.Before(from) && e.Received.Before(to) {
			out = append(out, e)
		}
	}
	return out
}

func summarize(events []auditEvent) string {
	counts := map[string]int{}
	for _, e := range events {
		counts[e.Verb+" "+e.resource()]++
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d %s", counts[k], k))
	}
	return strings.Join(parts, ", ")
}

func conflicts(events []auditEvent) int {
	n := 0
	for _, e := range events {
		if e.ResponseStatus != nil && e.ResponseStatus.Code == 409 {
			n++
		}
	}
	return n
}

// firstBy returns the first operator request after t matching verb and resource.
func firstBy(events []auditEvent, user string, after time.Time, verb, resource string) (auditEvent, bool) {
	for _, e := range events {
		if e.User.Username == user && !e.Received.Before(after) && e.Verb == verb && e.resource() == resource {
			return e, true
		}
	}
	return auditEvent{}, false
}

// firstAfter returns the user's first request received after t.
func firstAfter(events []auditEvent, user string, after time.Time) (auditEvent, bool) {
	for _, e := range events {
		if e.User.Username == user && !e.Received.Before(after) && e.Verb != "watch" {
			return e, true
		}
	}
	return auditEvent{}, false
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// spread is the median and, in brackets, the 25th and 75th percentiles.
func spread(ds []time.Duration) string {
	if len(ds) < 4 {
		return ms(median(ds))
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return fmt.Sprintf("%s (%.1f–%.1f)", ms(s[len(s)/2]), float64(s[len(s)/4].Microseconds())/1000, float64(s[(3*len(s))/4].Microseconds())/1000)
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

// rss is a process's resident memory: in all, anonymous (heap, stacks) and
// file-backed (the binary's own pages).
type rss struct{ total, anon, file float64 }

func (r rss) String() string {
	return fmt.Sprintf("%.1f MiB (anon %.1f, file %.1f)", r.total, r.anon, r.file)
}

// cpuTime is the CPU time the process's threads have used so far, from
// their schedstat (nanoseconds, unlike the 10 ms ticks of /proc/<pid>/stat).
func cpuTime(pid int) time.Duration {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	var sum time.Duration
	for _, t := range tasks {
		raw, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		if f := strings.Fields(string(raw)); len(f) > 0 {
			ns, _ := strconv.ParseInt(f[0], 10, 64)
			sum += time.Duration(ns)
		}
	}
	return sum
}

func rssOf(pid int) rss {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return rss{-1, -1, -1}
	}
	var out rss
	for _, line := range strings.Split(string(raw), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.Atoi(f[1])
		switch f[0] {
		case "VmRSS:":
			out.total = float64(kb) / 1024
		case "RssAnon:":
			out.anon = float64(kb) / 1024
		case "RssFile:":
			out.file = float64(kb) / 1024
		}
	}
	return out
}

// liveBenchmarks runs s on a fresh control plane and measures it; f are
// the figures the bars compare.
func liveBenchmarks(o options, s subject) (rows []row, f figures, err error) {
	// Steps (see turns): the control plane's and the operator's start; each
	// create run; the idle window; each reaction run; the rest.
	o.turns.begin(s.who)
	defer o.turns.end(s.who)
	root, err := os.Getwd()
	if err != nil {
		return nil, f, err
	}
	// Each subject has its own state directory: its copy of the binary,
	// its audit log and its log.
	stateDir := filepath.Join(root, "bin", "bench")
	if s.name != "hcokit" {
		stateDir = filepath.Join(stateDir, s.name)
	}
	operator, err := asInstalled(s.binary, stateDir)
	if err != nil {
		return nil, f, err
	}
	fmt.Fprintf(os.Stderr, "bench: %s: starting the local control plane with an audit log...\n", s.name)
	scheme, err := hco.NewScheme(operands.AddToScheme)
	if err != nil {
		return nil, f, err
	}
	cluster, err := localcluster.Start(localcluster.Options{Root: root, StateDir: stateDir, AuditPolicy: auditPolicy, HyperConvergedCRD: s.hcCRD})
	if err != nil {
		return nil, f, err
	}
	defer func() { _ = cluster.Stop() }()
	opKubeconfig, err := cluster.AddUser(operatorUser, "system:masters")
	if err != nil {
		return nil, f, err
	}
	c, err := client.New(cluster.Config, client.Options{Scheme: scheme})
	if err != nil {
		return nil, f, err
	}
	wc, err := client.NewWithWatch(cluster.Config, client.Options{Scheme: scheme})
	if err != nil {
		return nil, f, err
	}
	ctx := context.Background()
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: hcov1.DefaultNamespace}}); err != nil {
		return nil, f, err
	}
	for _, obj := range s.objects {
		if err := c.Create(ctx, obj); err != nil {
			return nil, f, fmt.Errorf("create %T %s: %w", obj, obj.GetName(), err)
		}
	}

	cmd := exec.Command(operator, s.args...)
	cmd.Env = append(append(os.Environ(), "KUBECONFIG="+opKubeconfig), s.env...)
	cmd.Dir = s.dir
	logPath := filepath.Join(stateDir, "operator.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, f, err
	}
	defer logFile.Close()
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	// On a real cluster the component operators already watch their CRs
	// when the meta-operator starts. A fresh apiserver builds its watch
	// cache for a custom resource on first use and answers the first watch
	// with 429 "storage is (re)initializing", which would be counted against
	// the operator: touch each kind first, as those operators would have.
	for _, list := range []client.ObjectList{&hcov1.HyperConvergedList{}, &kvv1.KubeVirtList{}, &cdiv1beta1.CDIList{}, &cnaov1.NetworkAddonsConfigList{}, &sspv1beta3.SSPList{},
		&aaqv1alpha1.AAQList{}, &migv1alpha1.MigControllerList{}, &frv1alpha1.FileRestoreOperatorList{}} {
		if err := c.List(ctx, list); err != nil {
			return nil, f, err
		}
	}
	time.Sleep(o.warmup)
	fmt.Fprintf(os.Stderr, "bench: %s: starting %s\n", s.name, operator)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, f, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		<-exited
	}()
	// An operator that exits stops the bench with its log, rather than
	// with a missing write much later.
	defer func() {
		if err == nil {
			return
		}
		select {
		case werr := <-exited:
			err = fmt.Errorf("%w (the operator exited: %v; its log: %s)", err, werr, logPath)
			exited <- werr
		default:
		}
	}()
	pid := cmd.Process.Pid

	// Ready: the operator has made a request, and then stayed quiet for 2 s.
	if err := waitFirst(cluster.AuditLog, start, 60*time.Second); err != nil {
		return nil, f, err
	}
	if err := waitQuiet(cluster.AuditLog, start, 2*time.Second, 60*time.Second); err != nil {
		return nil, f, err
	}
	rssIdle := rssOf(pid)
	o.turns.end(s.who)

	var gc *foregroundGC
	if s.foregroundGC {
		if gc, err = newForegroundGC(cluster.Config, cluster.AuditLog); err != nil {
			return nil, f, err
		}
	}
	var startupToSteady int
	var startupSummary string
	// First as a cluster with the mutating webhook creates it (the
	// finalizer stored with the create), then without the webhook (the
	// operator stores the finalizer before any operand CR). The last run
	// leaves the HyperConverged in place for the measurements that follow.
	for _, mode := range []struct {
		label     string
		finalizer bool
	}{{"created with the finalizer (mutating webhook)", true}, {"created without it (no webhook: the operator stores it first)", false}} {
		var convergence, convergenceStored, convergenceCommon, convergenceShare, convergenceCPU []time.Duration
		for i := 0; i < o.runs; i++ {
			o.turns.begin(s.who)
			t0, cpu0 := time.Now(), cpuTime(pid)
			hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: hcov1.DefaultNamespace}}
			if mode.finalizer {
				// What the mutating webhook stores with the create.
				hc.Finalizers = []string{hco.FinalizerName}
				hc.Labels = map[string]string{hco.LabelApp: hc.Name}
			}
			if err := c.Create(ctx, hc); err != nil {
				return nil, f, err
			}
			// Waiting reads the audit log, not the apiserver: polling it would
			// load the apiserver while the operator is being measured.
			if err := waitQuiet(cluster.AuditLog, t0, time.Second, 30*time.Second); err != nil {
				return nil, f, err
			}
			convergenceCPU = append(convergenceCPU, cpuTime(pid)-cpu0)
			events, err := readAudit(cluster.AuditLog)
			if err != nil {
				return nil, f, err
			}
			created, ok := firstBy(events, benchUser, t0.Add(-time.Second), "create", "hyperconvergeds")
			if !ok {
				return nil, f, fmt.Errorf("no HyperConverged create in the audit log")
			}
			last, lastCommon := created.Done, created.Done
			for _, res := range s.operandCRs {
				e, ok := firstBy(events, operatorUser, created.Received, "create", res)
				if !ok {
					return nil, f, fmt.Errorf("operator did not create %s", res)
				}
				if e.Done.After(last) {
					last = e.Done
				}
				if slices.Contains(commonOperandCRs, res) && e.Done.After(lastCommon) {
					lastCommon = e.Done
				}
			}
			convergence = append(convergence, last.Sub(created.Received))
			convergenceCommon = append(convergenceCommon, lastCommon.Sub(created.Done))
			convergenceStored = append(convergenceStored, last.Sub(created.Done))
			if first, ok := firstAfter(events, operatorUser, created.Received); ok {
				convergenceShare = append(convergenceShare, first.Received.Sub(created.Done))
			}
			if startupSummary == "" {
				all := between(events, start.Add(-time.Second), time.Now())
				startupToSteady = len(all)
				startupSummary = summarize(all)
			}
			if i < o.runs-1 || mode.finalizer {
				if err := deleteAndWait(ctx, c, hc, gc); err != nil {
					return nil, f, err
				}
			}
			o.turns.end(s.who)
		}
		rows = append(rows,
			row{"live", "HyperConverged " + mode.label + ":", "", "", ""},
			row{"live", "  create received → all operand CRs exist (median; p25–p75)", spread(convergence), "", "34 ms"},
			row{"live", "  stored → all operand CRs exist (median; p25–p75)", spread(convergenceStored), "", ""},
		)
		if o.upstreamTree != "" {
			// Upstream creates no SSP on Kubernetes: the operand CRs both
			// create, side by side.
			rows = append(rows, row{"live", "  stored → the KubeVirt, CDI and NetworkAddonsConfig exist (median; p25–p75)", spread(convergenceCommon), "", ""})
		}
		rows = append(rows,
			row{"live", "  of which: stored → the operator's first request", spread(convergenceShare), "", ""},
			row{"live", "  operator CPU time for it, status and events included", spread(convergenceCPU), "", ""},
		)
	}
	o.turns.begin(s.who)
	// Counted once over all the runs: each run's read of the log holds
	// the runs before it.
	events, err := readAudit(cluster.AuditLog)
	if err != nil {
		return nil, f, err
	}
	allConflicts := conflicts(between(events, start, time.Now()))
	rows = append(rows,
		row{"live", "operator start → steady state, requests in all", fmt.Sprintf("%d (%s)", startupToSteady, startupSummary), "", "53 / ≤ 53"},
		row{"live", "409 conflicts during all create runs", strconv.Itoa(allConflicts), "", "1 / 0"},
	)
	rssConverged := rssOf(pid)
	f.startRequests, f.rssConverged = startupToSteady, rssConverged.total
	if o.profileDir != "" {
		if err := fetchProfile("heap", o.profilePath(s, "heap-converged")); err != nil {
			return nil, f, err
		}
	}

	// Idle.
	t0, cpu0 := time.Now(), cpuTime(pid)
	time.Sleep(o.idle)
	idleCPU := cpuTime(pid) - cpu0
	events, err = readAudit(cluster.AuditLog)
	if err != nil {
		return nil, f, err
	}
	idle := between(events, t0, time.Now())
	rows = append(rows, row{"live", fmt.Sprintf("idle %s, requests (leader election %t)", o.idle, o.leaderElect), fmt.Sprintf("%d %s", len(idle), summarize(idle)), "", "0 / 0 (+ lease renewals)"},
		row{"live", fmt.Sprintf("  operator CPU time in those %s", o.idle), ms(idleCPU), "", ""})

	o.turns.end(s.who)

	hcKey := client.ObjectKey{Namespace: hcov1.DefaultNamespace, Name: hcov1.HyperConvergedName}
	change, err := measureReaction(cluster.AuditLog, o.runs, reaction{
		what: "spec change",
		trigger: func(i int) error {
			value := int64(200 + i)
			return retryUpdate(ctx, c, &hcov1.HyperConverged{}, hcKey, func(obj client.Object) {
				obj.(*hcov1.HyperConverged).Spec.Virtualization.LiveMigrationConfig.ProgressTimeout = &value
			})
		},
		triggerVerb: "update", triggerResource: "hyperconvergeds",
		responseVerb: "update", responseResource: "kubevirts", pid: pid, profile: o.profilePath(s, "spec-change"),
		watch: &hcov1.HyperConvergedList{}, client: wc, turns: o.turns, who: s.who,
	})
	if err != nil {
		return nil, f, err
	}
	rows = append(rows, row{"live", "one spec change received → KubeVirt reflects it (median; p25–p75)", spread(change.fromReceived), "", "17 ms"},
		row{"live", "one spec change stored → KubeVirt reflects it (median; p25–p75)", spread(change.fromStored), "", ""})
	rows = append(rows, change.breakdown("HyperConverged stored → the operator's KubeVirt update", "stored", "update")...)
	rows = append(rows, row{"live", "one spec change, operator requests", change.lastRequests, "", "9 / ≤ 9: one write per changed object, 0 GETs"})

	kvKey := client.ObjectKey{Namespace: hcov1.DefaultNamespace, Name: "kubevirt-kubevirt-hyperconverged"}
	revert, err := measureReaction(cluster.AuditLog, o.runs, reaction{
		what: "out-of-band edit",
		trigger: func(int) error {
			return retryUpdate(ctx, c, &kvv1.KubeVirt{}, kvKey, func(obj client.Object) {
				obj.(*kvv1.KubeVirt).Spec.ImagePullPolicy = corev1.PullAlways
			})
		},
		triggerVerb: "update", triggerResource: "kubevirts",
		responseVerb: "update", responseResource: "kubevirts", pid: pid, profile: o.profilePath(s, "revert"),
		watch: &kvv1.KubeVirtList{}, client: wc, turns: o.turns, who: s.who,
	})
	if err != nil {
		return nil, f, err
	}
	rows = append(rows, row{"live", "out-of-band KubeVirt edit received → reverted (median; p25–p75)", spread(revert.fromReceived), "", ""},
		row{"live", "out-of-band KubeVirt edit stored → reverted (median; p25–p75)", spread(revert.fromStored), "", "18 ms"})
	rows = append(rows, revert.breakdown("edit stored → the operator's update", "stored", "update")...)

	recreate, err := measureReaction(cluster.AuditLog, o.runs, reaction{
		what: "recreate",
		trigger: func(int) error {
			return c.Delete(ctx, &cdiv1beta1.CDI{ObjectMeta: metav1.ObjectMeta{Name: "cdi-kubevirt-hyperconverged"}})
		},
		triggerVerb: "delete", triggerResource: "cdis",
		responseVerb: "create", responseResource: "cdis", pid: pid, profile: o.profilePath(s, "recreate"),
		watch: &cdiv1beta1.CDIList{}, client: wc, turns: o.turns, who: s.who,
	})
	if err != nil {
		return nil, f, err
	}
	o.turns.begin(s.who) // the rest
	rows = append(rows, row{"live", "deleted CDI → recreated, after the DELETE completed (median; p25–p75)", spread(recreate.fromStored), "", "6 ms"})
	rows = append(rows, recreate.breakdown("DELETE done → the operator's create", "DELETE done", "create")...)

	f.ownShare = map[string]time.Duration{"spec change": median(change.operator), "out-of-band edit": median(revert.operator), "recreate": median(recreate.operator)}

	v1, v1beta1 := "n/a: "+s.notConverted, "n/a: "+s.notConverted
	if s.conversion {
		if v1, v1beta1, err = measureConversion(ctx, operator, cluster, hcKey); err != nil {
			return nil, f, err
		}
	}
	rows = append(rows,
		row{section: "live", what: fmt.Sprintf("GET HyperConverged as v1, stored version (p50 / p99 of %d)", conversionGets), value: v1},
		row{section: "live", what: fmt.Sprintf("GET HyperConverged as v1beta1, through the conversion webhook (p50 / p99 of %d)", conversionGets), value: v1beta1})

	rows = append(rows,
		row{"rss", "before the HyperConverged exists", rssIdle.String(), "", "61–65 MiB"},
		row{"rss", "converged", rssConverged.String(), "", "69 MiB / ≤ 0.75× (51.8 MiB)"})
	if o.noise {
		fmt.Fprintf(os.Stderr, "bench: creating %d ConfigMaps, %d Secrets and %d VirtualMachines in other namespaces...\n", o.configMaps, o.secrets, o.vms)
		if err := createNoise(ctx, c, o); err != nil {
			return nil, f, err
		}
		time.Sleep(5 * time.Second)
		after := rssOf(pid)
		rows = append(rows, row{"rss", fmt.Sprintf("after %d ConfigMaps, %d Secrets, %d VMs elsewhere", o.configMaps, o.secrets, o.vms), fmt.Sprintf("%s, %+.1f MiB", after, after.total-rssConverged.total), "", "flat"})
		if o.nodes > 0 {
			fmt.Fprintf(os.Stderr, "bench: creating %d Nodes...\n", o.nodes)
			if err := createNodes(ctx, c, o.nodes); err != nil {
				return nil, f, err
			}
			// Settled: the operator has answered the last node event and
			// the runtime has returned what the burst freed.
			time.Sleep(o.settle)
			withNodes := rssOf(pid)
			rows = append(rows, row{"rss", fmt.Sprintf("after %d Nodes (2 KiB of annotations each)", o.nodes), fmt.Sprintf("%s, %+.1f MiB", withNodes, withNodes.total-after.total), "", "314 MiB after 3,000 Nodes / flat"})
		}
	}
	return rows, f, nil
}

// reaction is a change the benchmark makes and the operator's answer to it,
// both found in the audit log.
type reaction struct {
	what                           string
	trigger                        func(run int) error
	triggerVerb, triggerResource   string
	responseVerb, responseResource string
	// pid is the operator's process, whose CPU time is measured.
	pid int
	// profile, when set, is where the operator's CPU profile during the
	// runs is written.
	profile string
	// watch, when set, is watched by the benchmark itself during the runs,
	// as another client of the API server: when the trigger's event reaches
	// it is the API server's delivery, which no operator can beat.
	watch  client.ObjectList
	client client.WithWatch
	// turns and who: each run is a step (see turns).
	turns *turns
	who   int
}

// pprofAddr is where the operator serves pprof with -profile.
const pprofAddr = "127.0.0.1:6065"

// fetchProfile writes the operator's pprof profile name (heap, allocs, …) to path.
func fetchProfile(name, path string) error {
	resp, err := http.Get(fmt.Sprintf("http://%s/debug/pprof/%s", pprofAddr, name))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("pprof %s: %s", name, resp.Status)
	}
	return os.WriteFile(path, data, 0o644)
}

// profileCPU fetches the operator's CPU profile for the next d into path,
// in the background; wait returns once it is written.
func profileCPU(path string, d time.Duration) (wait func() error) {
	done := make(chan error, 1)
	go func() {
		resp, err := http.Get(fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", pprofAddr, int(d.Seconds())+1))
		if err != nil {
			done <- err
			return
		}
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		if err == nil && resp.StatusCode != http.StatusOK {
			err = fmt.Errorf("pprof: %s: %s", resp.Status, data)
		}
		if err == nil {
			err = os.WriteFile(path, data, 0o644)
		}
		done <- err
	}()
	return func() error { return <-done }
}

// measured is what measureReaction found.
type measured struct {
	// fromReceived and fromStored run from the trigger received, or
	// stored, to the operator's write completing; share from the trigger
	// stored to the operator's write received. delivered runs from the
	// trigger stored to its event at the benchmark's own watch, operator
	// from there to the operator's write received: share is about their sum.
	fromReceived, fromStored, share, delivered, operator []time.Duration
	// cpu is the operator's CPU time from the trigger until it settled.
	cpu []time.Duration
	// lastRequests summarises the operator's requests around the last run.
	lastRequests string
}

// breakdown is the rows that split m: the trigger stored (stored names it)
// → the operator's write (share names it), of which the API server's
// delivery and the operator's own share (write: its verb); and its CPU.
func (m measured) breakdown(share, stored, write string) []row {
	return []row{
		{"live", "  of which: " + share, spread(m.share), "", ""},
		{"live", "    the API server's delivery: " + stored + " → the event at another client's watch", spread(m.delivered), "", ""},
		{"live", "    the operator's own: the event at that watch → its " + write + " received", spread(m.operator), "", "≤ upstream's"},
		{"live", "  operator CPU time for it", spread(m.cpu), "", ""},
	}
}

// measureReaction triggers r runs times, each after the operator settled.
func measureReaction(auditLog string, runs int, r reaction) (m measured, err error) {
	if r.profile != "" {
		// Each run takes a little over a second (waitQuiet); the profile
		// ends idle after the last.
		wait := profileCPU(r.profile, time.Duration(runs)*1500*time.Millisecond)
		defer func() { err = errors.Join(err, wait()) }()
	}
	seen, stop, err := watchEvents(r)
	if err != nil {
		return m, fmt.Errorf("%s: watch: %w", r.what, err)
	}
	defer stop()
	for i := 0; i < runs; i++ {
		r.turns.begin(r.who)
		t0, cpu0 := time.Now(), cpuTime(r.pid)
		if err := r.trigger(i); err != nil {
			r.turns.end(r.who)
			return m, fmt.Errorf("%s: %w", r.what, err)
		}
		if err := waitQuiet(auditLog, t0, time.Second, 30*time.Second); err != nil {
			return m, err
		}
		m.cpu = append(m.cpu, cpuTime(r.pid)-cpu0)
		events, err := readAudit(auditLog)
		if err != nil {
			return m, err
		}
		trig, ok1 := firstBy(events, benchUser, t0.Add(-time.Second), r.triggerVerb, r.triggerResource)
		resp, ok2 := firstBy(events, operatorUser, t0.Add(-time.Second), r.responseVerb, r.responseResource)
		if !ok1 || !ok2 {
			return m, fmt.Errorf("%s: %s %s or %s %s missing from the audit log", r.what, r.triggerVerb, r.triggerResource, r.responseVerb, r.responseResource)
		}
		m.fromReceived = append(m.fromReceived, resp.Done.Sub(trig.Received))
		m.fromStored = append(m.fromStored, resp.Done.Sub(trig.Done))
		m.share = append(m.share, resp.Received.Sub(trig.Done))
		if at, ok := seen(t0); ok {
			m.delivered = append(m.delivered, at.Sub(trig.Done))
			m.operator = append(m.operator, resp.Received.Sub(at))
		}
		m.lastRequests = summarize(between(events, t0.Add(-time.Second), time.Now()))
		r.turns.end(r.who)
	}
	return m, nil
}

// watchEvents watches r.watch (when set) and returns when its first event
// at or after a time arrived; nothing when r.watch is not set.
func watchEvents(r reaction) (seen func(time.Time) (time.Time, bool), stop func(), err error) {
	none := func(time.Time) (time.Time, bool) { return time.Time{}, false }
	if r.watch == nil {
		return none, func() {}, nil
	}
	w, err := r.client.Watch(context.Background(), r.watch)
	if err != nil {
		return nil, nil, err
	}
	var mu sync.Mutex
	var arrivals []time.Time
	go func() {
		for range w.ResultChan() {
			at := time.Now()
			mu.Lock()
			arrivals = append(arrivals, at)
			mu.Unlock()
		}
	}()
	// The watch's first events are the objects that exist: let them pass.
	time.Sleep(500 * time.Millisecond)
	return func(since time.Time) (time.Time, bool) {
		mu.Lock()
		defer mu.Unlock()
		for _, at := range arrivals {
			if !at.Before(since) {
				return at, true
			}
		}
		return time.Time{}, false
	}, w.Stop, nil
}

// waitFirst waits for the operator's first request after since: a binary
// that takes long to start is not taken for one that settled.
func waitFirst(auditLog string, since time.Time, limit time.Duration) error {
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		events, err := readAudit(auditLog)
		if err != nil {
			continue
		}
		if len(between(events, since, time.Now().Add(time.Hour))) > 0 {
			return nil
		}
	}
	return fmt.Errorf("the operator made no request within %s", limit)
}

// waitQuiet waits until the operator has made no request for quiet, at
// least quiet after since.
func waitQuiet(auditLog string, since time.Time, quiet, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
		events, err := readAudit(auditLog)
		if err != nil {
			continue
		}
		last := since
		for _, e := range between(events, since, time.Now().Add(time.Hour)) {
			if e.Verb != "watch" && e.Done.After(last) {
				last = e.Done
			}
		}
		if time.Since(last) >= quiet {
			return nil
		}
	}
	return fmt.Errorf("the operator did not settle within %s", limit)
}

// deleteAndWait deletes the HyperConverged and waits until it is gone; gc,
// when set, stands in for the garbage collector meanwhile.
// commonOperandCRs are the operand CRs both hcokit's and upstream's operator
// create for a HyperConverged on Kubernetes.
var commonOperandCRs = []string{"kubevirts", "cdis", "networkaddonsconfigs"}

func deleteAndWait(ctx context.Context, c client.Client, hc *hcov1.HyperConverged, gc *foregroundGC) error {
	t0 := time.Now()
	if err := c.Delete(ctx, hc); err != nil {
		return err
	}
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if err := c.Get(ctx, client.ObjectKeyFromObject(hc), &hcov1.HyperConverged{}); apierrors.IsNotFound(err) {
			return nil
		}
		if gc != nil {
			if err := gc.collect(ctx, t0); err != nil {
				return err
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("HyperConverged not deleted")
}

func retryUpdate(ctx context.Context, c client.Client, obj client.Object, key client.ObjectKey, mutate func(client.Object)) error {
	for i := 0; i < 20; i++ {
		if err := c.Get(ctx, key, obj); err != nil {
			return err
		}
		mutate(obj)
		err := c.Update(ctx, obj)
		if err == nil || !apierrors.IsConflict(err) {
			return err
		}
	}
	return fmt.Errorf("update %s: too many conflicts", key)
}

func createNoise(ctx context.Context, c client.Client, o options) error {
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "noise"}}); err != nil {
		return err
	}
	work := make(chan client.Object)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for obj := range work {
				if err := c.Create(ctx, obj); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	blob := strings.Repeat("x", 512)
	for i := 0; i < o.configMaps; i++ {
		work <- &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "noise", Name: fmt.Sprintf("cm-%d", i)}, Data: map[string]string{"v": blob}}
	}
	for i := 0; i < o.secrets; i++ {
		work <- &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "noise", Name: fmt.Sprintf("s-%d", i)}, StringData: map[string]string{"v": blob}}
	}
	for i := 0; i < o.vms; i++ {
		work <- &kvv1.VirtualMachine{
			ObjectMeta: metav1.ObjectMeta{Namespace: "noise", Name: fmt.Sprintf("vm-%d", i)},
			Spec: kvv1.VirtualMachineSpec{Template: &kvv1.VirtualMachineInstanceTemplateSpec{
				Spec: kvv1.VirtualMachineInstanceSpec{Domain: kvv1.DomainSpec{Devices: kvv1.Devices{}}},
			}},
		}
	}
	close(work)
	wg.Wait()
	return firstErr
}

// createNodes creates n worker Nodes, each with labels and 2 KiB of
// annotations as a kubelet and a CNI would leave, 16 at a time.
func createNodes(ctx context.Context, c client.Client, n int) error {
	work := make(chan int)
	errs := make(chan error, 16)
	var wg sync.WaitGroup
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{
					Name: fmt.Sprintf("bench-node-%d", i),
					Labels: map[string]string{
						nodefacts.LabelNodeRoleWorker: "", nodefacts.LabelArch: "amd64", "kubernetes.io/os": "linux",
						"kubernetes.io/hostname": fmt.Sprintf("bench-node-%d", i), "topology.kubernetes.io/zone": fmt.Sprintf("zone-%d", i%3),
					},
					Annotations: map[string]string{"bench/blob": strings.Repeat("a", 2048)},
				}}
				if err := c.Create(ctx, node); err != nil {
					select {
					case errs <- err:
					default:
					}
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		work <- i
	}
	close(work)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}

// conversionGets is how many GETs measureConversion times per version.
const conversionGets = 300

// measureConversion starts `operator webhook` where the CRD's conversion
// points and times GETs of the HyperConverged as v1 (the stored version, no
// conversion) and as v1beta1 (through the conversion webhook), one at a
// time; it returns both as "p50 / p99".
func measureConversion(ctx context.Context, operator string, cluster *localcluster.Cluster, key client.ObjectKey) (v1, v1beta1Gets string, err error) {
	w := cluster.Webhook
	cmd := exec.Command(operator, "webhook", "--cert-dir="+w.CertDir, fmt.Sprintf("--port=%d", w.Port),
		"--metrics-bind-address=0", "--health-probe-bind-address=0")
	cmd.Env = append(os.Environ(), "KUBECONFIG="+cluster.Kubeconfig, "OPERATOR_NAMESPACE="+hcov1.DefaultNamespace)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	if err := cmd.Start(); err != nil {
		return "", "", err
	}
	defer func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		_ = cmd.Wait()
	}()
	scheme := k8sruntime.NewScheme()
	if err := errors.Join(hcov1.AddToScheme(scheme), v1beta1.AddToScheme(scheme)); err != nil {
		return "", "", err
	}
	c, err := client.New(cluster.Config, client.Options{Scheme: scheme})
	if err != nil {
		return "", "", err
	}
	// Ready: a v1beta1 GET answers.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		err := c.Get(ctx, key, &v1beta1.HyperConverged{})
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			return "", "", fmt.Errorf("the conversion webhook did not answer: %w", err)
		}
	}
	const n = conversionGets
	timeGets := func(newObj func() client.Object) ([]time.Duration, error) {
		out := make([]time.Duration, 0, n)
		for range n {
			t0 := time.Now()
			if err := c.Get(ctx, key, newObj()); err != nil {
				return nil, err
			}
			out = append(out, time.Since(t0))
		}
		return out, nil
	}
	asV1, err := timeGets(func() client.Object { return &hcov1.HyperConverged{} })
	if err != nil {
		return "", "", err
	}
	asV1beta1, err := timeGets(func() client.Object { return &v1beta1.HyperConverged{} })
	if err != nil {
		return "", "", err
	}
	return percentiles(asV1), percentiles(asV1beta1), nil
}

// percentiles is "p50 / p99" of ds.
func percentiles(ds []time.Duration) string {
	s := slices.Clone(ds)
	slices.Sort(s)
	at := func(p float64) time.Duration { return s[int(p*float64(len(s)-1))] }
	return ms(at(0.50)) + " / " + ms(at(0.99))
}
