package hco

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net"
	"time"

	ocpconfigv1 "github.com/openshift/api/config/v1"
	corev1 "k8s.io/api/core/v1"
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

// RouteCertificatesNamespace is where OpenShift's component routes' serving
// certificates are kept.
const RouteCertificatesNamespace = "openshift-config"

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
// domain; and, from secrets (past the cache; nil: not read), the serving
// certificates the component routes name. A configuration not found leaves
// its facts empty (IPStack IPv4SingleStack, as upstream takes it).
func PlatformOf(ctx context.Context, reader, secrets client.Reader, openShift bool, namespace string) (Platform, error) {
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
			if r.Namespace != namespace {
				continue
			}
			p.ComponentRoutes = append(p.ComponentRoutes, r)
			if name := r.ServingCertKeyPairSecret.Name; name != "" && secrets != nil {
				if p.RouteCertificates == nil {
					p.RouteCertificates = map[string]RouteCertificate{}
				}
				c, err := routeCertificate(ctx, secrets, name)
				if err != nil {
					return p, err
				}
				p.RouteCertificates[name] = c
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

// routeCertificate reads the Secret name in RouteCertificatesNamespace and
// checks it as upstream HCO does (controllers/ingresscluster at 03da3cf):
// of type kubernetes.io/tls, with a PEM certificate valid now and a PEM
// private key (PKCS#8, PKCS#1 or EC). A Secret missing or not readable (the
// ingress operator has not granted the route's consuming user access yet)
// or not usable is the certificate's Err; any other failure to read it is
// the error, so that nothing is built from a passing fault.
func routeCertificate(ctx context.Context, secrets client.Reader, name string) (RouteCertificate, error) {
	s := &corev1.Secret{}
	if err := secrets.Get(ctx, client.ObjectKey{Namespace: RouteCertificatesNamespace, Name: name}, s); err != nil {
		if apierrors.IsNotFound(err) || apierrors.IsForbidden(err) {
			return RouteCertificate{Err: fmt.Errorf("can't get secret %s; %v", name, err)}, nil
		}
		return RouteCertificate{}, fmt.Errorf("read the serving certificate Secret %s/%s of a component route: %w", RouteCertificatesNamespace, name, err)
	}
	if s.Type != corev1.SecretTypeTLS {
		return RouteCertificate{Err: fmt.Errorf("non-TLS secret")}, nil
	}
	crt, ok1 := s.Data[corev1.TLSCertKey]
	key, ok2 := s.Data[corev1.TLSPrivateKeyKey]
	if !ok1 || !ok2 {
		return RouteCertificate{Err: fmt.Errorf("wrong TLS secret")}, nil
	}
	block, _ := pem.Decode(crt)
	if block == nil {
		return RouteCertificate{Err: fmt.Errorf("failed to decode certificate PEM")}, nil
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return RouteCertificate{Err: err}, nil
	}
	switch now := time.Now(); {
	case now.After(cert.NotAfter):
		return RouteCertificate{Err: fmt.Errorf("custom TLS certificate is expired")}, nil
	case now.Before(cert.NotBefore):
		return RouteCertificate{Err: fmt.Errorf("custom TLS certificate is not valid yet")}, nil
	}
	kb, _ := pem.Decode(key)
	if kb == nil {
		return RouteCertificate{Err: fmt.Errorf("failed to decode key PEM")}, nil
	}
	if _, err := x509.ParsePKCS8PrivateKey(kb.Bytes); err != nil {
		if _, err := x509.ParsePKCS1PrivateKey(kb.Bytes); err != nil {
			if _, err := x509.ParseECPrivateKey(kb.Bytes); err != nil {
				return RouteCertificate{Err: fmt.Errorf("block %s is not valid key PEM", kb.Type)}, nil
			}
		}
	}
	return RouteCertificate{Cert: string(crt), Key: string(key)}, nil
}
