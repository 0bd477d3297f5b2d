package clustertls

import (
	"context"
	"crypto/tls"
	"time"

	ocpconfigv1 "github.com/openshift/api/config/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/tlsprofile"
)

// profileReadTimeout bounds the HyperConverged read of one TLS handshake:
// a cache read, which only waits when the cache has not synced yet.
const profileReadTimeout = 5 * time.Second

// ServeProfile returns a TLS option for controller-runtime's servers
// (webhook.Options.TLSOpts, metricsserver.Options.TLSOpts) that serves every
// new connection with the TLS profile of the HyperConverged key, as reader
// has it: spec.security.tlsSecurityProfile resolved as for the operands
// (tlsprofile.Resolve): the HyperConverged's profile; else, with
// clusterProfile (on OpenShift, see Served), the cluster's
// APIServer profile; else Intermediate. A changed profile applies to the next connection, without a
// restart; open connections keep theirs. Pass a cached reader (the
// manager's client or cache): a handshake reads it.
//
// A profile Go cannot serve (the webhook refuses one: no TLS 1.0–1.2
// cipher Go implements), or a failed read, serves Intermediate and logs
// why.
func ServeProfile(reader client.Reader, key types.NamespacedName, clusterProfile bool) func(*tls.Config) {
	log := logf.Log.WithName("tls-profile")
	return func(base *tls.Config) {
		base.GetConfigForClient = func(hello *tls.ClientHelloInfo) (*tls.Config, error) {
			ctx, cancel := context.WithTimeout(hello.Context(), profileReadTimeout)
			defer cancel()
			var profile, cluster *ocpconfigv1.TLSSecurityProfile
			hc := &hcov1.HyperConverged{}
			switch err := reader.Get(ctx, key, hc); {
			case err == nil:
				profile = hc.Spec.Security.TLSSecurityProfile
			case !apierrors.IsNotFound(err):
				log.Error(err, "read the HyperConverged for its TLS profile; serving Intermediate", "object", key)
			}
			if profile == nil && clusterProfile {
				var err error
				if cluster, err = Profile(ctx, reader); err != nil {
					log.Error(err, "read the cluster's TLS profile; serving Intermediate")
				}
			}
			minVersion, suites, err := tlsprofile.ForGoServer(tlsprofile.Resolve(profile, cluster))
			if err != nil {
				log.Error(err, "TLS profile not servable; serving Intermediate", "object", key)
				minVersion, suites, _ = tlsprofile.ForGoServer(nil)
			}
			// The base config as the server completed it (certificate
			// source, ALPN), with the profile's versions and suites.
			c := base.Clone()
			c.GetConfigForClient = nil
			c.MinVersion, c.CipherSuites = minVersion, suites
			return c, nil
		}
	}
}
