package clidownload

import (
	"strings"

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

// DownloadHost is the download route's host on platform p for the operator
// namespace namespace: the host an admin set for the component route
// ComponentRoute when it is under the ingress domain, else upstream's default
// <ObjectName>-<namespace>.<domain>. (A host outside the domain needs a
// serving certificate from a Secret in openshift-config, which upstream
// reads; this module does not, and keeps the default host then.)
func DownloadHost(p hco.Platform, namespace string) string {
	def := ObjectName + "-" + namespace + "." + p.IngressDomain
	for _, r := range p.ComponentRoutes {
		if r.Name == ComponentRoute && r.Namespace == namespace && strings.HasSuffix(string(r.Hostname), "."+p.IngressDomain) {
			return string(r.Hostname)
		}
	}
	return def
}

func routeType() metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: routev1.GroupVersion.String(), Kind: "Route"}
}

func cliDownloadType() metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: consolev1.GroupVersion.String(), Kind: "ConsoleCLIDownload"}
}

// BuildRoute returns upstream's Route to the download Service at host:
// edge TLS, plain HTTP redirected.
func BuildRoute(hc *hcov1.HyperConverged, env hco.Environment, host string) *routev1.Route {
	return &routev1.Route{
		TypeMeta:   routeType(),
		ObjectMeta: metav1.ObjectMeta{Name: ObjectName, Namespace: hc.Namespace, Labels: hco.Labels(hc, env, openShiftComponent)},
		Spec: routev1.RouteSpec{
			Host: host,
			Port: &routev1.RoutePort{TargetPort: intstr.FromInt32(Port)},
			TLS: &routev1.TLSConfig{
				Termination:                   routev1.TLSTerminationEdge,
				InsecureEdgeTerminationPolicy: routev1.InsecureEdgeTerminationPolicyRedirect,
			},
			To: routev1.RouteTargetReference{Kind: "Service", Name: ObjectName, Weight: ptr.To[int32](100)},
		},
	}
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
