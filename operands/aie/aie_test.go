package aie_test

import (
	"testing"

	ocpconfigv1 "github.com/openshift/api/config/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hcostatus"
	"github.com/hcokit/hcokit/operands/aie"
)

const image = "quay.io/kubevirt/kubevirt-aie-webhook:v1"

func hyperConverged(annotated bool) *hcov1.HyperConverged {
	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: "kubevirt-hyperconverged"}}
	hcov1.Default(hc)
	if annotated {
		hc.Annotations = map[string]string{"hco.kubevirt.io/deployAIE": "true"}
	}
	return hc
}

func facts(img string) hco.Facts {
	f := hco.OfflineFacts(hco.Environment{Namespace: "kubevirt-hyperconverged", Version: "1.0.0"})
	if img != "" {
		f.Images = map[string]string{aie.ImageKey: img}
	}
	return f
}

func TestDesiredOnlyWithTheAnnotationAndTheImage(t *testing.T) {
	for name, tc := range map[string]struct {
		annotated bool
		image     string
		want      int
	}{
		"no annotation":        {false, image, 0},
		"no image":             {true, "", 0},
		"annotation and image": {true, image, 6},
	} {
		objs, err := hco.DesiredObjects(aie.New(), hyperConverged(tc.annotated), facts(tc.image))
		require.NoError(t, err, name)
		assert.Len(t, objs, tc.want, name)
	}
	hc := hyperConverged(false)
	hc.Annotations = map[string]string{"hco.kubevirt.io/deployAIE": "True"}
	objs, _ := hco.DesiredObjects(aie.New(), hc, facts(image))
	assert.Empty(t, objs, `only "true", as upstream`)
}

// The objects as upstream builds them at 03da3cf (controllers/handlers/aie).
func TestDesiredIsUpstreams(t *testing.T) {
	objs, err := aie.New().Desired(hyperConverged(true), facts(image))
	require.NoError(t, err)
	sa, svc, dep, cm := objs[0].(*corev1.ServiceAccount), objs[1].(*corev1.Service), objs[2].(*appsv1.Deployment), objs[3].(*corev1.ConfigMap)
	crb, mwc := objs[4].(*rbacv1.ClusterRoleBinding), objs[5].(*admissionregistrationv1.MutatingWebhookConfiguration)
	cr := aie.ClusterRole() // shipped by the install, not by the operand
	for _, o := range objs {
		assert.Equal(t, "aie-webhook", o.GetLabels()[hco.LabelComponent], "%T", o)
	}
	assert.Equal(t, "kubevirt-aie-webhook", sa.Name)
	selector := map[string]string{"app": "kubevirt-hyperconverged", "app.kubernetes.io/component": "aie-webhook"}
	assert.Equal(t, selector, svc.Spec.Selector)
	assert.Equal(t, int32(443), svc.Spec.Ports[0].Port)
	assert.Equal(t, 9443, svc.Spec.Ports[0].TargetPort.IntValue())
	assert.Equal(t, selector, dep.Spec.Selector.MatchLabels)
	c := dep.Spec.Template.Spec.Containers[0]
	assert.Equal(t, image, c.Image)
	assert.Equal(t, "kubevirt-aie-webhook-tls", dep.Spec.Template.Spec.Volumes[0].Secret.SecretName)
	assert.Equal(t, []string{"--metrics-bind-address=:8443", "--metrics-secure=true",
		"--webhook-cert-path=/tmp/k8s-webhook-server/serving-certs", "--metrics-cert-path=/tmp/k8s-webhook-server/serving-certs",
		"--tls-min-version=VersionTLS12",
		"--tls-cipher-suites=TLS_AES_128_GCM_SHA256,TLS_AES_256_GCM_SHA384,TLS_CHACHA20_POLY1305_SHA256,TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256"},
		c.Args, "Intermediate, as upstream's OpenSSLToIANACipherSuites names it")
	assert.Equal(t, map[string]string{"config.yaml": "rules:\n"}, cm.Data)
	assert.Equal(t, "kubevirt-aie-launcher-config", cm.Name)
	assert.Len(t, cr.Rules, 2)
	assert.Equal(t, "kubevirt-aie-webhook", crb.RoleRef.Name)
	require.Len(t, mwc.Webhooks, 1)
	w := mwc.Webhooks[0]
	assert.Equal(t, "virt-launcher-mutator.kubevirt.io", w.Name)
	assert.Equal(t, "/mutate-pods", *w.ClientConfig.Service.Path)
	assert.Equal(t, "kubevirt-hyperconverged", w.ClientConfig.Service.Namespace)
	assert.Equal(t, map[string]string{"kubevirt.io": "virt-launcher"}, w.ObjectSelector.MatchLabels)
	assert.Empty(t, w.ClientConfig.CABundle)
}

func TestArgsTLS13HasNoCiphers(t *testing.T) {
	hc := hyperConverged(true)
	hc.Spec.Security.TLSSecurityProfile = &ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileModernType, Modern: &ocpconfigv1.ModernTLSProfile{}}
	args := aie.Args(hc, nil)
	assert.Contains(t, args, "--tls-min-version=VersionTLS13")
	for _, a := range args {
		assert.NotContains(t, a, "--tls-cipher-suites")
	}
}

func TestStatus(t *testing.T) {
	op := aie.New()
	assert.Equal(t, hcostatus.ReasonNotFound, op.Status(nil).Available.Reason)
	st := op.Status([]client.Object{&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: aie.ObjectName}}})
	assert.Equal(t, metav1.ConditionTrue, st.Available.Status)
}

func TestKeptFields(t *testing.T) {
	op := aie.New()
	assert.Equal(t, [][]string{{"data"}}, op.KeptFields(corev1.SchemeGroupVersion.WithKind("ConfigMap"), ""))
	assert.Equal(t, [][]string{{"webhooks", "*", "clientConfig", "caBundle"}}, op.KeptFields(admissionregistrationv1.SchemeGroupVersion.WithKind("MutatingWebhookConfiguration"), ""))
	assert.Nil(t, op.KeptFields(appsv1.SchemeGroupVersion.WithKind("Deployment"), ""))
}
