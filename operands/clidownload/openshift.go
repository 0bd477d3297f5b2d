package clidownload

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	ocpconfigv1 "github.com/openshift/api/config/v1"
	consolev1 "github.com/openshift/api/console/v1"
	routev1 "github.com/openshift/api/route/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
)

// On OpenShift the server is reached, as upstream HCO at 03da3cf has it
// (controllers/handlers/cliDownload.go, controllers/ingresscluster), through
// a Route of the same name and linked from the console's command-line tools
// page by a ConsoleCLIDownload.
const (
	// CLIDownloadName is the ConsoleCLIDownload's name, upstream's.
	CLIDownloadName = "virtctl-clidownloads-" + hcov1.HyperConvergedName
	// ComponentRoute is the name an admin gives the download route in the
	// Ingress configuration's spec.componentRoutes to choose its host.
	ComponentRoute = "virt-downloads"
	// openShiftComponent is the component label of the Route and the
	// ConsoleCLIDownload (upstream's AppComponentCompute).
	openShiftComponent = "compute"

	cliDescription = "The virtctl client is a supplemental command-line utility for managing virtualization resources from the command line."
	cliDisplayName = "virtctl - KubeVirt command line interface"
)

// Host is where the download server is reached on OpenShift, upstream's
// rule (controllers/ingresscluster at 03da3cf): by default
// <ObjectName>-<namespace>.<ingress domain>; the host an admin sets for
// the component route ComponentRoute in the operator's namespace instead,
// with the serving certificate its Secret holds, when it is under the
// ingress domain or names a Secret. A host outside the domain without a
// Secret, or a Secret that cannot be used, keeps the default host, and Err
// says why (the component route's Degraded condition).
type Host struct {
	Default, Current string
	// Cert and Key are the custom host's serving certificate and key
	// (PEM), when its component route names a Secret.
	Cert, Key string
	Err       error
}

// DownloadHost is the download route's Host on platform p for the
// operator namespace namespace.
func DownloadHost(p hco.Platform, namespace string) Host {
	def := ObjectName + "-" + namespace + "." + p.IngressDomain
	h := Host{Default: def, Current: def}
	i := slices.IndexFunc(p.ComponentRoutes, func(r ocpconfigv1.ComponentRouteSpec) bool {
		return r.Name == ComponentRoute && r.Namespace == namespace
	})
	if i < 0 {
		return h
	}
	r := p.ComponentRoutes[i]
	custom, secret := string(r.Hostname), r.ServingCertKeyPairSecret.Name
	if custom != "" && !strings.HasSuffix(custom, "."+p.IngressDomain) && secret == "" {
		h.Err = errors.New("must use a secret if the custom host is not a subdomain of the domain name")
		return h
	}
	if secret != "" {
		c, ok := p.RouteCertificates[secret]
		switch {
		case !ok:
			h.Err = fmt.Errorf("the serving certificate secret %s was not read", secret)
			return h
		case c.Err != nil:
			h.Err = c.Err
			return h
		}
		h.Cert, h.Key = c.Cert, c.Key
	}
	if custom != "" {
		h.Current = custom
	}
	return h
}

func routeType() metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: routev1.GroupVersion.String(), Kind: "Route"}
}

func cliDownloadType() metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: consolev1.GroupVersion.String(), Kind: "ConsoleCLIDownload"}
}

// BuildRoute returns upstream's Route to the download Service at host's
// current host: edge TLS (with host's certificate when it has one), plain
// HTTP redirected.
func BuildRoute(hc *hcov1.HyperConverged, env hco.Environment, host Host) *routev1.Route {
	route := &routev1.Route{
		TypeMeta:   routeType(),
		ObjectMeta: metav1.ObjectMeta{Name: ObjectName, Namespace: hc.Namespace, Labels: hco.Labels(hc, env, openShiftComponent)},
		Spec: routev1.RouteSpec{
			Host: host.Current,
			Port: &routev1.RoutePort{TargetPort: intstr.FromInt32(Port)},
			TLS: &routev1.TLSConfig{
				Termination:                   routev1.TLSTerminationEdge,
				InsecureEdgeTerminationPolicy: routev1.InsecureEdgeTerminationPolicyRedirect,
			},
			To: routev1.RouteTargetReference{Kind: "Service", Name: ObjectName, Weight: ptr.To[int32](100)},
		},
	}
	if host.Cert != "" && host.Key != "" {
		route.Spec.TLS.Certificate, route.Spec.TLS.Key = host.Cert, host.Key
	}
	return route
}

