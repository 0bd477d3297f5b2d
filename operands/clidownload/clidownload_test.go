package clidownload_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	ocpconfigv1 "github.com/openshift/api/config/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/hcostatus"
	"github.com/hcokit/hcokit/internal/upstreamtest"
	"github.com/hcokit/hcokit/operands/clidownload"
)

const image = "quay.io/kubevirt/virt-artifacts-server:v1.9.0"

func newHC() *hcov1.HyperConverged {
	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: "virt"}}
	hcov1.Default(hc)
	return hc
}

func envWithImage() hco.Environment {
	return hco.Environment{Namespace: "virt", Version: "1.2.3", Images: map[string]string{clidownload.ImageKey: image}}
}

func TestDisabledWithoutImage(t *testing.T) {
	for name, env := range map[string]hco.Environment{
		"no images":   {Namespace: "virt"},
		"other image": {Namespace: "virt", Images: map[string]string{"something-else": image}},
		"empty image": {Namespace: "virt", Images: map[string]string{clidownload.ImageKey: ""}},
	} {
		t.Run(name, func(t *testing.T) {
			objs, err := clidownload.New().Desired(newHC(), hco.Facts{Environment: env})
			if err != nil || objs != nil {
				t.Fatalf("Desired = %v, %v; want nil, nil", objs, err)
			}
		})
	}
}

func TestDesiredDeploymentAndService(t *testing.T) {
	objs, err := clidownload.New().Desired(newHC(), hco.Facts{Environment: envWithImage()})
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 2 {
		t.Fatalf("got %d objects, want a Deployment and a Service", len(objs))
	}
	d, ok := objs[0].(*appsv1.Deployment)
	if !ok {
		t.Fatalf("first object is %T, want *appsv1.Deployment", objs[0])
	}
	svc, ok := objs[1].(*corev1.Service)
	if !ok {
		t.Fatalf("second object is %T, want *corev1.Service", objs[1])
	}
	kinds := clidownload.New().Kinds()
	for i, o := range objs {
		if got, want := o.GetObjectKind().GroupVersionKind(), kinds[i].GetObjectKind().GroupVersionKind(); got != want || got.Kind == "" {
			t.Errorf("object %d has GVK %v, Kinds() says %v", i, got, want)
		}
		if o.GetName() != clidownload.ObjectName || o.GetNamespace() != "virt" {
			t.Errorf("object %d is %s/%s, want virt/%s", i, o.GetNamespace(), o.GetName(), clidownload.ObjectName)
		}
		l := o.GetLabels()
		component := hco.ComponentDeployment
		if i == 1 {
			component = hco.ComponentCompute // upstream's Service
		}
		if l[hco.LabelManagedBy] != hco.ManagedByValue || l[hco.LabelComponent] != component || l[hco.LabelVersion] != "1.2.3" {
			t.Errorf("object %d labels %v lack the managed-by, component or version label", i, l)
		}
	}

	c := d.Spec.Template.Spec.Containers[0]
	if c.Image != image {
		t.Errorf("image = %q, want %q", c.Image, image)
	}
	// The selector must match the pods and must not carry the version, which
	// changes on upgrade while the selector is immutable.
	sel := d.Spec.Selector.MatchLabels
	for k, v := range sel {
		if d.Spec.Template.Labels[k] != v {
			t.Errorf("selector %s=%s does not match the pod labels %v", k, v, d.Spec.Template.Labels)
		}
		if k == hco.LabelVersion {
			t.Errorf("selector carries the version label")
		}
	}
	for k, v := range svc.Spec.Selector {
		if d.Spec.Template.Labels[k] != v {
			t.Errorf("service selector %s=%s does not match the pods", k, v)
		}
	}
	if svc.Spec.Ports[0].Port != clidownload.Port || c.Ports[0].ContainerPort != clidownload.Port {
		t.Errorf("service port %d, container port %d; want %d", svc.Spec.Ports[0].Port, c.Ports[0].ContainerPort, clidownload.Port)
	}
	if svc.Spec.Ports[0].TargetPort.IntVal != c.Ports[0].ContainerPort {
		t.Errorf("service targets port %v, the container serves %d", svc.Spec.Ports[0].TargetPort, c.Ports[0].ContainerPort)
	}
}

