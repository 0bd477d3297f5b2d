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
	// RouteCertificates are the serving certificates of ComponentRoutes
	// that name one (servingCertKeyPairSecret), by Secret name, read from
	// the namespace openshift-config (OpenShift's ingress operator lets the
	// routes' consuming users read them).
	RouteCertificates map[string]RouteCertificate
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

// RouteCertificate is a component route's serving certificate and key
// (PEM), or why it cannot be used (Err: the Secret is missing, not of type
// kubernetes.io/tls, or holds no valid, current certificate and key).
type RouteCertificate struct {
	Cert, Key string
	Err       error
}

// certificateRecheck is how soon a component route's certificate that
// cannot be used is read again.
const certificateRecheck = 2 * time.Minute

// certificateUnusable reports whether a component route's certificate
// cannot be used (RouteCertificate.Err).
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
