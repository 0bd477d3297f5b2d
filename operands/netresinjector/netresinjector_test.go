package netresinjector_test

import (
	"encoding/json"
	"testing"

	ocpconfigv1 "github.com/openshift/api/config/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/nodefacts"
	"github.com/hcokit/hcokit/operands/netresinjector"
)

// image is upstream's NETWORK_RESOURCES_INJECTOR_IMAGE (deploy/operator.yaml at 03da3cf).
const image = "ghcr.io/k8snetworkplumbingwg/network-resources-injector@sha256:737225a33c418899667707a6e79668bb1a64c6b993bf7486074c5b8085d4ab7d"

var env = hco.Environment{Namespace: "my-ns", Version: "1.0.0", Images: map[string]string{netresinjector.ImageKey: image}}

func defaultHC() *hcov1.HyperConverged {
	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: "my-ns"}}
	hcov1.Default(hc)
	return hc
}

func desired(t *testing.T, hc *hcov1.HyperConverged, facts hco.Facts) []client.Object {
	t.Helper()
	objs, err := netresinjector.New().Desired(hc, facts)
	require.NoError(t, err)
	return objs
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// The on-rule is upstream's ShouldDeployNetworkResourcesInjector (03da3cf,
// controllers/common/hcoDeployments.go): the field, true when unset; and
// hcokit's: nothing without an image.
func TestEnabled(t *testing.T) {
	off, on := false, true
	for _, tc := range []struct {
		name  string
		field *bool
		env   hco.Environment
		want  bool
	}{
		{"default (unset)", nil, env, true},
		{"true", &on, env, true},
		{"false", &off, env, false},
		{"no image", nil, hco.Environment{Namespace: "my-ns"}, false},
		{"empty image", &on, hco.Environment{Namespace: "my-ns", Images: map[string]string{netresinjector.ImageKey: ""}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hc := defaultHC()
			hc.Spec.Deployment.DeployNetworkResourcesInjector = tc.field
			objs := desired(t, hc, hco.OfflineFacts(tc.env))
			if tc.want {
				assert.Len(t, objs, 6)
			} else {
				assert.Nil(t, objs)
			}
		})
	}
	assert.True(t, netresinjector.Enabled(defaultHC()), "the API's default is true")
}

// TestDesired holds what upstream HCO builds at commit 03da3cf
// (controllers/handlers/netresinjector/*.go): names, order, labels and content.
func TestDesired(t *testing.T) {
	objs := desired(t, defaultHC(), hco.OfflineFacts(env))
	require.Len(t, objs, 6)
	kinds := netresinjector.New().Kinds()
	labels := map[string]string{
		"app": "kubevirt-hyperconverged", "app.kubernetes.io/component": "virt-network-resources-injector",
		"app.kubernetes.io/managed-by": "hco-operator", "app.kubernetes.io/part-of": "hyperconverged-cluster",
		"app.kubernetes.io/version": "1.0.0",
	}
	names := []string{"virt-network-resources-injector-role-binding",
		"virt-network-resources-injector-sa", "virt-network-resources-injector-service", "virt-network-resources-injector",
		"virt-network-resources-injector-pdb", "virt-network-resources-injector-config"}
	clusterScoped := map[int]bool{0: true, 5: true}
	for i, o := range objs {
		assert.Equal(t, kinds[i].GetObjectKind().GroupVersionKind(), o.GetObjectKind().GroupVersionKind(), "object %d", i)
		assert.Equal(t, names[i], o.GetName())
		assert.Equal(t, labels, o.GetLabels(), o.GetName())
		if clusterScoped[i] {
			assert.Empty(t, o.GetNamespace(), o.GetName())
		} else {
			assert.Equal(t, "my-ns", o.GetNamespace(), o.GetName())
		}
	}

	cr := netresinjector.ClusterRole() // shipped by the install, not by the operand
	assert.JSONEq(t, `[{"verbs":["watch","list","get"],"apiGroups":["k8s.cni.cncf.io"],"resources":["network-attachment-definitions"]},
		{"verbs":["watch","list","get"],"apiGroups":[""],"resources":["configmaps"]}]`, jsonOf(t, cr.Rules))
	crb := objs[0].(*rbacv1.ClusterRoleBinding)
	assert.JSONEq(t, `{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"virt-network-resources-injector"}`, jsonOf(t, crb.RoleRef))
	assert.JSONEq(t, `[{"kind":"ServiceAccount","name":"virt-network-resources-injector-sa","namespace":"my-ns"}]`, jsonOf(t, crb.Subjects))

	selector := `{"app":"kubevirt-hyperconverged","app.kubernetes.io/component":"virt-network-resources-injector"}`
	svc := objs[2].(*corev1.Service)
	assert.JSONEq(t, `{"ports":[{"protocol":"TCP","port":443,"targetPort":6443}],"selector":`+selector+`}`, jsonOf(t, svc.Spec))
	assert.Empty(t, svc.Annotations, "no OpenShift serving-cert annotation: the certificate is the rotator's")

	pdb := objs[4].(*policyv1.PodDisruptionBudget)
	assert.JSONEq(t, `{"minAvailable":1,"selector":{"matchLabels":`+selector+`}}`, jsonOf(t, pdb.Spec))

	d := objs[3].(*appsv1.Deployment)
	assert.Equal(t, int32(2), *d.Spec.Replicas, "node facts unknown: highly available")
	assert.JSONEq(t, `{"matchLabels":`+selector+`}`, jsonOf(t, d.Spec.Selector))
	assert.Equal(t, labels, d.Spec.Template.Labels)
	assert.Equal(t, map[string]string{"openshift.io/required-scc": "restricted-v2"}, d.Spec.Template.Annotations)
	assert.JSONEq(t, `{
		"volumes":[{"name":"tls","secret":{"secretName":"virt-network-resources-injector-secret"}}],
		"containers":[{
			"name":"webhook-server","image":"`+image+`","command":["webhook"],
			"args":["-bind-address=0.0.0.0","-port=6443","-tls-private-key-file=/etc/tls/tls.key","-tls-cert-file=/etc/tls/tls.crt",
				"-insecure=true","-logtostderr=true","-alsologtostderr=true","-tls-min-version=VersionTLS12",
				"-tls-cipher-suites=TLS_AES_128_GCM_SHA256,TLS_AES_256_GCM_SHA384,TLS_CHACHA20_POLY1305_SHA256,TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256"],
			"env":[{"name":"NAMESPACE","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.namespace"}}}],
			"resources":{"requests":{"cpu":"10m","memory":"50Mi"}},
			"volumeMounts":[{"name":"tls","readOnly":true,"mountPath":"/etc/tls"}],
			"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"FallbackToLogsOnError","imagePullPolicy":"IfNotPresent",
			"securityContext":{"capabilities":{"drop":["ALL"]},"runAsNonRoot":true,"readOnlyRootFilesystem":true,"allowPrivilegeEscalation":false,"seccompProfile":{"type":"RuntimeDefault"}}
		}],
		"nodeSelector":{"kubernetes.io/os":"linux"},
		"serviceAccountName":"virt-network-resources-injector-sa",
		"securityContext":{"runAsNonRoot":true},
		"affinity":{
			"nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[
				{"weight":100,"preference":{"matchExpressions":[{"key":"node-role.kubernetes.io/control-plane","operator":"Exists"}]}},
				{"weight":100,"preference":{"matchExpressions":[{"key":"node-role.kubevirt.io/control-plane","operator":"Exists"}]}},
				{"weight":50,"preference":{"matchExpressions":[{"key":"node-role.kubernetes.io/worker","operator":"DoesNotExist"}]}}]},
			"podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1,"podAffinityTerm":{
				"labelSelector":{"matchExpressions":[{"key":"app.kubernetes.io/component","operator":"In","values":["virt-network-resources-injector"]}]},
				"topologyKey":"kubernetes.io/hostname"}}]}},
		"tolerations":[{"key":"CriticalAddonsOnly","operator":"Exists"},{"key":"node-role.kubernetes.io/control-plane","operator":"Exists","effect":"NoSchedule"}],
		"priorityClassName":"system-cluster-critical"
	}`, jsonOf(t, d.Spec.Template.Spec))

	mwc := objs[5].(*admissionregistrationv1.MutatingWebhookConfiguration)
	assert.Empty(t, mwc.Annotations, "no cert-manager annotation: the caBundle is the rotator's")
	assert.JSONEq(t, `[{
		"name":"virt-network-resources-injector-config.k8s.io",
		"clientConfig":{"service":{"namespace":"my-ns","name":"virt-network-resources-injector-service","path":"/mutate","port":443}},
		"rules":[{"operations":["CREATE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["pods"],"scope":"*"}],
		"failurePolicy":"Fail","matchPolicy":"Equivalent",
		"namespaceSelector":{"matchExpressions":[{"key":"kubernetes.io/metadata.name","operator":"NotIn","values":["kube-system"]}]},
		"objectSelector":{"matchLabels":{"kubevirt.io":"virt-launcher"}},
		"sideEffects":"None","timeoutSeconds":10,"admissionReviewVersions":["v1","v1beta1"],"reinvocationPolicy":"Never",
		"matchConditions":[{"name":"hasMultusAnnotation","expression":"has(object.metadata.annotations) \u0026\u0026 \"k8s.v1.cni.cncf.io/networks\" in object.metadata.annotations"}]
	}]`, jsonOf(t, mwc.Webhooks))
}

// Upstream: two replicas when the infrastructure is highly available (two
// workers or more), else one.
func TestReplicasFollowTheNodes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		nodes *nodefacts.Facts
		want  int32
	}{
		{"unknown (offline)", nil, 2},
		{"no worker", &nodefacts.Facts{ControlPlane: 3}, 1},
		{"one worker", &nodefacts.Facts{Workers: 1, ControlPlane: 3}, 1},
		{"two workers", &nodefacts.Facts{Workers: 2}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			facts := hco.OfflineFacts(env)
			facts.Nodes = tc.nodes
			d := desired(t, defaultHC(), facts)[3].(*appsv1.Deployment)
			assert.Equal(t, tc.want, *d.Spec.Replicas)
		})
	}
}

