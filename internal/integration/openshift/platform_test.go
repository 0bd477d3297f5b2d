package openshift

import (
	"context"
	"fmt"
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
		},
	}}, nil
}

func (platformProbe) Status([]client.Object) hcostatus.Component { return hcostatus.Component{} }

var ingressKind = schema.GroupVersionKind{Group: "config.openshift.io", Version: "v1", Kind: "Ingress"}

// route is a component route of the Ingress configuration.
type route struct{ name, namespace, hostname string }

// setIngress creates or updates OpenShift's Ingress configuration "cluster"
// with domain and routes.
func setIngress(t *testing.T, domain string, routes ...route) {
	t.Helper()
	ctx := context.Background()
	spec := []any{}
	for _, r := range routes {
		spec = append(spec, map[string]any{"name": r.name, "namespace": r.namespace, "hostname": r.hostname})
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
// left out); a change of the Ingress configuration reaches them without a
// restart.
func TestPlatformFactsFollowTheIngressConfiguration(t *testing.T) {
	env.Require(t)
	setIngress(t, "apps.example.com", route{"downloads", ns, "virtctl.example.com"}, route{"downloads", "another-install", "other.example.com"})
	testenv.CreateForTest(t, k, &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: ns}})
	probe(t, map[string]string{"openShift": "true", "ingressDomain": "apps.example.com", "componentRoutes": "downloads=virtctl.example.com"})

	setIngress(t, "apps.other.example.com")
	probe(t, map[string]string{"openShift": "true", "ingressDomain": "apps.other.example.com", "componentRoutes": ""})
}