func TestSecurePodSpec(t *testing.T) {
	d := clidownload.BuildDeployment(newHC(), envWithImage(), image)
	pod := d.Spec.Template.Spec
	if pod.SecurityContext == nil || pod.SecurityContext.RunAsNonRoot == nil || !*pod.SecurityContext.RunAsNonRoot {
		t.Error("pod does not require a non-root user")
	}
	if pod.SecurityContext.SeccompProfile == nil || pod.SecurityContext.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Error("pod has no RuntimeDefault seccomp profile")
	}
	if pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken {
		t.Error("pod mounts a service account token it does not need")
	}
	c := pod.Containers[0]
	sc := c.SecurityContext
	switch {
	case sc == nil:
		t.Fatal("container has no security context")
	case sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem:
		t.Error("root filesystem is writable")
	case sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation:
		t.Error("privilege escalation allowed")
	case sc.Capabilities == nil || len(sc.Capabilities.Drop) != 1 || sc.Capabilities.Drop[0] != "ALL":
		t.Error("capabilities are not all dropped")
	}
	if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() || c.Resources.Limits.Memory().IsZero() {
		t.Errorf("resources %v lack cpu/memory requests or a memory limit", c.Resources)
	}
	for name, p := range map[string]*corev1.Probe{"readiness": c.ReadinessProbe, "liveness": c.LivenessProbe} {
		if p == nil || p.HTTPGet == nil || p.HTTPGet.Path != clidownload.HealthPath {
			t.Errorf("%s probe %v does not GET %s", name, p, clidownload.HealthPath)
		}
	}
}

func TestInfraPlacement(t *testing.T) {
	hc := newHC()
	infra := &hcov1.NodePlacement{
		NodeSelector: map[string]string{"nodeType": "infra"},
		Tolerations:  []corev1.Toleration{{Key: "key", Operator: corev1.TolerationOpEqual, Value: "infra", Effect: corev1.TaintEffectNoSchedule}},
		Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "nodeType", Operator: corev1.NodeSelectorOpIn, Values: []string{"infra"}}}}},
		}}},
	}
	hc.Spec.Deployment.NodePlacements = &hcov1.NodePlacements{
		Infra:    infra,
		Workload: &hcov1.NodePlacement{NodeSelector: map[string]string{"nodeType": "nested-virtualization"}},
	}

	pod := clidownload.BuildDeployment(hc, envWithImage(), image).Spec.Template.Spec
	if pod.NodeSelector["nodeType"] != "infra" || len(pod.NodeSelector) != 1 {
		t.Errorf("nodeSelector = %v, want the infra one", pod.NodeSelector)
	}
	if len(pod.Tolerations) != 1 || pod.Tolerations[0].Value != "infra" {
		t.Errorf("tolerations = %v, want the infra one", pod.Tolerations)
	}
	if pod.Affinity == nil || pod.Affinity.NodeAffinity == nil {
		t.Fatalf("affinity = %v, want the infra one", pod.Affinity)
	}
	// The pod spec must not alias the HyperConverged.
	pod.NodeSelector["nodeType"] = "changed"
	pod.Tolerations[0].Value = "changed"
	if hc.Spec.InfraPlacement().NodeSelector["nodeType"] != "infra" || hc.Spec.InfraPlacement().Tolerations[0].Value != "infra" {
		t.Error("the Deployment aliases the HyperConverged's placement")
	}

	unplaced := clidownload.BuildDeployment(newHC(), envWithImage(), image).Spec.Template.Spec
	if unplaced.NodeSelector != nil || unplaced.Affinity != nil || unplaced.Tolerations != nil {
		t.Errorf("no infra placement gave %v %v %v, want none", unplaced.NodeSelector, unplaced.Affinity, unplaced.Tolerations)
	}
}