// BuildCLIDownload returns upstream's ConsoleCLIDownload: a link per
// platform to the binaries the server serves at host.
func BuildCLIDownload(hc *hcov1.HyperConverged, env hco.Environment, host string) *consolev1.ConsoleCLIDownload {
	base := "https://" + host
	links := []consolev1.CLIDownloadLink{
		{Href: base + "/amd64/linux/virtctl.tar.gz", Text: "Download virtctl for Linux for x86_64"},
		{Href: base + "/arm64/linux/virtctl.tar.gz", Text: "Download virtctl for Linux for ARM 64"},
		{Href: base + "/s390x/linux/virtctl.tar.gz", Text: "Download virtctl for Linux for IBM Z"},
		{Href: base + "/amd64/mac/virtctl.zip", Text: "Download virtctl for Mac for x86_64"},
		{Href: base + "/arm64/mac/virtctl.zip", Text: "Download virtctl for Mac for ARM 64"},
		{Href: base + "/amd64/windows/virtctl.zip", Text: "Download virtctl for Windows for x86_64"},
		{Href: base + "/arm64/windows/virtctl.zip", Text: "Download virtctl for Windows for ARM 64"},
	}
	return &consolev1.ConsoleCLIDownload{
		TypeMeta:   cliDownloadType(),
		ObjectMeta: metav1.ObjectMeta{Name: CLIDownloadName, Labels: hco.Labels(hc, env, openShiftComponent)},
		Spec:       consolev1.ConsoleCLIDownloadSpec{Description: cliDescription, DisplayName: cliDisplayName, Links: links},
	}
}

// AddToScheme implements hco.SchemeAdder: OpenShift's Route and
// ConsoleCLIDownload kinds, and only those of their groups.
func (Operand) AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(routev1.GroupVersion, &routev1.Route{}, &routev1.RouteList{})
	metav1.AddToGroupVersion(s, routev1.GroupVersion)
	s.AddKnownTypes(consolev1.GroupVersion, &consolev1.ConsoleCLIDownload{}, &consolev1.ConsoleCLIDownloadList{})
	metav1.AddToGroupVersion(s, consolev1.GroupVersion)
	return nil
}

// ConsumingServiceAccount is the operator's service account in the install
// (config/rbac), which the download's component route names as its
// consuming user: OpenShift's ingress operator lets it read the Secret of a
// custom host's certificate.
const ConsumingServiceAccount = "hco-operator"

// IngressStatusTarget is the list of component routes in the status of
// OpenShift's Ingress configuration "cluster", by name and namespace.
var IngressStatusTarget = hco.ListTarget{GVK: ocpconfigv1.GroupVersion.WithKind("Ingress"), Name: hco.ClusterConfigName,
	Path: []string{"status", "componentRoutes"}, Key: []string{"name", "namespace"}}

// ListTargets implements hco.ListMember: the Ingress configuration's
// status.componentRoutes.
func (Operand) ListTargets() []hco.ListTarget { return []hco.ListTarget{IngressStatusTarget} }

// ListItems implements hco.ListMember: on OpenShift, its component route's
// status as upstream writes it (the default and current hosts, the operator
// as consuming user, the Route as related object, Degraded while the
// admin's host cannot be used).
func (Operand) ListItems(hc *hcov1.HyperConverged, facts hco.Facts) []hco.ListItem {
	if !facts.Platform.OpenShift {
		return nil
	}
	host := DownloadHost(facts.Platform, hc.Namespace)
	degraded := metav1.Condition{Type: "Degraded", Status: metav1.ConditionFalse, Reason: "AsExpected", Message: "All is well"}
	if host.Err != nil {
		degraded = metav1.Condition{Type: "Degraded", Status: metav1.ConditionTrue, Reason: "WrongConfiguration", Message: host.Err.Error()}
	}
	status := ocpconfigv1.ComponentRouteStatus{
		Name:             ComponentRoute,
		Namespace:        hc.Namespace,
		DefaultHostname:  ocpconfigv1.Hostname(host.Default),
		CurrentHostnames: []ocpconfigv1.Hostname{ocpconfigv1.Hostname(host.Current)},
		ConsumingUsers:   []ocpconfigv1.ConsumingUser{ocpconfigv1.ConsumingUser("system:serviceaccount:" + hc.Namespace + ":" + ConsumingServiceAccount)},
		RelatedObjects:   []ocpconfigv1.ObjectReference{{Group: routev1.GroupName, Resource: "routes", Namespace: hc.Namespace, Name: ObjectName}},
		Conditions: []metav1.Condition{degraded,
			{Type: "Progressing", Status: metav1.ConditionFalse, Reason: "AsExpected", Message: "All is well"},
			{Type: "Available", Status: metav1.ConditionTrue, Reason: "AsExpected", Message: "All is well"}},
	}
	value, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&status)
	if err != nil {
		return nil
	}
	// No transition time: the reconciler keeps or stamps it.
	for _, c := range value["conditions"].([]any) {
		delete(c.(map[string]any), "lastTransitionTime")
	}
	return []hco.ListItem{{Target: IngressStatusTarget, Value: value}}
}