// The TLS arguments follow the resolved profile as upstream's tlsArgs: the
// minimum version, and ciphers only below TLS 1.3; the HyperConverged's
// profile wins over the cluster's.
func TestTLSArguments(t *testing.T) {
	modern := &ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileModernType, Modern: &ocpconfigv1.ModernTLSProfile{}}
	custom := &ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileCustomType, Custom: &ocpconfigv1.CustomTLSProfile{
		TLSProfileSpec: ocpconfigv1.TLSProfileSpec{Ciphers: []string{"ECDHE-RSA-AES128-GCM-SHA256", "no-such-cipher"}, MinTLSVersion: ocpconfigv1.VersionTLS11}}}
	tls12NoCiphers := &ocpconfigv1.TLSSecurityProfile{Type: ocpconfigv1.TLSProfileCustomType, Custom: &ocpconfigv1.CustomTLSProfile{
		TLSProfileSpec: ocpconfigv1.TLSProfileSpec{MinTLSVersion: ocpconfigv1.VersionTLS12}}}
	tlsArgs := func(args []string) []string { return args[7:] }
	for _, tc := range []struct {
		name        string
		hc, cluster *ocpconfigv1.TLSSecurityProfile
		want        []string
	}{
		{"the cluster's when the HyperConverged has none", nil, modern, []string{"-tls-min-version=VersionTLS13"}},
		{"the HyperConverged's over the cluster's", custom, modern, []string{"-tls-min-version=VersionTLS11", "-tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"}},
		{"no ciphers, no cipher argument", tls12NoCiphers, nil, []string{"-tls-min-version=VersionTLS12"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hc := defaultHC()
			hc.Spec.Security.TLSSecurityProfile = tc.hc
			facts := hco.OfflineFacts(env)
			facts.ClusterTLSProfile = tc.cluster
			d := desired(t, hc, facts)[3].(*appsv1.Deployment)
			assert.Equal(t, tc.want, tlsArgs(d.Spec.Template.Spec.Containers[0].Args))
		})
	}
	assert.Equal(t, 7, len(netresinjector.TLSArgs("", nil)), "no version, no TLS argument")
}

