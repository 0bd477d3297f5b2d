package clustertls

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

// APIServerName is the name of OpenShift's cluster-wide APIServer
// configuration (config.openshift.io/v1), whose spec.tlsSecurityProfile is
// the cluster's TLS profile.
const APIServerName = "cluster"

// AddToScheme adds OpenShift's APIServer configuration kind (and
// only it) to a scheme. NewScheme does.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(ocpconfigv1.GroupVersion, &ocpconfigv1.APIServer{}, &ocpconfigv1.APIServerList{})
	metav1.AddToGroupVersion(s, ocpconfigv1.GroupVersion)
	return nil
}

// Served reports whether the cluster serves OpenShift's
// APIServer configuration kind: on OpenShift, the TLS profile of a
// HyperConverged without one is the cluster's, as upstream HCO does.
func Served(mapper meta.RESTMapper) (bool, error) {
	_, err := mapper.RESTMapping(schema.GroupKind{Group: ocpconfigv1.GroupName, Kind: "APIServer"}, ocpconfigv1.GroupVersion.Version)
	switch {
	case err == nil:
		return true, nil
	case meta.IsNoMatchError(err):
		return false, nil
	default:
		return false, fmt.Errorf("look up the APIServer configuration kind (%s): %w", ocpconfigv1.GroupName, err)
	}
}

// ClusterTLSProfile reads the cluster's TLS profile from the APIServer
// configuration "cluster": nil when it has none or does not exist.
func Profile(ctx context.Context, reader client.Reader) (*ocpconfigv1.TLSSecurityProfile, error) {
	a := &ocpconfigv1.APIServer{}
	if err := reader.Get(ctx, client.ObjectKey{Name: APIServerName}, a); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("read the cluster's TLS profile (APIServer %s): %w", APIServerName, err)
	}
	return a.Spec.TLSSecurityProfile, nil
}