func TestStatus(t *testing.T) {
	cond := func(typ appsv1.DeploymentConditionType, s corev1.ConditionStatus, reason string) appsv1.DeploymentCondition {
		return appsv1.DeploymentCondition{Type: typ, Status: s, Reason: reason, Message: reason + " message"}
	}
	deploy := func(generation, observed int64, conds ...appsv1.DeploymentCondition) client.Object {
		return &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: clidownload.ObjectName, Generation: generation},
			Status:     appsv1.DeploymentStatus{ObservedGeneration: observed, Conditions: conds},
		}
	}
	type want struct{ available, progressing, degraded metav1.ConditionStatus }
	for _, tc := range []struct {
		name     string
		observed []client.Object
		want     want
		reason   string // of Available
	}{
		{"not found", nil, want{"Unknown", "Unknown", "Unknown"}, hcostatus.ReasonNotFound},
		{"nil deployment", []client.Object{(*appsv1.Deployment)(nil), &corev1.Service{}}, want{"Unknown", "Unknown", "Unknown"}, hcostatus.ReasonNotFound},
		{"just created", []client.Object{deploy(1, 0), &corev1.Service{}}, want{"Unknown", "Unknown", "Unknown"}, hcostatus.ReasonNoStatus},
		{"rolled out", []client.Object{deploy(1, 1,
			cond(appsv1.DeploymentAvailable, corev1.ConditionTrue, "MinimumReplicasAvailable"),
			cond(appsv1.DeploymentProgressing, corev1.ConditionTrue, "NewReplicaSetAvailable")), &corev1.Service{}},
			want{"True", "False", "False"}, "MinimumReplicasAvailable"},
		{"rolling out", []client.Object{deploy(2, 2,
			cond(appsv1.DeploymentAvailable, corev1.ConditionFalse, "MinimumReplicasUnavailable"),
			cond(appsv1.DeploymentProgressing, corev1.ConditionTrue, "ReplicaSetUpdated"))},
			want{"False", "True", "False"}, "MinimumReplicasUnavailable"},
		{"spec not observed yet", []client.Object{deploy(3, 2,
			cond(appsv1.DeploymentAvailable, corev1.ConditionTrue, "MinimumReplicasAvailable"),
			cond(appsv1.DeploymentProgressing, corev1.ConditionTrue, "NewReplicaSetAvailable"))},
			want{"True", "True", "False"}, "MinimumReplicasAvailable"},
		{"deadline exceeded", []client.Object{deploy(1, 1,
			cond(appsv1.DeploymentAvailable, corev1.ConditionFalse, "MinimumReplicasUnavailable"),
			cond(appsv1.DeploymentProgressing, corev1.ConditionFalse, "ProgressDeadlineExceeded"))},
			want{"False", "False", "True"}, "MinimumReplicasUnavailable"},
		{"replica failure", []client.Object{deploy(1, 1,
			cond(appsv1.DeploymentAvailable, corev1.ConditionFalse, "MinimumReplicasUnavailable"),
			cond(appsv1.DeploymentProgressing, corev1.ConditionTrue, "ReplicaSetUpdated"),
			cond(appsv1.DeploymentReplicaFailure, corev1.ConditionTrue, "FailedCreate"))},
			want{"False", "True", "True"}, "MinimumReplicasUnavailable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := clidownload.New().Status(tc.observed)
			got := want{s.Available.Status, s.Progressing.Status, s.Degraded.Status}
			if got != tc.want {
				t.Errorf("Available/Progressing/Degraded = %v, want %v", got, tc.want)
			}
			if s.Available.Reason != tc.reason {
				t.Errorf("Available reason = %q, want %q", s.Available.Reason, tc.reason)
			}
			if s.Kind != clidownload.StatusKind {
				t.Errorf("Kind = %q, want %q", s.Kind, clidownload.StatusKind)
			}
			if tc.want.available != "Unknown" && s.Upgradeable.Status != metav1.ConditionTrue {
				t.Errorf("Upgradeable = %v, want True", s.Upgradeable.Status)
			}
		})
	}
}

// upstream reads the objects of a file of testdata/upstream-03da3cf by kind.
func upstream(t *testing.T, file string) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, m := range upstreamtest.Documents(t, filepath.Join("testdata", "upstream-03da3cf", file)) {
		kind := "Service"
		switch {
		case m["spec"].(map[string]any)["links"] != nil:
			kind = "ConsoleCLIDownload"
		case m["spec"].(map[string]any)["to"] != nil:
			kind = "Route"
		}
		out[kind] = upstreamtest.WithoutServerFields(m)
	}
	return out
}

