package openshift

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
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	utilnet "k8s.io/utils/net"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hcometrics"
)

// Extension gathers the OpenShift platform facts (hco.FactGatherer) and
// reports kubevirt_hco_single_stack_ipv6 (hco.Extension).
type Extension struct{ hco.NoExtension }

var (
	_ hco.Extension    = Extension{}
	_ hco.FactGatherer = Extension{}
)

// New returns the extension.
func New() Extension { return Extension{} }

// Cached implements hco.Extension: on OpenShift, its Ingress, Network and
// DNS configurations, by name.
func (Extension) Cached(cluster hco.Install) map[client.Object]cache.ByObject {
	if !cluster.OpenShift {
		return nil
	}
	out := map[client.Object]cache.ByObject{}
	for _, obj := range platformObjects() {
		out[obj] = cache.ByObject{Label: labels.Everything(), Field: fields.OneTermEqualSelector("metadata.name", hco.ClusterConfigName),
			Transform: cache.TransformStripManagedFields(), UnsafeDisableDeepCopy: ptr.To(false)}
	}
	return out
}

// Setup implements hco.Extension: on OpenShift, a change of those
// configurations reconciles the HyperConverged; where the cluster serves
// OpenShift's APIServer configuration, the cluster network is read once,
// at start, as upstream reads it, for kubevirt_hco_single_stack_ipv6.
func (Extension) Setup(mgr ctrl.Manager, cluster hco.Install, metrics *hcometrics.Metrics) ([]hco.Watch, error) {
	if cluster.ClusterTLS {
		switch v6, err := singleStackIPv6(context.Background(), mgr.GetAPIReader()); {
		case err != nil:
			mgr.GetLogger().Error(err, "cannot tell whether the cluster network is single-stack IPv6; kubevirt_hco_single_stack_ipv6 stays 0")
		case v6:
			metrics.SingleStackIPv6.Set(1)
		}
	}
	if !cluster.OpenShift {
		return nil, nil
	}
	var out []hco.Watch
	for _, obj := range platformObjects() {
		out = append(out, hco.Watch{Object: obj})
	}
	return out, nil
}

// GatherFacts implements hco.FactGatherer: on OpenShift, Facts.Platform
// (PlatformOf, through s.Reader and, for the certificates, s.Direct).
func (Extension) GatherFacts(ctx context.Context, _ *hcov1.HyperConverged, s hco.FactSources, f *hco.Facts) error {
	if !s.OpenShift {
		return nil
	}
	p, err := PlatformOf(ctx, s.Reader, s.Direct, s.Env.Namespace)
	if err != nil {
		return err
	}
	f.Platform = p
	return nil
}

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
		return hco.DualStack
	case v6:
		return hco.IPv6SingleStack
	}
	return hco.IPv4SingleStack
}

// RouteCertificatesNamespace is where OpenShift's component routes' serving
// certificates are kept.
const RouteCertificatesNamespace = "openshift-config"

// platformObjects are the OpenShift configuration objects the platform
// facts are read from, all named hco.ClusterConfigName; the cache holds
// them (by name) on OpenShift only, and the reconciler watches them.
func platformObjects() []client.Object {
	return []client.Object{&ocpconfigv1.Ingress{}, &ocpconfigv1.Network{}, &ocpconfigv1.DNS{}}
}

