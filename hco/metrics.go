package hco

import (
	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the operator's Prometheus metrics. The first three keep
// upstream HCO's names and labels so that existing alerts keep working.
type Metrics struct {
	// OutOfBandModifications counts operand objects put back after an edit
	// that did not come from the HyperConverged.
	OutOfBandModifications *prometheus.CounterVec
	// UnsafeModifications is the number of jsonpatch operations in effect, per annotation.
	UnsafeModifications *prometheus.GaugeVec
	// SystemHealthStatus is 0 healthy, 1 warning, 2 error.
	SystemHealthStatus prometheus.Gauge
	// OperandReconciles counts per-operand reconciles by result.
	OperandReconciles *prometheus.CounterVec
	// OperandReconcileSeconds times per-operand reconciles.
	OperandReconcileSeconds *prometheus.HistogramVec
}

// NewMetrics creates the metrics and registers them with reg (in main,
// controller-runtime's metrics.Registry; in tests, a fresh registry).
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		OutOfBandModifications: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kubevirt_hco_out_of_band_modifications_total",
			Help: "Count of out-of-band modifications overwritten by the operator.",
		}, []string{"component_name"}),
		UnsafeModifications: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "kubevirt_hco_unsafe_modifications",
			Help: "Count of unsafe modifications in the HyperConverged annotations.",
		}, []string{"annotation_name"}),
		SystemHealthStatus: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "kubevirt_hco_system_health_status",
			Help: "Indicates whether the system health status is healthy (0), warning (1), or error (2).",
		}),
		OperandReconciles: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hcokit_operand_reconciles_total",
			Help: "Count of operand reconciles by operand and result (unchanged, created, updated, overwritten, deleted, invalid, error).",
		}, []string{"operand", "result"}),
		OperandReconcileSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "hcokit_operand_reconcile_duration_seconds",
			Help:    "Duration of operand reconciles.",
			Buckets: []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5},
		}, []string{"operand"}),
	}
	for _, c := range []prometheus.Collector{m.OutOfBandModifications, m.UnsafeModifications, m.SystemHealthStatus, m.OperandReconciles, m.OperandReconcileSeconds} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}
