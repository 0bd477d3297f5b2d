package manager

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
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/clustertls"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hco/internal/restmapping"
	"github.com/hcokit/hcokit/hco/internal/served"
	"github.com/hcokit/hcokit/hcometrics"
	"github.com/hcokit/hcokit/wireform"
)

// Options configures New.
type Options struct {
	// Manager are controller-runtime's options. Scheme is required; Cache is
	// replaced by CacheOptions; health and readiness checks are added.
	Manager ctrl.Options
	// Metrics registers the metrics; nil: controller-runtime's metrics.Registry (served).
	Metrics prometheus.Registerer
	// Extensions are the features outside the core to run (extensions.Stock
	// is the stock binary's set); none: the core alone.
	Extensions []hco.Extension
}

// New creates a manager caching only what the operator manages
// (namespaced objects of env.Namespace and OtherNamespacer namespaces,
// HyperConvergeds of all), with its reconciler and ping health checks.
func New(cfg *rest.Config, reg *hco.Registry, env hco.Environment, opts Options) (ctrl.Manager, *hco.Reconciler, error) {
	mo := opts.Manager
	if mo.Scheme == nil {
		return nil, nil, fmt.Errorf("manager.New: Options.Manager.Scheme is required (see hco.NewScheme)")
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
	in := hco.Install{Env: env, Registry: reg, Scheme: mo.Scheme}
	mo.NewCache = func(cfg *rest.Config, opts cache.Options) (cache.Cache, error) {
		var err error
		if in.ClusterTLS, err = clustertls.Served(opts.Mapper); err != nil {
			return nil, err
		}
		if in.OpenShift, err = hco.OpenShift(opts.Mapper); err != nil {
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
			if o, ok := op.(hco.OpenShiftOnly); ok && o.OpenShiftOnly() {
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
	var watches []hco.Watch
	for _, ext := range opts.Extensions {
		w, err := ext.Setup(mgr, in, metrics)
		if err != nil {
			return nil, nil, err
		}
		watches = append(watches, w...)
	}
	r, err := hco.NewReconciler(mgr, reg, env, hco.ReconcilerOptions{Metrics: metrics, Platform: &in, Extensions: opts.Extensions, Watches: watches})
	if err != nil {
		return nil, nil, err
	}
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

// CacheScope names the optional objects the cache holds besides the
// operator's own.
type CacheScope struct {
	// ClusterTLS: the cluster serves OpenShift's APIServer configuration,
	// whose TLS profile is the operands' when the HyperConverged has none.
	ClusterTLS bool
	// Extra are what the extensions hold (Extension.Cached).
	Extra map[client.Object]cache.ByObject
	// OtherNamespaces are, for namespaced operand kinds, the namespaces
	// besides the operator's where the cache holds the operator's objects
	// of that kind too (Registry.OtherNamespaces; the OtherNamespacer
	// operands'); AnyNamespace: in every namespace.
	OtherNamespaces map[schema.GroupVersionKind][]string
}

// CacheOptions restricts the manager's cache to what the operator manages:
// objects carrying the managed-by label (the operand kinds, whichever are
// served, now or later: see notServed), namespaced ones in namespace only,
// held in their wire form (unstructured, so that no field is lost because a
// Go type lacks it) with only the operator's own managedFields entries
// (they say which labels and annotations it set); the HyperConverged, from
// every namespace (one outside namespace is marked as ignored); the names
// of the CustomResourceDefinitions (an operand API comes or goes); and,
// what scope names of the cluster's optional objects (CacheScope), and
// the operator's objects of the kinds scope names in the namespaces it
// names for them. The Nodes are not in the cache: the reconciler keeps
// their names and labels in its own compact node index. Nothing else (Pods,
// Secrets, VirtualMachines, DataVolumes, unlabelled ConfigMaps) is cached,
// and reading a kind the cache does not hold is an error, not a new
// informer (a kind whose API is gone would block the reader on its first
// list).
//
// Objects of the operand kinds are not copied on read
// (UnsafeDisableDeepCopy): every reconcile reads all of them, and copying
// them was a tenth of its CPU. Whoever reads one through the manager's
// client or cache must DeepCopy it before changing it. The HyperConverged,
// the CRDs and the APIServer configuration are copied as usual.
func CacheOptions(s *runtime.Scheme, namespace string, scope CacheScope) cache.Options {
	everything := labels.Everything()
	copied := ptr.To(false)
	byObject := map[client.Object]cache.ByObject{
		&hcov1.HyperConverged{}: {Label: everything, Namespaces: map[string]cache.Config{cache.AllNamespaces: {}},
			Transform: cache.TransformStripManagedFields(), UnsafeDisableDeepCopy: copied},
		hco.CRDMetadata(): {Label: everything, Transform: served.KeepCRDName, UnsafeDisableDeepCopy: copied},
	}
	if scope.ClusterTLS {
		byObject[&ocpconfigv1.APIServer{}] = cache.ByObject{Label: everything, Transform: cache.TransformStripManagedFields(), UnsafeDisableDeepCopy: copied}
	}
	// One entry per kind: two extensions that hold one (the Ingress
	// configuration, by name, for the platform facts and the shared lists)
	// hold it alike: either entry will do.
	held := map[schema.GroupVersionKind]bool{}
	for obj, entry := range scope.Extra {
		gvk, err := apiutil.GVKForObject(obj, s)
		if err != nil || held[gvk] {
			continue
		}
		held[gvk] = true
		byObject[obj] = entry
	}
	for gvk, others := range scope.OtherNamespaces {
		namespaces := map[string]cache.Config{}
		for _, ns := range hco.ListNamespaces(true, namespace, others) {
			namespaces[ns] = cache.Config{}
		}
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		// The managed-by selector, transform and no-copy of the defaults.
		byObject[u] = cache.ByObject{Namespaces: namespaces}
	}
	return cache.Options{
		Scheme:                       s,
		DefaultNamespaces:            map[string]cache.Config{namespace: {}},
		DefaultLabelSelector:         hco.ManagedSelector(),
		DefaultTransform:             wireform.OwnManagedFields(hco.FieldOwner),
		DefaultUnsafeDisableDeepCopy: ptr.To(true),
		ByObject:                     byObject,
		ReaderFailOnMissingInformer:  true,
	}
}
