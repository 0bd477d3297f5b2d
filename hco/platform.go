package hco

import (
	"fmt"
	"time"

	ocpconfigv1 "github.com/openshift/api/config/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Platform is what the operands are told of the cluster's platform
// (Facts.Platform), read as the facts are gathered; the zero value is plain
// Kubernetes, and an offline render's.
type Platform struct {
	// OpenShift: the cluster serves OpenShift's ClusterVersion, upstream
	// HCO's test (pkg/util/cluster.go at 03da3cf).
	OpenShift bool
	// IngressDomain is the default ingress's domain for routes' hosts
	// (OpenShift's Ingress "cluster" spec.domain); empty if not OpenShift or unset.
	IngressDomain string
	// ComponentRoutes are its spec.componentRoutes for the operator's
	// namespace: an admin's hostnames (and certificates) of the routes there.
	ComponentRoutes []ocpconfigv1.ComponentRouteSpec
	// RouteCertificates are the ComponentRoutes' servingCertKeyPairSecret
	// by Secret name, from openshift-config (readable by the routes' consuming users).
	RouteCertificates map[string]RouteCertificate
	// IPStack is the pod network's IP families (OpenShift's Network "cluster"
	// status.clusterNetwork) as upstream HCO names them (pkg/ipstacktype at
	// 03da3cf; an unknown network is IPv4SingleStack); empty if not OpenShift.
	IPStack string
	// DNSBaseDomain is the base domain of the secondary networks' DNS
	// (OpenShift's DNS "cluster" spec.baseDomain); empty if not OpenShift or unset.
	DNSBaseDomain string
}

// RouteCertificate is a component route's PEM certificate and key, or Err
// (the Secret missing, not kubernetes.io/tls, or no valid, current pair).
type RouteCertificate struct {
	Cert, Key string
	Err       error
}

// certificateRecheck is when an unusable route certificate is read again.
const certificateRecheck = 2 * time.Minute

// certificateUnusable reports whether a RouteCertificate has an Err.
func (p Platform) certificateUnusable() bool {
	for _, c := range p.RouteCertificates {
		if c.Err != nil {
			return true
		}
	}
	return false
}

// The IP stack types of Platform.IPStack, upstream's names.
const (
	IPv4SingleStack = "IPv4SingleStack"
	IPv6SingleStack = "IPv6SingleStack"
	DualStack       = "DualStack"
)

// ClusterConfigName is the name of OpenShift's cluster-wide configuration
// objects (config.openshift.io: ClusterVersion "version" aside).
const ClusterConfigName = "cluster"

var clusterVersionKind = schema.GroupKind{Group: ocpconfigv1.GroupName, Kind: "ClusterVersion"}

// OpenShift reports whether the cluster serves ClusterVersion (upstream HCO's
// test); one discovery request at most (the mapper remembers).
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

// addPlatformToScheme adds OpenShift's Ingress, Network and DNS configurations.
func addPlatformToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(ocpconfigv1.GroupVersion, &ocpconfigv1.Ingress{}, &ocpconfigv1.IngressList{},
		&ocpconfigv1.Network{}, &ocpconfigv1.NetworkList{}, &ocpconfigv1.DNS{}, &ocpconfigv1.DNSList{})
	metav1.AddToGroupVersion(s, ocpconfigv1.GroupVersion)
	return nil
}
