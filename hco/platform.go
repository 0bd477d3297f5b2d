package hco

import (
	"context"
	"fmt"

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
// facts are read from: the Ingress configuration.
func addPlatformToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(ocpconfigv1.GroupVersion, &ocpconfigv1.Ingress{}, &ocpconfigv1.IngressList{})
	metav1.AddToGroupVersion(s, ocpconfigv1.GroupVersion)
	return nil
}

// PlatformOf reads the platform facts: on OpenShift (see OpenShift), the
// Ingress configuration "cluster" from reader (the reconciler's cache, which
// holds it on OpenShift only; or past it, as the preview reads), its
// component routes for namespace (the operator's).
func PlatformOf(ctx context.Context, reader client.Reader, openShift bool, namespace string) (Platform, error) {
	if !openShift {
		return Platform{}, nil
	}
	p := Platform{OpenShift: true}
	ing := &ocpconfigv1.Ingress{}
	switch err := reader.Get(ctx, client.ObjectKey{Name: ClusterConfigName}, ing); {
	case apierrors.IsNotFound(err):
		return p, nil
	case err != nil:
		return p, fmt.Errorf("read OpenShift's Ingress configuration %q: %w", ClusterConfigName, err)
	}
	p.IngressDomain = ing.Spec.Domain
	for _, r := range ing.Spec.ComponentRoutes {
		if r.Namespace == namespace {
			p.ComponentRoutes = append(p.ComponentRoutes, r)
		}
	}
	return p, nil
}
