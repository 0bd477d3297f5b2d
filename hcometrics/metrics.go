package hcometrics

import (
	"context"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/featuregates"
)

// Metrics are the reconciler's Prometheus metrics. The first four keep
// upstream HCO's names and labels so that existing alerts keep working; the
// facts about the HyperConverged itself are NewHyperConvergedCollector's.
type Metrics struct {
	// OutOfBandModifications counts operand objects put back after an edit
	// that did not come from the HyperConverged.
	OutOfBandModifications *prometheus.CounterVec
	// UnsafeModifications is the number of jsonpatch operations in effect, per annotation.
	UnsafeModifications *prometheus.GaugeVec
	// SystemHealthStatus is 0 healthy, 1 warning, 2 error.
	SystemHealthStatus prometheus.Gauge
	// SingleStackIPv6 is 1 on an OpenShift cluster whose network is
	// single-stack IPv6, else 0 (set once, at start).
	SingleStackIPv6 prometheus.Gauge
	// MisconfiguredDescheduler is 1 while the optional descheduler's
	// KubeDescheduler has none of the profiles that know KubeVirt, else 0.
	MisconfiguredDescheduler prometheus.Gauge
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
		SingleStackIPv6: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "kubevirt_hco_single_stack_ipv6",
			Help: "Indicates whether the underlying cluster is single stack IPv6 (1) or not (0)",
		}),
		MisconfiguredDescheduler: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "kubevirt_hco_misconfigured_descheduler",
			Help: "Indicates whether the optional descheduler is not properly configured (1) to work with KubeVirt or not (0)",
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
	for _, c := range []prometheus.Collector{m.OutOfBandModifications, m.UnsafeModifications, m.SystemHealthStatus, m.SingleStackIPv6, m.MisconfiguredDescheduler, m.OperandReconciles, m.OperandReconcileSeconds} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// scrapeReadTimeout bounds a scrape's wait for the cache (it waits only
// while the cache has not synced yet).
const scrapeReadTimeout = 5 * time.Second

// hyperConvergedCollector reports, at scrape time, what upstream HCO reports
// about the HyperConverged itself, read from the manager's cache.
type hyperConvergedCollector struct {
	reader  client.Reader
	elected <-chan struct{}
	key     types.NamespacedName

	exists, overcommit *prometheus.Desc
	// The golden images' architectures, as upstream reports them.
	multiArch, supportedArchs, archAnnotation *prometheus.Desc
}

// NewHyperConvergedCollector reports upstream's gauges about the
// HyperConverged named key, read from reader at scrape time:
// kubevirt_hco_hyperconverged_cr_exists (1 or 0) and, while it exists,
// kubevirt_hco_memory_overcommit_percentage and the golden images'
// architecture gauges (GoldenImageArchitecturesOf). reader must be the manager's
// cache (a scrape then makes no API request) and elected its Elected
// channel: a replica that is not the leader reports neither gauge, so that a
// standby, whose cache may not hold the HyperConverged, never says it is
// missing. A read that fails reports nothing rather than a wrong value.
func NewHyperConvergedCollector(reader client.Reader, elected <-chan struct{}, key types.NamespacedName) prometheus.Collector {
	return &hyperConvergedCollector{
		reader: reader, elected: elected, key: key,
		exists: prometheus.NewDesc("kubevirt_hco_hyperconverged_cr_exists",
			"Indicates whether the HyperConverged custom resource exists (1) or not (0).", nil, nil),
		overcommit: prometheus.NewDesc("kubevirt_hco_memory_overcommit_percentage",
			"Indicates the cluster-wide configured VM memory overcommit percentage.", nil, nil),
		multiArch: prometheus.NewDesc("kubevirt_hco_multi_arch_boot_images_enabled",
			"indicates if the Multi-Arch Boot Images feature is enabled (1) or not (0)", nil, nil),
		supportedArchs: prometheus.NewDesc("kubevirt_hco_dataimportcrontemplate_with_supported_architectures",
			"Indicates whether the DataImportCronTemplate has supported architectures (1) or not (0)", dictLabels, nil),
		archAnnotation: prometheus.NewDesc("kubevirt_hco_dataimportcrontemplate_with_architecture_annotation",
			"Indicates whether the DataImportCronTemplate has the ssp.kubevirt.io/dict.architectures annotation (1) or not (0)", dictLabels, nil),
	}
}

// dictLabels name a golden image in upstream's metrics.
var dictLabels = []string{"data_import_cron_name", "managed_data_source_name"}

