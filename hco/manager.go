package hco

import (
	"context"
	"crypto/tls"
	"fmt"
	"maps"
	"net/http"
	"slices"

	ocpconfigv1 "github.com/openshift/api/config/v1"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/clustertls"
	"github.com/hcokit/hcokit/hco/internal/restmapping"
	"github.com/hcokit/hcokit/hcometrics"
)

// NewScheme returns a scheme with the client-go types, the HyperConverged
// and whatever the adders register (the operands' types).
func NewScheme(adders ...func(*runtime.Scheme) error) (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	for _, add := range append([]func(*runtime.Scheme) error{clientgoscheme.AddToScheme, hcov1.AddToScheme, clustertls.AddToScheme, addPlatformToScheme}, adders...) {
		if err := add(s); err != nil {
			return nil, fmt.Errorf("build scheme: %w", err)
		}
	}
	return s, nil
}

// ManagerOptions configures NewManager.
type ManagerOptions struct {
	// Manager are controller-runtime's options. Scheme is required; Cache is
	// replaced by CacheOptions; health and readiness checks are added.
	Manager ctrl.Options
	// Metrics registers the metrics; nil: controller-runtime's metrics.Registry (served).
	Metrics prometheus.Registerer
	// Extensions are the features outside the core to run (extensions.Stock
	// is the stock binary's set); none: the core alone.
	Extensions []Extension
}

// NewManager creates a manager caching only what the operator manages
// (namespaced objects of env.Namespace and OtherNamespacer namespaces,
// HyperConvergeds of all), with its reconciler and ping health checks.
func NewManager(cfg *rest.Config, reg *Registry, env Environment, opts ManagerOptions) (ctrl.Manager, *Reconciler, error) {
	mo := opts.Manager
	if mo.Scheme == nil {
		return nil, nil, fmt.Errorf("hco.NewManager: ManagerOptions.Manager.Scheme is required (see hco.NewScheme)")
	}
	// The cache's content depends on whether the cluster serves OpenShift's
	// APIServer configuration, which the REST mapper tells as it is made.
	newCache := mo.NewCache
	if newCache == nil {
		newCache = cache.New
	}
	newMapper := mo.MapperProvider
	if newMapper == nil {
		newMapper = apiutil.NewDynamicRESTMapper
	}
	mo.MapperProvider = func(cfg *rest.Config, c *http.Client) (meta.RESTMapper, error) {
		m, err := newMapper(cfg, c)
		if err != nil {
			return nil, err
		}
		return restmapping.Remembering(m), nil
	}
	extensions := opts.Extensions
	in := Install{Env: env, Registry: reg, Scheme: mo.Scheme}
	mo.NewCache = func(cfg *rest.Config, opts cache.Options) (cache.Cache, error) {
		var err error
		if in.ClusterTLS, err = clustertls.Served(opts.Mapper); err != nil {
			return nil, err
		}
		if in.OpenShift, err = OpenShift(opts.Mapper); err != nil {
			return nil, err
		}
		in.Mapper = opts.Mapper
		scope := CacheScope{ClusterTLS: in.ClusterTLS, OtherNamespaces: reg.OtherNamespaces(env.Namespace, in.OpenShift),
			Extra: map[client.Object]cache.ByObject{}}
		for _, ext := range extensions {
			maps.Copy(scope.Extra, ext.Cached(in))
		}
		defaults := CacheOptions(mo.Scheme, env.Namespace, scope)
		defaults.HTTPClient, defaults.Mapper = opts.HTTPClient, opts.Mapper
		return newCache(cfg, defaults)
	}
	// The metrics endpoint (HTTPS) follows the HyperConverged's TLS profile,
	// read through the manager once it exists, first at the first handshake.
	var serveTLSProfile func(*tls.Config)
	mo.Metrics.TLSOpts = append(slices.Clone(mo.Metrics.TLSOpts), func(c *tls.Config) { serveTLSProfile(c) })
	mgr, err := ctrl.NewManager(cfg, mo)
	if err != nil {
		return nil, nil, fmt.Errorf("create manager: %w", err)
	}
	if !in.OpenShift {
		// OpenShiftOnly operands are left out: kinds unwatched, nothing asked.
		for _, op := range reg.Operands() {
			if openShiftOnly(op) {
				if err := reg.Disable(op.Name()); err != nil {
					return nil, nil, err
				}
			}
		}
	}
	// The TLS profile's sources, read by every replica (the metrics
	// endpoint), not only by the elected one whose controller watches them.
	profileSources := []client.Object{&hcov1.HyperConverged{}}
	if in.ClusterTLS {
		profileSources = append(profileSources, &ocpconfigv1.APIServer{})
	}
	for _, obj := range profileSources {
		if _, err := mgr.GetCache().GetInformer(context.Background(), obj, cache.BlockUntilSynced(false)); err != nil {
			return nil, nil, fmt.Errorf("watch %T: %w", obj, err)
		}
	}
	registerer := opts.Metrics
	if registerer == nil {
		registerer = crmetrics.Registry
	}
	metrics, err := hcometrics.NewMetrics(registerer)
	if err != nil {
		return nil, nil, fmt.Errorf("register metrics: %w", err)
	}
	hcKey := types.NamespacedName{Namespace: env.Namespace, Name: hcov1.HyperConvergedName}
	if err := registerer.Register(hcometrics.NewHyperConvergedCollector(mgr.GetCache(), mgr.Elected(), hcKey)); err != nil {
		return nil, nil, fmt.Errorf("register metrics: %w", err)
	}
	var watches []Watch
	for _, ext := range opts.Extensions {
		w, err := ext.Setup(mgr, in, metrics)
		if err != nil {
			return nil, nil, err
		}
		watches = append(watches, w...)
	}
	r, err := NewReconciler(mgr, reg, env, metrics)
	if err != nil {
		return nil, nil, err
	}
	r.clusterTLS, r.openShift, r.platformKnown = in.ClusterTLS, in.OpenShift, true
	r.extensions, r.extensionWatches = opts.Extensions, watches
	if err := r.SetupWithManager(mgr); err != nil {
		return nil, nil, fmt.Errorf("set up HyperConverged controller: %w", err)
	}
	serveTLSProfile = clustertls.ServeProfile(mgr.GetCache(), hcKey, in.ClusterTLS)
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return nil, nil, err
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		return nil, nil, err
	}
	return mgr, r, nil
}
