package descheduler

import (
	"context"
	"fmt"
	"slices"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	toolscache "k8s.io/client-go/tools/cache"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hcometrics"
)

// The KubeDescheduler singleton, read by name only while its API is served.
// +kubebuilder:rbac:groups=operator.openshift.io,resources=kubedeschedulers,resourceNames=cluster,verbs=list;watch

// The optional descheduler: OpenShift's Kube Descheduler Operator, whose
// singleton KubeDescheduler says which profiles the descheduler runs. As
// upstream HCO does (controllers/descheduler at 03da3cf), the operator
// reports in kubevirt_hco_misconfigured_descheduler whether it runs none of
// the profiles that know about KubeVirt (they evict a VM's pod by live
// migration), and the alert HCOMisconfiguredDescheduler fires on it. It only
// reads: the descheduler is the admin's.

// The KubeDescheduler's API, CRD and singleton (upstream's pkg/util/consts.go).
var kubeDeschedulers = schema.GroupVersionResource{Group: "operator.openshift.io", Version: "v1", Resource: "kubedeschedulers"}

const (
	kubeDeschedulerCRD   = "kubedeschedulers.operator.openshift.io"
	deschedulerNamespace = "openshift-kube-descheduler-operator"
	deschedulerName      = "cluster"
)

// kubeVirtDeschedulerProfiles are the profiles that evict a VM's pod by
// live migration (upstream's isDeschedulerMisconfigured).
var kubeVirtDeschedulerProfiles = []string{"KubeVirtRelieveAndMigrate", "DevKubeVirtRelieveAndMigrate", "LongLifecycle"}

// DeschedulerMisconfigured is upstream's rule: a KubeDescheduler (its wire
// form) is misconfigured for KubeVirt when spec.profiles names none of
// kubeVirtDeschedulerProfiles.
func DeschedulerMisconfigured(kd *unstructured.Unstructured) bool {
	profiles, _, _ := unstructured.NestedStringSlice(kd.Object, "spec", "profiles")
	return !slices.ContainsFunc(profiles, func(p string) bool { return slices.Contains(kubeVirtDeschedulerProfiles, p) })
}

// Extension keeps kubevirt_hco_misconfigured_descheduler (hco.Extension).
type Extension struct{ hco.NoExtension }

var _ hco.Extension = Extension{}

// New returns the extension.
func New() Extension { return Extension{} }

// Setup implements hco.Extension: the watch, on the elected replica.
func (Extension) Setup(mgr ctrl.Manager, _ hco.Install, metrics *hcometrics.Metrics) ([]hco.Watch, error) {
	c, err := dynamic.NewForConfigAndClient(mgr.GetConfig(), mgr.GetHTTPClient())
	if err != nil {
		return nil, fmt.Errorf("descheduler client: %w", err)
	}
	return nil, mgr.Add(&deschedulerWatch{crds: mgr.GetCache(), client: c, gauge: metrics.MisconfiguredDescheduler, log: mgr.GetLogger().WithName("descheduler")})
}

// deschedulerWatch keeps the gauge equal to DeschedulerMisconfigured of
// the KubeDescheduler singleton, 0 while there is none. It watches the
// singleton (one list and one watch) only while its CRD exists, which it
// learns from the CustomResourceDefinitions the reconciler watches anyway:
// a cluster without the descheduler costs no request. It runs on the
// elected replica, as upstream's controller does.
type deschedulerWatch struct {
	crds   cache.Cache
	client dynamic.Interface
	gauge  prometheus.Gauge
	log    logr.Logger
}

// Start implements manager.Runnable.
func (w *deschedulerWatch) Start(ctx context.Context) error {
	crds, err := w.crds.GetInformer(ctx, hco.CRDMetadata())
	if err != nil {
		return err
	}
	served := make(chan bool, 1)
	tell := func(obj any, present bool) {
		if m, ok := obj.(*metav1.PartialObjectMetadata); ok && m.Name == kubeDeschedulerCRD {
			select {
			case <-served:
			default:
			}
			served <- present
		}
	}
	reg, err := crds.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { tell(obj, true) },
		DeleteFunc: func(obj any) {
			if d, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			tell(obj, false)
		},
	})
	if err != nil {
		return err
	}
	defer func() { _ = crds.RemoveEventHandler(reg) }()

	var watching *singletonWatch
	defer func() { watching.stop() }()
	for {
		select {
		case <-ctx.Done():
			return nil
		case present := <-served:
			switch {
			case present && watching == nil:
				watching = w.start(ctx)
			case !present && watching != nil:
				watching.stop()
				watching = nil
				w.gauge.Set(0)
			}
		}
	}
}

// singletonWatch is a running watch of the KubeDescheduler.
type singletonWatch struct {
	cancel context.CancelFunc
	done   chan struct{}
}

func (w *deschedulerWatch) start(ctx context.Context) *singletonWatch {
	ctx, cancel := context.WithCancel(ctx)
	s := &singletonWatch{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		w.watch(ctx)
	}()
	return s
}

// stop ends the watch and waits for it; a nil watch is a no-op.
func (s *singletonWatch) stop() {
	if s != nil {
		s.cancel()
		<-s.done
	}
}

// watch follows the KubeDescheduler singleton until ctx ends.
func (w *deschedulerWatch) watch(ctx context.Context) {
	w.log.Info("the descheduler's API is served: watching its KubeDescheduler", "namespace", deschedulerNamespace, "name", deschedulerName)
	factory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(w.client, 0, deschedulerNamespace, func(o *metav1.ListOptions) {
		o.FieldSelector = "metadata.name=" + deschedulerName
	})
	informer := factory.ForResource(kubeDeschedulers).Informer()
	set := func(obj any) {
		if kd, ok := obj.(*unstructured.Unstructured); ok {
			w.gauge.Set(boolGauge(DeschedulerMisconfigured(kd)))
		}
	}
	if _, err := informer.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    set,
		UpdateFunc: func(_, obj any) { set(obj) },
		DeleteFunc: func(any) { w.gauge.Set(0) },
	}); err != nil {
		w.log.Error(err, "cannot watch the KubeDescheduler; kubevirt_hco_misconfigured_descheduler stays 0")
		return
	}
	factory.Start(ctx.Done())
	<-ctx.Done()
	factory.Shutdown()
}

func boolGauge(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