func TestKeptFields(t *testing.T) {
	op := netresinjector.New()
	assert.Equal(t, [][]string{{"webhooks", "*", "clientConfig", "caBundle"}}, op.KeptFields(admissionregistrationv1.SchemeGroupVersion.WithKind("MutatingWebhookConfiguration"), ""))
	assert.Equal(t, [][]string{{"secrets"}, {"imagePullSecrets"}}, op.KeptFields(corev1.SchemeGroupVersion.WithKind("ServiceAccount"), ""))
	assert.Nil(t, op.KeptFields(appsv1.SchemeGroupVersion.WithKind("Deployment"), ""))
}

// Status is upstream's readiness rule (deployment.go Ensure at 03da3cf):
// the condition VirtNetworkResourcesInjectorReady, and nothing in the
// aggregated conditions.
func TestStatus(t *testing.T) {
	op := netresinjector.New()
	dep := func(replicas *int32, ready int32) client.Object {
		return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: netresinjector.DeploymentName},
			Spec: appsv1.DeploymentSpec{Replicas: replicas}, Status: appsv1.DeploymentStatus{ReadyReplicas: ready}}
	}
	two, zero := int32(2), int32(0)
	for _, tc := range []struct {
		name            string
		observed        []client.Object
		ready           metav1.ConditionStatus
		reason, message string
	}{
		{"all ready", []client.Object{&corev1.Service{}, dep(&two, 2)}, metav1.ConditionTrue, "DeploymentReady", "All replicas are ready"},
		{"one of two", []client.Object{dep(&two, 1)}, metav1.ConditionFalse, "DeploymentNotReady", "1/2 replicas ready"},
		{"none wanted", []client.Object{dep(&zero, 0)}, metav1.ConditionFalse, "DeploymentNotReady", "0/0 replicas ready"},
		{"missing", []client.Object{&corev1.Service{}}, metav1.ConditionFalse, "DeploymentNotFound", "Network resources injector deployment not found"},
		{"nothing", nil, metav1.ConditionFalse, "DeploymentNotFound", "Network resources injector deployment not found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := op.Status(tc.observed)
			assert.Equal(t, netresinjector.StatusKind, s.Kind)
			assert.Equal(t, []metav1.Condition{{Type: hcov1.ConditionNetworkResourcesInjectorReady, Status: tc.ready, Reason: tc.reason, Message: tc.message}}, s.Conditions)
			assert.Equal(t, metav1.ConditionTrue, s.Available.Status, "the injector never makes the HyperConverged unavailable")
			assert.Equal(t, metav1.ConditionFalse, s.Progressing.Status)
			assert.Equal(t, metav1.ConditionFalse, s.Degraded.Status)
			assert.Equal(t, metav1.ConditionTrue, s.Upgradeable.Status)
		})
	}
}

