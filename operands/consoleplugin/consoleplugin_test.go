package consoleplugin_test

import (
	"os"
	"path/filepath"
	"testing"

	ocpconfigv1 "github.com/openshift/api/config/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/extensions/openshift"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/internal/upstreamtest"
	"github.com/hcokit/hcokit/nodefacts"
	"github.com/hcokit/hcokit/operands/consoleplugin"
)

const (
	pluginImage = "quay.io/kubevirt-ui/kubevirt-plugin:v1.20.0"
	proxyImage  = "quay.io/kubevirt-ui/kubevirt-apiserver-proxy:v1.20.0"
)

func env() hco.Environment {
	return hco.Environment{Namespace: hcov1.DefaultNamespace, Version: "1.20.0",
		Images: map[string]string{consoleplugin.PluginImageKey: pluginImage, consoleplugin.ProxyImageKey: proxyImage}}
}

// readHC reads a HyperConverged of the test data, hcokit's defaults applied.
func readHC(t *testing.T, file string) *hcov1.HyperConverged {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "upstream-03da3cf", file))
	require.NoError(t, err)
	hc := &hcov1.HyperConverged{}
	require.NoError(t, yaml.UnmarshalStrict(raw, hc))
	return hc
}

// upstream reads the objects of a file of testdata/upstream-03da3cf, in
// order, without what the server sets.
func upstream(t *testing.T, file string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, m := range upstreamtest.Documents(t, filepath.Join("testdata", "upstream-03da3cf", file)) {
		out = append(out, upstreamtest.WithoutServerFields(m))
	}
	return out
}

func nodes(workers int) *nodefacts.Facts {
	f := &nodefacts.Facts{}
	f.Workers = workers
	return f
}

// The objects are upstream's, object for object and in its order, for its
// defaults on a highly available IPv4 cluster and for an infra placement,
// the Modern TLS profile on a single-worker dual-stack cluster.
func TestDesiredIsUpstreams(t *testing.T) {
	for _, tc := range []struct {
		hc, want string
		facts    hco.Facts
	}{
		{"hc-default.yaml", "ha-ipv4.yaml", hco.Facts{Environment: env(), Nodes: nodes(2),
			Platform: hco.Platform{OpenShift: true, IPStack: hco.IPv4SingleStack}}},
		{"hc-placed-modern.yaml", "single-dualstack.yaml", hco.Facts{Environment: env(), Nodes: nodes(1),
			Platform: hco.Platform{OpenShift: true, IPStack: openshift.IPStackOf([]ocpconfigv1.ClusterNetworkEntry{{CIDR: "10.128.0.0/14"}, {CIDR: "fd01::/48"}})}}},
	} {
		t.Run(tc.want, func(t *testing.T) {
			objs, err := hco.DesiredObjects(consoleplugin.New(), readHC(t, tc.hc), tc.facts)
			require.NoError(t, err)
			want := upstream(t, tc.want)
			require.Len(t, objs, len(want))
			for i, o := range objs {
				assert.Equal(t, want[i], upstreamtest.WithoutServerFields(upstreamtest.JSON(t, o.Object)), "%s %s", o.GetKind(), o.GetName())
			}
		})
	}
}

// Off OpenShift, or without either image, nothing is wanted; the plugin's
// name is not added to the console's, and without an image on OpenShift it
// is taken out (Absent): the console would load a plugin that is gone.
func TestDesiredNeedsOpenShiftAndBothImages(t *testing.T) {
	hc := readHC(t, "hc-default.yaml")
	openShift := hco.Platform{OpenShift: true}
	for name, facts := range map[string]hco.Facts{
		"plain Kubernetes": {Environment: env()},
		"no plugin image":  {Environment: hco.Environment{Namespace: hc.Namespace, Images: map[string]string{consoleplugin.ProxyImageKey: proxyImage}}, Platform: openShift},
		"no proxy image":   {Environment: hco.Environment{Namespace: hc.Namespace, Images: map[string]string{consoleplugin.PluginImageKey: pluginImage}}, Platform: openShift},
	} {
		objs, err := consoleplugin.New().Desired(hc, facts)
		require.NoError(t, err, name)
		assert.Empty(t, objs, name)
		items := consoleplugin.New().ListItems(hc, facts)
		if !facts.Platform.OpenShift {
			assert.Empty(t, items, name)
			continue
		}
		require.Len(t, items, 1, name)
		assert.True(t, items[0].Absent, name)
		assert.Equal(t, consoleplugin.PluginName, items[0].Value, name)
	}
	items := consoleplugin.New().ListItems(hc, hco.Facts{Environment: env(), Platform: openShift})
	require.Len(t, items, 1)
	assert.False(t, items[0].Absent)
	assert.Equal(t, consoleplugin.PluginName, items[0].Value)
	assert.Equal(t, []string{"spec", "plugins"}, items[0].Target.Path)
}

// A TLS profile below TLS 1.3 with no cipher the proxy can serve is
// refused, naming the field, rather than the proxy served with Go's
// defaults, wider than asked.
func TestProxyRefusesACipherGoLacks(t *testing.T) {
	hc := readHC(t, "hc-default.yaml")
	hc.Spec.Security.TLSSecurityProfile = &ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileCustomType, Custom: &ocpconfigv1.CustomTLSProfile{
		TLSProfileSpec: ocpconfigv1.TLSProfileSpec{Ciphers: []string{"DHE-RSA-AES128-GCM-SHA256"}, MinTLSVersion: ocpconfigv1.VersionTLS12}}}
	_, err := consoleplugin.New().Desired(hc, hco.Facts{Environment: env(), Platform: hco.Platform{OpenShift: true}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "spec.security.tlsSecurityProfile")
}

// The UI's ConfigMaps keep what the UI and the admin wrote, but the IP
// stack and the version; the nginx configuration is the operator's.
func TestKeptFields(t *testing.T) {
	op, cm := consoleplugin.New(), schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	assert.Equal(t, [][]string{{"data"}}, op.KeptFields(cm, consoleplugin.UserSettingsConfigMap))
	assert.Equal(t, [][]string{{"data"}, {"data", "!ipStackType"}, {"data", "!hcoVersion"}}, op.KeptFields(cm, consoleplugin.FeaturesConfigMap))
	assert.Nil(t, op.KeptFields(cm, consoleplugin.NginxConfigMap))
}
