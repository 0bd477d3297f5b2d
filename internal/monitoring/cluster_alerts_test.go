package monitoring

import (
	"path/filepath"
	"testing"
)

// clusterAlerts is the OpenShift cluster alerts' manifest.
var clusterAlerts = filepath.Join("config", "openshift", "cluster_alerts.yaml")

// The cluster alerts shipped for OpenShift are upstream's, rule for rule
// (its observability controller's PrometheusRule at 03da3cf, captured in
// testdata/upstream-03da3cf); they pass `promtool check rules`, and each is
// tested firing and not firing (testdata/cluster_alerts_test.yaml).
func TestClusterAlerts(t *testing.T) {
	groups, rules := prometheusRuleAt(t, clusterAlerts)
	assertUpstreamGroups(t, groups, "cluster_alerts.yaml")
	runPromtool(t, groups, "cluster_alerts_test.yaml")
	firing, quiet := testedAlerts(t, "cluster_alerts_test.yaml")
	alerts := 0
	for _, r := range rules {
		if r.Alert == "" {
			continue
		}
		alerts++
		if !firing[r.Alert] || !quiet[r.Alert] {
			t.Errorf("%s: testdata/cluster_alerts_test.yaml tests it firing %v, not firing %v; want both", r.Alert, firing[r.Alert], quiet[r.Alert])
		}
	}
	if alerts != 8 {
		t.Errorf("%d cluster alerts, want upstream's 8", alerts)
	}
}