// Ready reads the injector's Deployment from the facts' observed objects,
// in the operator namespace, with StatusFromDeployment's rule.
func TestReady(t *testing.T) {
	observe := func(replicas, ready int64) func(schema.GroupVersionKind, client.ObjectKey) (*unstructured.Unstructured, bool) {
		return func(gvk schema.GroupVersionKind, key client.ObjectKey) (*unstructured.Unstructured, bool) {
			if gvk != appsv1.SchemeGroupVersion.WithKind("Deployment") || key != (client.ObjectKey{Namespace: env.Namespace, Name: netresinjector.DeploymentName}) {
				return nil, false
			}
			return &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": key.Name, "namespace": key.Namespace},
				"spec": map[string]any{"replicas": replicas}, "status": map[string]any{"readyReplicas": ready},
			}}, true
		}
	}
	facts := hco.Facts{Environment: env}
	assert.False(t, netresinjector.Ready(facts), "offline: unknown")
	facts.Observed = func(schema.GroupVersionKind, client.ObjectKey) (*unstructured.Unstructured, bool) { return nil, false }
	assert.False(t, netresinjector.Ready(facts), "no Deployment")
	facts.Observed = observe(2, 1)
	assert.False(t, netresinjector.Ready(facts), "1/2 replicas ready")
	facts.Observed = observe(2, 2)
	assert.True(t, netresinjector.Ready(facts), "2/2 replicas ready")
	facts.Observed = observe(0, 0)
	assert.False(t, netresinjector.Ready(facts), "no replicas wanted")
}

// On OpenShift the platform's service CA issues the certificate, as
// upstream's: the Service names the Secret, the webhook configuration asks
// for the CA; elsewhere neither annotation is set.
func TestServiceCAOnOpenShift(t *testing.T) {
	env := hco.Environment{Namespace: "kubevirt-hyperconverged", Images: map[string]string{netresinjector.ImageKey: "example.com/injector:1"}}
	for _, openShift := range []bool{false, true} {
		objs := desired(t, defaultHC(), hco.Facts{Environment: env, Platform: hco.Platform{OpenShift: openShift}})
		var svc *corev1.Service
		var mwc *admissionregistrationv1.MutatingWebhookConfiguration
		for _, o := range objs {
			switch o := o.(type) {
			case *corev1.Service:
				svc = o
			case *admissionregistrationv1.MutatingWebhookConfiguration:
				mwc = o
			}
		}
		require.NotNil(t, svc)
		require.NotNil(t, mwc)
		if !openShift {
			assert.Empty(t, svc.Annotations)
			assert.Empty(t, mwc.Annotations)
			continue
		}
		assert.Equal(t, map[string]string{"service.beta.openshift.io/serving-cert-secret-name": "virt-network-resources-injector-secret"}, svc.Annotations)
		assert.Equal(t, map[string]string{"service.beta.openshift.io/inject-cabundle": "true"}, mwc.Annotations)
	}
}
