package openshift

import (
	"context"
	"fmt"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hcostatus"
	"github.com/hcokit/hcokit/internal/testenv"
)

// platformProbe is a throwaway operand that writes the platform facts it is
// given into a ConfigMap, so that a test reads what an operand sees.
type platformProbe struct{}

const probeName = "platform-facts"

func (platformProbe) Name() string { return "platform-probe" }

func (platformProbe) Kinds() []client.Object {
	return []client.Object{&corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}}}
}

func (platformProbe) Desired(hc *hcov1.HyperConverged, facts hco.Facts) ([]client.Object, error) {
	var routes []string
	for _, r := range facts.Platform.ComponentRoutes {
		routes = append(routes, r.Name+"="+string(r.Hostname))
	}
	return []client.Object{&corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: probeName, Namespace: hc.Namespace, Labels: hco.Labels(hc, facts.Environment, "platform-probe")},
		Data: map[string]string{
			"openShift":       strconv.FormatBool(facts.Platform.OpenShift),
			"ingressDomain":   facts.Platform.IngressDomain,
			"componentRoutes": strings.Join(routes, ","),
			"ipStack":         facts.Platform.IPStack,
			"dnsBaseDomain":   facts.Platform.DNSBaseDomain,
		},
	}}, nil
}

func (platformProbe) Status([]client.Object) hcostatus.Component { return hcostatus.Component{} }

var ingressKind = schema.GroupVersionKind{Group: "config.openshift.io", Version: "v1", Kind: "Ingress"}

// route is a component route of the Ingress configuration; secret, when
// set, names its serving certificate's Secret in openshift-config.
type route struct{ name, namespace, hostname, secret string }

// setIngress creates or updates OpenShift's Ingress configuration "cluster"
// with domain and routes.
func setIngress(t *testing.T, domain string, routes ...route) {
	t.Helper()
	ctx := context.Background()
	spec := []any{}
	for _, r := range routes {
		r := map[string]any{"name": r.name, "namespace": r.namespace, "hostname": r.hostname, "secret": r.secret}
		if r["secret"] != "" {
			r["servingCertKeyPairSecret"] = map[string]any{"name": r["secret"]}
		}
		delete(r, "secret")
		spec = append(spec, r)
	}
	testenv.Eventually(t, "the Ingress configuration set", func() error {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(ingressKind)
		err := k.Get(ctx, client.ObjectKey{Name: hco.ClusterConfigName}, u)
		exists := err == nil
		if client.IgnoreNotFound(err) != nil {
			return err
		}
		u.SetName(hco.ClusterConfigName)
		u.Object["spec"] = map[string]any{"domain": domain, "componentRoutes": spec}
		if exists {
			return k.Update(ctx, u)
		}
		return k.Create(ctx, u)
	})
}

// probe waits until the probe operand's ConfigMap says want.
func probe(t *testing.T, want map[string]string) {
	t.Helper()
	testenv.Eventually(t, fmt.Sprintf("the operand given %v", want), func() error {
		cm := &corev1.ConfigMap{}
		if err := k.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: probeName}, cm); err != nil {
			return err
		}
		for key, v := range want {
			if cm.Data[key] != v {
				return fmt.Errorf("%s = %q, want %q", key, cm.Data[key], v)
			}
		}
		return nil
	})
}

// On a cluster that serves ClusterVersion, the operands are told it is
// OpenShift, with the Ingress configuration's domain and the component
// routes an admin set for the operator's namespace (another namespace's
// left out); a change of the Ingress configuration's routes reaches them
// without a restart.
func TestPlatformFactsFollowTheIngressConfiguration(t *testing.T) {
	env.Require(t)
	setIngress(t, "apps.example.com", route{"downloads", ns, "virtctl.example.com", ""}, route{"downloads", "another-install", "other.example.com", ""})
	testenv.CreateForTest(t, k, &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: ns}})
	probe(t, map[string]string{"openShift": "true", "ingressDomain": "apps.example.com", "componentRoutes": "downloads=virtctl.example.com"})

	// The domain is immutable once set (openshift/api's CRD).
	setIngress(t, "apps.example.com", route{"downloads", ns, "virtctl2.example.com", ""})
	probe(t, map[string]string{"openShift": "true", "ingressDomain": "apps.example.com", "componentRoutes": "downloads=virtctl2.example.com"})
}

// setConfig creates or updates OpenShift's configuration "cluster" of kind
// (config.openshift.io/v1) with spec and, unless nil, status (through the
// status subresource where the CRD has one).
func setConfig(t *testing.T, kind string, spec, status map[string]any) {
	t.Helper()
	ctx := context.Background()
	testenv.Eventually(t, "the "+kind+" configuration set", func() error {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(schema.GroupVersionKind{Group: "config.openshift.io", Version: "v1", Kind: kind})
		err := k.Get(ctx, client.ObjectKey{Name: hco.ClusterConfigName}, u)
		exists := err == nil
		if client.IgnoreNotFound(err) != nil {
			return err
		}
		u.SetName(hco.ClusterConfigName)
		u.Object["spec"] = spec
		if status != nil {
			u.Object["status"] = status
		}
		if exists {
			err = k.Update(ctx, u)
		} else {
			err = k.Create(ctx, u)
		}
		if err != nil || status == nil {
			return err
		}
		u.Object["status"] = status
		if err := k.Status().Update(ctx, u); !apierrors.IsNotFound(err) {
			return err
		}
		return nil
	})
}

// The pod network's IP families (the Network configuration's status) and
// the base DNS domain (the DNS configuration's spec) reach the operands,
// and follow a change without a restart.
func TestPlatformFactsFollowTheNetworkAndDNSConfigurations(t *testing.T) {
	env.Require(t)
	network := func(cidrs ...string) map[string]any {
		entries := []any{}
		for _, c := range cidrs {
			entries = append(entries, map[string]any{"cidr": c, "hostPrefix": int64(23)})
		}
		return map[string]any{"clusterNetwork": entries}
	}
	t.Cleanup(func() {
		for _, kind := range []string{"Network", "DNS"} {
			u := &unstructured.Unstructured{}
			u.SetGroupVersionKind(schema.GroupVersionKind{Group: "config.openshift.io", Version: "v1", Kind: kind})
			u.SetName(hco.ClusterConfigName)
			testenv.DeleteAndWait(t, k, u)
		}
	})
	setConfig(t, "Network", map[string]any{}, network("10.128.0.0/14"))
	setConfig(t, "DNS", map[string]any{"baseDomain": "example.com"}, nil)
	testenv.CreateForTest(t, k, &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: ns}})
	probe(t, map[string]string{"ipStack": hco.IPv4SingleStack, "dnsBaseDomain": "example.com"})

	setConfig(t, "Network", map[string]any{}, network("10.128.0.0/14", "fd01::/48"))
	setConfig(t, "DNS", map[string]any{"baseDomain": "other.example.com"}, nil)
	probe(t, map[string]string{"ipStack": hco.DualStack, "dnsBaseDomain": "other.example.com"})
}
