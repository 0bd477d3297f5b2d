// Package hcometrics defines the operator's Prometheus metrics: the
// reconciler's instruments (Metrics; upstream HCO's names and labels where
// upstream has the metric, so that existing alerts keep working, and
// hcokit_* for the per-operand reconciles) and, read at scrape time, the
// gauges upstream reports about the HyperConverged itself
// (NewHyperConvergedCollector). manager.New registers both.
//
// What it must not do: a scrape never makes an API request (the collector
// reads the manager's cache) and never reports a value it does not know (a
// standby replica, or a failed read, reports nothing).
package hcometrics