// wire is obj as JSON would carry it, without what upstream's handlers
// leave to the client and the API server.
func wire(t *testing.T, obj client.Object) map[string]any {
	t.Helper()
	return upstreamtest.WithoutServerFields(upstreamtest.JSON(t, obj))
}

// On OpenShift the Route and the ConsoleCLIDownload are upstream's, object
// for object, for the default host and for an admin's component route (its
// handlers' output at 03da3cf); on plain Kubernetes there are neither.
func TestOpenShiftRouteAndCLIDownloadAreUpstreams(t *testing.T) {
	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: "kubevirt-hyperconverged"}}
	env := hco.Environment{Namespace: hc.Namespace, Version: "1.20.0", Images: map[string]string{clidownload.ImageKey: "example.com/virtctl:v1"}}
	for file, routes := range map[string][]ocpconfigv1.ComponentRouteSpec{
		"default-host.yaml": nil,
		"component-route.yaml": {
			{Name: clidownload.ComponentRoute, Namespace: hc.Namespace, Hostname: "virtctl.apps.example.com"},
			{Name: clidownload.ComponentRoute, Namespace: "another-install", Hostname: "other.apps.example.com"},
		},
	} {
		facts := hco.OfflineFacts(env)
		facts.Platform = hco.Platform{OpenShift: true, IngressDomain: "apps.example.com", ComponentRoutes: routes}
		objs, err := clidownload.New().Desired(hc, facts)
		require.NoError(t, err)
		require.Len(t, objs, 4, file)
		want := upstream(t, file)
		assert.Equal(t, want["Service"], wire(t, objs[1]), "%s: the Service", file)
		assert.Equal(t, want["Route"], wire(t, objs[2]), "%s: the Route", file)
		assert.Equal(t, want["ConsoleCLIDownload"], wire(t, objs[3]), "%s: the ConsoleCLIDownload", file)
	}
	objs, err := clidownload.New().Desired(hc, hco.OfflineFacts(env))
	require.NoError(t, err)
	assert.Len(t, objs, 2, "plain Kubernetes: the Deployment and the Service")
}

// A component route outside the ingress domain needs a serving certificate
// from a Secret: without one the default host stays, and the component
// route's status says why (Degraded); with a usable one, the Route serves
// the custom host with it; with one that cannot be used, the default host
// stays, Degraded saying why.
func TestDownloadHostOutsideTheDomain(t *testing.T) {
	route := ocpconfigv1.ComponentRouteSpec{Name: clidownload.ComponentRoute, Namespace: "ns", Hostname: "virtctl.example.org"}
	p := hco.Platform{OpenShift: true, IngressDomain: "apps.example.com", ComponentRoutes: []ocpconfigv1.ComponentRouteSpec{route}}
	const def = "hyperconverged-cluster-cli-download-ns.apps.example.com"
	h := clidownload.DownloadHost(p, "ns")
	assert.Equal(t, def, h.Current)
	require.Error(t, h.Err)
	assert.Contains(t, h.Err.Error(), "must use a secret")

	route.ServingCertKeyPairSecret.Name = "virtctl-cert"
	p.ComponentRoutes = []ocpconfigv1.ComponentRouteSpec{route}
	p.RouteCertificates = map[string]hco.RouteCertificate{"virtctl-cert": {Cert: "CERT", Key: "KEY"}}
	h = clidownload.DownloadHost(p, "ns")
	assert.Equal(t, clidownload.Host{Default: def, Current: "virtctl.example.org", Cert: "CERT", Key: "KEY"}, h)
	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: "ns"}}
	r := clidownload.BuildRoute(hc, hco.Environment{}, h)
	assert.Equal(t, "virtctl.example.org", r.Spec.Host)
	assert.Equal(t, "CERT", r.Spec.TLS.Certificate)
	assert.Equal(t, "KEY", r.Spec.TLS.Key)

	p.RouteCertificates = map[string]hco.RouteCertificate{"virtctl-cert": {Err: errors.New("non-TLS secret")}}
	h = clidownload.DownloadHost(p, "ns")
	assert.Equal(t, def, h.Current)
	assert.EqualError(t, h.Err, "non-TLS secret")
}

