package integration

import (
	"context"
	"fmt"
	"testing"

	ocpconfigv1 "github.com/openshift/api/config/v1"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kvv1 "kubevirt.io/api/core/v1"

	"github.com/hcokit/hcokit/api/v1beta1"
	"github.com/hcokit/hcokit/clustertls"
	"github.com/hcokit/hcokit/internal/testenv"
)

// TestClusterTLSProfileIsTheDefault: on a cluster that serves OpenShift's
// APIServer configuration (its CRD is installed here), a HyperConverged
// without a TLS profile gives the operands the cluster's, as upstream; its
// own profile wins; the cluster's going away leaves Intermediate.
func TestClusterTLSProfileIsTheDefault(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	waitKubeVirtTLS := func(what string, want kvv1.TLSProtocolVersion) {
		t.Helper()
		testenv.Eventually(t, what, func() error {
			kv := get(t, kvKey, &kvv1.KubeVirt{})
			tc := kv.Spec.Configuration.TLSConfiguration
			if tc == nil || tc.MinTLSVersion != want {
				return fmt.Errorf("KubeVirt tlsConfiguration %+v, want minTLSVersion %s", tc, want)
			}
			return nil
		})
	}
	createHC(t, nil)
	waitKubeVirtTLS("no profile anywhere: Intermediate", kvv1.VersionTLS12)

	cluster := &ocpconfigv1.APIServer{ObjectMeta: metav1.ObjectMeta{Name: clustertls.APIServerName}}
	cluster.Spec.TLSSecurityProfile = &ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileModernType, Modern: &ocpconfigv1.ModernTLSProfile{}}
	require.NoError(t, k.Create(ctx, cluster))
	t.Cleanup(func() {
		if err := k.Delete(context.Background(), cluster); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("delete APIServer: %v", err)
		}
	})
	waitKubeVirtTLS("the cluster's profile", kvv1.VersionTLS13)

	updateHC(t, func(hc *v1beta1.HyperConverged) {
		hc.Spec.TLSSecurityProfile = &ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileOldType, Old: &ocpconfigv1.OldTLSProfile{}}
	})
	waitKubeVirtTLS("the HyperConverged's own profile wins", kvv1.VersionTLS10)
	require.Equal(t, ocpconfigv1.TLSProfileOldType, getHC(t).Spec.TLSSecurityProfile.Type)

	updateHC(t, func(hc *v1beta1.HyperConverged) { hc.Spec.TLSSecurityProfile = nil })
	waitKubeVirtTLS("the cluster's again", kvv1.VersionTLS13)
	require.Nil(t, getHC(t).Spec.TLSSecurityProfile, "the cluster's profile is not written into the HyperConverged")

	require.NoError(t, k.Delete(ctx, cluster))
	waitKubeVirtTLS("the cluster's profile gone: Intermediate", kvv1.VersionTLS12)
}
