// Package monitoring checks the shipped PrometheusRule
// (config/prometheus/prometheus_rule.yaml, the only copy of the alerts and
// recording rules) with Prometheus' own promtool: `promtool check rules` and
// the unit tests in testdata/rules_test.yaml, which give every alert a case
// where it fires and one where it does not. It holds the rules equal to
// upstream HCO's, rule for rule (upstream's own output at 03da3cf, captured
// in testdata/upstream-03da3cf), and checks that they read only hcokit
// metrics the operator registers, and that every alert names its runbook.
// The same for OpenShift's cluster alerts (config/openshift).
//
// promtool comes from Debian's prometheus package (apt-get install
// prometheus; .ci/run installs it). Outside CI the promtool tests skip when
// it is missing; with CI=true that is a failure.
//
// It holds tests only: nothing may import it.
package monitoring
