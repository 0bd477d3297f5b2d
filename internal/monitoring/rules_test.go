package monitoring

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	"github.com/hcokit/hcokit/hcometrics"
	"github.com/hcokit/hcokit/internal/testenv"
)

// rule is what the tests read of a rule; promtool gets the groups as written.
type rule struct {
	Alert       string            `json:"alert"`
	Record      string            `json:"record"`
	Expr        string            `json:"expr"`
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
}

// prometheusRule reads config/prometheus/prometheus_rule.yaml and returns its
// spec.groups as written, and its rules.
func prometheusRule(t *testing.T) (groups any, rules []rule) {
	t.Helper()
	return prometheusRuleAt(t, filepath.Join("config", "prometheus", "prometheus_rule.yaml"))
}

// prometheusRuleAt reads the PrometheusRule at path (from the repository's
// root, or absolute) and returns its spec.groups as written, and its rules.
func prometheusRuleAt(t *testing.T, path string) (groups any, rules []rule) {
	t.Helper()
	if !filepath.IsAbs(path) {
		root, err := testenv.RepoRoot()
		if err != nil {
			t.Fatal(err)
		}
		path = filepath.Join(root, path)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var generic struct {
		Kind string `json:"kind"`
		Spec struct {
			Groups any `json:"groups"`
		} `json:"spec"`
	}
	var typed struct {
		Spec struct {
			Groups []struct {
				Rules []rule `json:"rules"`
			} `json:"groups"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(raw, &generic); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if err := yaml.Unmarshal(raw, &typed); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if generic.Kind != "PrometheusRule" {
		t.Fatalf("%s holds a %q, want a PrometheusRule", path, generic.Kind)
	}
	for _, g := range typed.Spec.Groups {
		rules = append(rules, g.Rules...)
	}
	return generic.Spec.Groups, rules
}

// promtool returns the path of promtool; without it the test is skipped,
// or fails with CI=true.
func promtool(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("promtool")
	if err == nil {
		return p
	}
	msg := "promtool not found: install Debian's prometheus package (apt-get install prometheus)"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg + "; CI=true: the alert rule tests must not be skipped")
	}
	t.Skip(msg)
	return ""
}

// The PrometheusRule's groups are upstream's, rule for rule: its operator's
// PrometheusRule at 03da3cf, captured in
// testdata/upstream-03da3cf/operator_rules.yaml (expr, for, labels and
// annotations, runbook_url included, in upstream's order).
func TestRulesAreUpstreams(t *testing.T) {
	groups, _ := prometheusRule(t)
	assertUpstreamGroups(t, groups, "operator_rules.yaml")
}

// assertUpstreamGroups fails the test unless groups equal, value for value,
// the spec.groups of testdata/upstream-03da3cf/upstream, naming the first
// rule that differs.
func assertUpstreamGroups(t *testing.T, groups any, upstream string) {
	t.Helper()
	abs, err := filepath.Abs(filepath.Join("testdata", "upstream-03da3cf", upstream))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := prometheusRuleAt(t, abs)
	if reflect.DeepEqual(groups, want) {
		return
	}
	got, _ := groups.([]any)
	wantGroups, _ := want.([]any)
	for i := range max(len(got), len(wantGroups)) {
		if i >= len(got) || i >= len(wantGroups) {
			t.Errorf("%d rule groups, upstream (testdata/upstream-03da3cf/%s) has %d", len(got), upstream, len(wantGroups))
			return
		}
		g, _ := got[i].(map[string]any)
		w, _ := wantGroups[i].(map[string]any)
		gotRules, _ := g["rules"].([]any)
		wantRules, _ := w["rules"].([]any)
		for j := range max(len(gotRules), len(wantRules)) {
			var gr, wr any
			if j < len(gotRules) {
				gr = gotRules[j]
			}
			if j < len(wantRules) {
				wr = wantRules[j]
			}
			if !reflect.DeepEqual(gr, wr) {
				t.Errorf("group %v, rule %d differs from upstream's (testdata/upstream-03da3cf/%s):\n got  %v\n want %v", w["name"], j, upstream, gr, wr)
				return
			}
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("group %d is %v, upstream's (testdata/upstream-03da3cf/%s) is %v", i, g["name"], upstream, w["name"])
			return
		}
	}
}

// The PrometheusRule's groups pass `promtool check rules` and the unit tests
// in testdata/rules_test.yaml.
func TestPromtool(t *testing.T) {
	groups, _ := prometheusRule(t)
	runPromtool(t, groups, "rules_test.yaml")
}

// runPromtool runs `promtool check rules` on groups and `promtool test
// rules` with testdata/tests, which reads them from rules.yaml.
func runPromtool(t *testing.T, groups any, tests string) {
	t.Helper()
	bin := promtool(t)
	dir := t.TempDir()
	out, err := yaml.Marshal(map[string]any{"groups": groups})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "rules.yaml"), out, 0o600); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join("testdata", tests))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "rules_test.yaml"), raw, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"check", "rules", "rules.yaml"}, {"test", "rules", "rules_test.yaml"}} {
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("promtool %v: %v\n%s", args, err, b)
		}
	}
}