// goldenImageDeployed is the condition of a golden image's status that is
// False when the cluster has none of its architectures (operands/ssp's
// ConditionDeployed, upstream's name).
const goldenImageDeployed = "Deployed"

// GoldenImageArchitectures is what upstream reports of the golden images'
// architectures, computed from the HyperConverged as the operator stored it
// (the golden images in status.dataImportCronTemplates, the workload
// architectures in status.nodeInfo), as upstream computes it (03da3cf:
// collectors/operator_collectors.go, golden-images validateMultiArchDict).
type GoldenImageArchitectures struct {
	// MultiArch is kubevirt_hco_multi_arch_boot_images_enabled; reported
	// (MultiArchReported) only on a cluster of more than one workload
	// architecture with golden images.
	MultiArch, MultiArchReported bool
	// Images, while the multi-architecture import is on: one entry per
	// golden image.
	Images []GoldenImageArchitecture
}

// GoldenImageArchitecture is one golden image's architecture metrics.
type GoldenImageArchitecture struct {
	Name, DataSource string
	// Annotated: the image lists its architectures
	// (kubevirt_hco_dataimportcrontemplate_with_architecture_annotation).
	Annotated bool
	// Supported: the cluster has one of them
	// (kubevirt_hco_dataimportcrontemplate_with_supported_architectures),
	// reported only for an annotated image.
	Supported bool
}

// GoldenImageArchitecturesOf computes the golden images' architecture
// metrics of hc.
func GoldenImageArchitecturesOf(hc *hcov1.HyperConverged) GoldenImageArchitectures {
	var out GoldenImageArchitectures
	enabled := featuregates.MultiArchBootImageImportEnabled(&hc.Spec)
	if len(hc.Status.NodeInfo.WorkloadsArchitectures) > 1 && len(hc.Status.DataImportCronTemplates) > 0 {
		out.MultiArch, out.MultiArchReported = enabled, true
	}
	if !enabled {
		return out
	}
	for _, d := range hc.Status.DataImportCronTemplates {
		img := GoldenImageArchitecture{Name: d.Name, Annotated: d.Status.OriginalSupportedArchitectures != ""}
		if d.Spec != nil {
			img.DataSource = d.Spec.ManagedDataSource
		}
		img.Supported = img.Annotated && !meta.IsStatusConditionFalse(d.Status.Conditions, goldenImageDeployed)
		out.Images = append(out.Images, img)
	}
	return out
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

var _ prometheus.Collector = (*hyperConvergedCollector)(nil)

func (c *hyperConvergedCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.exists
	ch <- c.overcommit
	ch <- c.multiArch
	ch <- c.supportedArchs
	ch <- c.archAnnotation
}

func (c *hyperConvergedCollector) Collect(ch chan<- prometheus.Metric) {
	select {
	case <-c.elected:
	default:
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), scrapeReadTimeout)
	defer cancel()
	hc := &hcov1.HyperConverged{}
	err := c.reader.Get(ctx, c.key, hc)
	switch {
	case apierrors.IsNotFound(err):
		ch <- prometheus.MustNewConstMetric(c.exists, prometheus.GaugeValue, 0)
	case err != nil:
		return
	default:
		ch <- prometheus.MustNewConstMetric(c.exists, prometheus.GaugeValue, 1)
		percent := hcov1.DefaultMemoryOvercommitPercentage
		if d := hc.Spec.Virtualization.HigherWorkloadDensity; d != nil && d.MemoryOvercommitPercentage != 0 {
			percent = d.MemoryOvercommitPercentage
		}
		ch <- prometheus.MustNewConstMetric(c.overcommit, prometheus.GaugeValue, float64(percent))
		golden := GoldenImageArchitecturesOf(hc)
		if golden.MultiArchReported {
			ch <- prometheus.MustNewConstMetric(c.multiArch, prometheus.GaugeValue, boolValue(golden.MultiArch))
		}
		for _, img := range golden.Images {
			ch <- prometheus.MustNewConstMetric(c.archAnnotation, prometheus.GaugeValue, boolValue(img.Annotated), img.Name, img.DataSource)
			if img.Annotated {
				ch <- prometheus.MustNewConstMetric(c.supportedArchs, prometheus.GaugeValue, boolValue(img.Supported), img.Name, img.DataSource)
			}
		}
	}
}

// HealthValue is the kubevirt_hco_system_health_status value of
// status.systemHealthStatus: 0 healthy, 1 warning, 2 error.
func HealthValue(h string) float64 {
	switch strings.ToLower(h) {
	case hcov1.SystemHealthHealthy:
		return 0
	case hcov1.SystemHealthWarning:
		return 1
	}
	return 2
}
