package hco

import (
	"context"
	"fmt"
	"net"

	ocpconfigv1 "github.com/openshift/api/config/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Platform is what the operands are told of the cluster's platform
// (Facts.Platform), read by the reconciler from the cluster when the facts
// are gathered; the zero value is plain Kubernetes, and an offline render's.
type Platform struct {
	// OpenShift: the cluster serves OpenShift's ClusterVersion, upstream
	// HCO's test (pkg/util/cluster.go at 03da3cf).
	OpenShift bool
	// IngressDomain is the domain of the cluster's default ingress
	// (OpenShift's Ingress configuration "cluster", spec.domain), under
	// which routes get their host; empty when not OpenShift or not set.
	IngressDomain string
	// ComponentRoutes are that configuration's spec.componentRoutes for the
	// operator's namespace: an admin's custom hostnames (and serving
	// certificates) of the routes the operator makes there.
	ComponentRoutes []ocpconfigv1.ComponentRouteSpec
	// IPStack is the IP families of the cluster's pod network (OpenShift's
	// Network configuration "cluster", status.clusterNetwork), as upstream
	// HCO names them (pkg/ipstacktype at 03da3cf): IPv4SingleStack,
	// IPv6SingleStack or DualStack; empty when not OpenShift. Upstream
	// takes an unknown network for IPv4SingleStack.
	IPStack string
	// DNSBaseDomain is the cluster's base DNS domain (OpenShift's DNS
	// configuration "cluster", spec.baseDomain), which the secondary
	// networks' DNS serves under; empty when not OpenShift or not set.
	DNSBaseDomain string
}

// The IP stack types of Platform.IPStack, upstream's names.
const (
	IPv4SingleStack = "IPv4SingleStack"
	IPv6SingleStack = "IPv6SingleStack"
	DualStack       = "DualStack"
)

// IPStackOf names the IP families of the cluster networks as upstream
// HCO does (ipstacktype.Compute at 03da3cf): both families DualStack, only
// IPv6 IPv6SingleStack, else (none too) IPv4SingleStack.
func IPStackOf(networks []ocpconfigv1.ClusterNetworkEntry) string {
	v4, v6 := false, false
	for _, n := range networks {
		ip, _, err := net.ParseCIDR(n.CIDR)
		switch {
		case err != nil:
		case ip.To4() != nil:
			v4 = true
		default:
			v6 = true
		}
	}
	switch {
	case v4 && v6:
		return DualStack
	case v6:
		return IPv6SingleStack
	}
	return IPv4SingleStack
}

// ClusterConfigName is the name of OpenShift's cluster-wide configuration
// objects (config.openshift.io: ClusterVersion "version" aside).
const ClusterConfigName = "cluster"

var clusterVersionKind = schema.GroupKind{Group: ocpconfigv1.GroupName, Kind: "ClusterVersion"}

// OpenShift reports whether the cluster is OpenShift as upstream HCO tells:
// it serves the ClusterVersion kind. One discovery request at most (the
// mapper remembers).
func OpenShift(mapper meta.RESTMapper) (bool, error) {
	_, err := mapper.RESTMapping(clusterVersionKind, ocpconfigv1.GroupVersion.Version)
	switch {
	case err == nil:
		return true, nil
	case meta.IsNoMatchError(err):
		return false, nil
	}
	return false, fmt.Errorf("look up OpenShift's ClusterVersion kind (%s): %w", ocpconfigv1.GroupName, err)
}

// addPlatformToScheme adds the OpenShift configuration kinds the platform
// facts are read from: the Ingress, Network and DNS configurations.
func addPlatformToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(ocpconfigv1.GroupVersion, &ocpconfigv1.Ingress{}, &ocpconfigv1.IngressList{},
		&ocpconfigv1.Network{}, &ocpconfigv1.NetworkList{}, &ocpconfigv1.DNS{}, &ocpconfigv1.DNSList{})
	metav1.AddToGroupVersion(s, ocpconfigv1.GroupVersion)
	return nil
}

// platformObjects are the OpenShift configuration objects the platform
// facts are read from, all named ClusterConfigName; the cache holds them
// (by name) on OpenShift only, and the reconciler watches them.
func platformObjects() []client.Object {
	return []client.Object{&ocpconfigv1.Ingress{}, &ocpconfigv1.Network{}, &ocpconfigv1.DNS{}}
}

// PlatformOf reads the platform facts: on OpenShift (see OpenShift), the
// Ingress, Network and DNS configurations "cluster" from reader (the
// reconciler's cache, which holds them on OpenShift only; or past it, as
// the preview reads): the ingress domain, the component routes for
// namespace (the operator's), the pod network's IP stack and the base DNS
// domain. A configuration not found leaves its facts empty (IPStack
// IPv4SingleStack, as upstream takes it).
func PlatformOf(ctx context.Context, reader client.Reader, openShift bool, namespace string) (Platform, error) {
	if !openShift {
		return Platform{}, nil
	}
	p := Platform{OpenShift: true}
	get := func(kind string, obj client.Object) (bool, error) {
		switch err := reader.Get(ctx, client.ObjectKey{Name: ClusterConfigName}, obj); {
		case apierrors.IsNotFound(err):
			return false, nil
		case err != nil:
			return false, fmt.Errorf("read OpenShift's %s configuration %q: %w", kind, ClusterConfigName, err)
		}
		return true, nil
	}
	ing, network, dns := &ocpconfigv1.Ingress{}, &ocpconfigv1.Network{}, &ocpconfigv1.DNS{}
	found, err := get("Ingress", ing)
	if err != nil {
		return p, err
	}
	if found {
		p.IngressDomain = ing.Spec.Domain
		for _, r := range ing.Spec.ComponentRoutes {
			if r.Namespace == namespace {
				p.ComponentRoutes = append(p.ComponentRoutes, r)
			}
		}
	}
	if _, err := get("Network", network); err != nil {
		return p, err
	}
	p.IPStack = IPStackOf(network.Status.ClusterNetwork)
	if _, err := get("DNS", dns); err != nil {
		return p, err
	}
	p.DNSBaseDomain = dns.Spec.BaseDomain
	return p, nil
}