// ruleTests is what the test reads of testdata/rules_test.yaml.
type ruleTests struct {
	Tests []struct {
		AlertRuleTest []struct {
			Alertname string `json:"alertname"`
			ExpAlerts []any  `json:"exp_alerts"`
		} `json:"alert_rule_test"`
	} `json:"tests"`
}

// testedAlerts reads testdata/tests and returns the alerts it tests firing
// and not firing.
func testedAlerts(t *testing.T, tests string) (firing, quiet map[string]bool) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", tests))
	if err != nil {
		t.Fatal(err)
	}
	var rt ruleTests
	if err := yaml.Unmarshal(raw, &rt); err != nil {
		t.Fatal(err)
	}
	firing, quiet = map[string]bool{}, map[string]bool{}
	for _, tc := range rt.Tests {
		for _, a := range tc.AlertRuleTest {
			if len(a.ExpAlerts) > 0 {
				firing[a.Alertname] = true
			} else {
				quiet[a.Alertname] = true
			}
		}
	}
	return firing, quiet
}

// Every alert is upstream's shape: its runbook, severity and health impact,
// and a unit test where it fires and one where it does not.
func TestEveryAlertHasARunbookAndIsTestedFiringAndNot(t *testing.T) {
	_, rules := prometheusRule(t)
	firing, quiet := testedAlerts(t, "rules_test.yaml")
	alerts := 0
	for _, r := range rules {
		if r.Alert == "" {
			continue
		}
		alerts++
		if want := "https://kubevirt.io/monitoring/runbooks/" + r.Alert; r.Annotations["runbook_url"] != want {
			t.Errorf("%s: runbook_url %q, want %q", r.Alert, r.Annotations["runbook_url"], want)
		}
		for _, k := range []string{"summary", "description"} {
			if r.Annotations[k] == "" {
				t.Errorf("%s: no %s annotation", r.Alert, k)
			}
		}
		if !slices.Contains([]string{"critical", "warning", "info"}, r.Labels["severity"]) ||
			!slices.Contains([]string{"critical", "warning", "none"}, r.Labels["operator_health_impact"]) ||
			r.Labels["kubernetes_operator_part_of"] != "kubevirt" ||
			r.Labels["kubernetes_operator_component"] != "hyperconverged-cluster-operator" {
			t.Errorf("%s: labels %v lack upstream's severity, operator_health_impact or kubernetes_operator_* labels", r.Alert, r.Labels)
		}
		if !firing[r.Alert] || !quiet[r.Alert] {
			t.Errorf("%s: testdata/rules_test.yaml tests it firing %v, not firing %v; want both", r.Alert, firing[r.Alert], quiet[r.Alert])
		}
	}
	if alerts < 5 {
		t.Errorf("%d alerts read; the PrometheusRule is not what this test expects", alerts)
	}
}

// The rules read only kubevirt_hco_* metrics that the operator registers:
// a renamed metric must not leave an alert that never fires.
func TestRulesReadOnlyMetricsTheOperatorExposes(t *testing.T) {
	exposed := map[string]bool{}
	m, err := hcometrics.NewMetrics(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	collectors := []prometheus.Collector{m.OutOfBandModifications, m.UnsafeModifications, m.SystemHealthStatus, m.SingleStackIPv6, m.MisconfiguredDescheduler,
		hcometrics.NewHyperConvergedCollector(nil, nil, types.NamespacedName{})}
	fqName := regexp.MustCompile(`fqName: "([^"]+)"`)
	for _, c := range collectors {
		ch := make(chan *prometheus.Desc, 10)
		c.Describe(ch)
		close(ch)
		for d := range ch {
			if match := fqName.FindStringSubmatch(d.String()); match != nil {
				exposed[match[1]] = true
			}
		}
	}
	for _, name := range []string{"kubevirt_hco_hyperconverged_cr_exists", "kubevirt_hco_out_of_band_modifications_total"} {
		if !exposed[name] {
			t.Fatalf("%s not among the operator's metrics %v: the test reads them wrong", name, exposed)
		}
	}
	_, rules := prometheusRule(t)
	// PromQL names (recording rules' names hold colons).
	token := regexp.MustCompile(`[a-zA-Z_:][a-zA-Z0-9_:]*`)
	for _, r := range rules {
		for _, name := range token.FindAllString(r.Expr, -1) {
			if strings.HasPrefix(name, "kubevirt_hco_") && !exposed[name] {
				t.Errorf("%s reads %s, which the operator does not expose", fmt.Sprint(r.Alert, r.Record), name)
			}
		}
	}
}