// PlatformOf reads the platform facts of an OpenShift cluster: the
// Ingress, Network and DNS configurations "cluster" from reader (the
// reconciler's cache, which holds them on OpenShift only; or past it, as
// the preview reads): the ingress domain, the component routes for
// namespace (the operator's), the pod network's IP stack and the base DNS
// domain; and, from secrets (past the cache; nil: not read), the serving
// certificates the component routes name. A configuration not found leaves
// its facts empty (IPStack IPv4SingleStack, as upstream takes it).
func PlatformOf(ctx context.Context, reader, secrets client.Reader, namespace string) (hco.Platform, error) {
	p := hco.Platform{OpenShift: true}
	get := func(kind string, obj client.Object) (bool, error) {
		switch err := reader.Get(ctx, client.ObjectKey{Name: hco.ClusterConfigName}, obj); {
		case apierrors.IsNotFound(err):
			return false, nil
		case err != nil:
			return false, fmt.Errorf("read OpenShift's %s configuration %q: %w", kind, hco.ClusterConfigName, err)
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
					p.RouteCertificates = map[string]hco.RouteCertificate{}
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
func routeCertificate(ctx context.Context, secrets client.Reader, name string) (hco.RouteCertificate, error) {
	s := &corev1.Secret{}
	if err := secrets.Get(ctx, client.ObjectKey{Namespace: RouteCertificatesNamespace, Name: name}, s); err != nil {
		if apierrors.IsNotFound(err) || apierrors.IsForbidden(err) {
			return hco.RouteCertificate{Err: fmt.Errorf("can't get secret %s; %v", name, err)}, nil
		}
		return hco.RouteCertificate{}, fmt.Errorf("read the serving certificate Secret %s/%s of a component route: %w", RouteCertificatesNamespace, name, err)
	}
	if s.Type != corev1.SecretTypeTLS {
		return hco.RouteCertificate{Err: fmt.Errorf("non-TLS secret")}, nil
	}
	crt, ok1 := s.Data[corev1.TLSCertKey]
	key, ok2 := s.Data[corev1.TLSPrivateKeyKey]
	if !ok1 || !ok2 {
		return hco.RouteCertificate{Err: fmt.Errorf("wrong TLS secret")}, nil
	}
	block, _ := pem.Decode(crt)
	if block == nil {
		return hco.RouteCertificate{Err: fmt.Errorf("failed to decode certificate PEM")}, nil
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return hco.RouteCertificate{Err: err}, nil
	}
	switch now := time.Now(); {
	case now.After(cert.NotAfter):
		return hco.RouteCertificate{Err: fmt.Errorf("custom TLS certificate is expired")}, nil
	case now.Before(cert.NotBefore):
		return hco.RouteCertificate{Err: fmt.Errorf("custom TLS certificate is not valid yet")}, nil
	}
	kb, _ := pem.Decode(key)
	if kb == nil {
		return hco.RouteCertificate{Err: fmt.Errorf("failed to decode key PEM")}, nil
	}
	if _, err := x509.ParsePKCS8PrivateKey(kb.Bytes); err != nil {
		if _, err := x509.ParsePKCS1PrivateKey(kb.Bytes); err != nil {
			if _, err := x509.ParseECPrivateKey(kb.Bytes); err != nil {
				return hco.RouteCertificate{Err: fmt.Errorf("block %s is not valid key PEM", kb.Type)}, nil
			}
		}
	}
	return hco.RouteCertificate{Cert: string(crt), Key: string(key)}, nil
}

// singleStackIPv6 reports whether OpenShift's cluster network is
// single-stack IPv6, read past the cache from its Network configuration
// "cluster" (its wire form: the scheme need not know the kind); a cluster
// without one is not.
func singleStackIPv6(ctx context.Context, reader client.Reader) (bool, error) {
	network := &unstructured.Unstructured{}
	network.SetGroupVersionKind(ocpconfigv1.GroupVersion.WithKind("Network"))
	err := reader.Get(ctx, types.NamespacedName{Name: hco.ClusterConfigName}, network)
	switch {
	case apierrors.IsNotFound(err), meta.IsNoMatchError(err):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("read OpenShift's Network configuration: %w", err)
	}
	entries, _, _ := unstructured.NestedSlice(network.Object, "status", "clusterNetwork")
	return SingleStackIPv6(entries), nil
}

// SingleStackIPv6 is upstream's rule (pkg/util/cluster.go at 03da3cf): the
// cluster networks (status.clusterNetwork of OpenShift's Network
// configuration, in its wire form) are one, and an IPv6 one.
func SingleStackIPv6(clusterNetwork []any) bool {
	if len(clusterNetwork) != 1 {
		return false
	}
	entry, _ := clusterNetwork[0].(map[string]any)
	cidr, _ := entry["cidr"].(string)
	return utilnet.IsIPv6CIDRString(cidr)
}