// The component route's status is upstream's: the hosts, the operator's
// service account as consuming user, the Route, and Degraded while the
// admin's host cannot be used; nothing off OpenShift. Without the image
// too: the install deploys the server, as upstream's does.
func TestIngressStatusItem(t *testing.T) {
	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: "ns"}}
	facts := hco.OfflineFacts(hco.Environment{Namespace: "ns", Images: map[string]string{clidownload.ImageKey: "example.com/virtctl:v1"}})
	assert.Empty(t, clidownload.New().ListItems(hc, facts), "plain Kubernetes")
	facts.Platform = hco.Platform{OpenShift: true, IngressDomain: "apps.example.com"}

	// Without the image (upstream's environment), the same status: the
	// Route is the operator's either way.
	noImage := facts
	noImage.Environment.Images = nil
	assert.Equal(t, clidownload.New().ListItems(hc, facts), clidownload.New().ListItems(hc, noImage))

	items := clidownload.New().ListItems(hc, facts)
	require.Len(t, items, 1)
	assert.Equal(t, clidownload.IngressStatusTarget.String(), items[0].Target.String())
	v := items[0].Value.(map[string]any)
	assert.Equal(t, "virt-downloads", v["name"])
	assert.Equal(t, "hyperconverged-cluster-cli-download-ns.apps.example.com", v["defaultHostname"])
	assert.Equal(t, []any{"system:serviceaccount:ns:hco-operator"}, v["consumingUsers"])
	conds := v["conditions"].([]any)
	require.Len(t, conds, 3)
	assert.Equal(t, map[string]any{"type": "Degraded", "status": "False", "reason": "AsExpected", "message": "All is well"}, conds[0])

	facts.Platform.ComponentRoutes = []ocpconfigv1.ComponentRouteSpec{{Name: clidownload.ComponentRoute, Namespace: "ns", Hostname: "virtctl.example.org"}}
	conds = clidownload.New().ListItems(hc, facts)[0].Value.(map[string]any)["conditions"].([]any)
	assert.Equal(t, "True", conds[0].(map[string]any)["status"])
	assert.Equal(t, "WrongConfiguration", conds[0].(map[string]any)["reason"])
}

// On OpenShift with upstream's environment (no CLI_DOWNLOAD_IMAGE: the
// install deploys the server), the operator makes what upstream's makes:
// the Service, the Route and the ConsoleCLIDownload, and no Deployment; the
// component is there once its Service is.
func TestOpenShiftWithoutImageMakesTheRestOfUpstreams(t *testing.T) {
	facts := hco.Facts{Environment: hco.Environment{Namespace: "virt"}, Platform: hco.Platform{OpenShift: true, IngressDomain: "apps.example.com"}}
	objs, err := clidownload.New().Desired(newHC(), facts)
	require.NoError(t, err)
	var kinds []string
	for _, o := range objs {
		kinds = append(kinds, fmt.Sprintf("%T", o))
	}
	assert.Equal(t, []string{"*v1.Service", "*v1.Route", "*v1.ConsoleCLIDownload"}, kinds)

	assert.Equal(t, hcostatus.NotFound(clidownload.StatusKind), clidownload.New().Status(nil))
	assert.Equal(t, hcostatus.Found(clidownload.StatusKind), clidownload.New().Status([]client.Object{objs[0]}))
}

// The Deployment the operator makes with CLI_DOWNLOAD_IMAGE has upstream's
// writable /tmp for nginx (its root filesystem is read-only) and priority.
func TestDeploymentHasUpstreamsTmpAndPriority(t *testing.T) {
	d := clidownload.BuildDeployment(newHC(), envWithImage(), image)
	pod := d.Spec.Template.Spec
	assert.Equal(t, "system-cluster-critical", pod.PriorityClassName)
	require.Len(t, pod.Volumes, 1)
	require.NotNil(t, pod.Volumes[0].EmptyDir)
	assert.Equal(t, "256Mi", pod.Volumes[0].EmptyDir.SizeLimit.String())
	assert.Equal(t, []corev1.VolumeMount{{Name: pod.Volumes[0].Name, MountPath: "/tmp"}}, pod.Containers[0].VolumeMounts)
	assert.True(t, *pod.Containers[0].SecurityContext.ReadOnlyRootFilesystem)
}
