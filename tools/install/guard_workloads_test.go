package install

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcov1 "github.com/hcokit/hcokit/api/v1"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/operands/aie"
	"github.com/hcokit/hcokit/operands/clidownload"
	"github.com/hcokit/hcokit/operands/consoleplugin"
	"github.com/hcokit/hcokit/operands/netresinjector"
	"github.com/hcokit/hcokit/operands/observability"
	"github.com/hcokit/hcokit/operands/waspagent"
	"github.com/hcokit/hcokit/tools/install/internal/installtest"
)

// runningAs gives the workload w a pod template that runs as the service
// account sa ("": the namespace's default).
func runningAs(w client.Object, sa string) client.Object {
	tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"name": "x"}},
		Spec: corev1.PodSpec{ServiceAccountName: sa, Containers: []corev1.Container{{Name: "c", Image: "example.com/c"}}}}
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"name": "x"}}
	switch o := w.(type) {
	case *appsv1.Deployment:
		o.Spec = appsv1.DeploymentSpec{Selector: sel, Template: tmpl}
	case *appsv1.DaemonSet:
		o.Spec = appsv1.DaemonSetSpec{Selector: sel, Template: tmpl}
	}
	return w
}

// The install's admission policy hco-operator-workloads (config/guard)
// lets the operator's service account run only its operands' workloads,
// each as its own account, with the image the operator's own Deployment
// gives it, its own Secrets and no privilege, but the wasp agent's, which
// runs its image's entrypoint only. Asked as that account with every RBAC
// grant, the API server takes each workload as its operand builds it, and
// refuses the attacks: another image (also one the install gives another
// workload, or any for a workload whose image the install leaves out),
// a command or probe in the privileged agent, a second container, host
// namespaces, paths and privilege elsewhere, another Secret mounted or read,
// another account, another workload, and deleting the operator's own
// Deployment.
func TestOperatorWorkloadsAreGuarded(t *testing.T) {
	env.Require(t)
	ctx := context.Background()
	const ns = "hco-guard-workloads"
	operator := guarded(t, ctx, ns)
	dryRun := client.DryRunAll

	// The operator's Deployment as installed, with the images an admin
	// sets for the CLI download and the console plugin; the observability
	// controller's left out, as installed.
	var op appsv1.Deployment
	installtest.Into(t, installtest.Find(t, render(t, "default", ns), "Deployment", "hco-operator"), &op)
	set := map[string]string{
		"CLI_DOWNLOAD_IMAGE":      "quay.io/hcokit/virtctl-download@sha256:" + fmt.Sprintf("%064d", 1),
		"KV_CONSOLE_PLUGIN_IMAGE": "quay.io/kubevirt-ui/kubevirt-plugin@sha256:" + fmt.Sprintf("%064d", 2),
		"KV_CONSOLE_PROXY_IMAGE":  "quay.io/kubevirt-ui/kubevirt-apiserver-proxy@sha256:" + fmt.Sprintf("%064d", 3),
	}
	image := map[string]string{}
	c := &op.Spec.Template.Spec.Containers[0]
	for i, e := range c.Env {
		if v, ok := set[e.Name]; ok {
			c.Env[i].Value = v
		}
		image[e.Name] = c.Env[i].Value
	}
	require.NotEmpty(t, image["WASP_AGENT_IMAGE"])
	require.Empty(t, image["OBSERVABILITY_CONTROLLER_IMAGE"], "the install leaves the observability controller out")
	require.NoError(t, env.Client.Create(ctx, &op))
	t.Cleanup(func() { _ = env.Client.Delete(ctx, &op) })

	hc := &hcov1.HyperConverged{ObjectMeta: metav1.ObjectMeta{Name: hcov1.HyperConvergedName, Namespace: ns}}
	facts := hco.Facts{Environment: hco.Environment{Namespace: ns}}
	wasp := func(change func(p *corev1.PodSpec, c *corev1.Container)) client.Object {
		d := waspagent.BuildDaemonSet(hc, facts, image["WASP_AGENT_IMAGE"])
		change(&d.Spec.Template.Spec, &d.Spec.Template.Spec.Containers[0])
		return d
	}
	injector := func(change func(p *corev1.PodSpec, c *corev1.Container)) *appsv1.Deployment {
		d := netresinjector.BuildDeployment(hc, facts, image["NETWORK_RESOURCES_INJECTOR_IMAGE"])
		change(&d.Spec.Template.Spec, &d.Spec.Template.Spec.Containers[0])
		return d
	}
	secretVolume := func(name string) corev1.Volume {
		return corev1.Volume{Name: "x", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: name}}}
	}
	plugin := consoleplugin.BuildPluginDeployment(hc, facts, image["KV_CONSOLE_PLUGIN_IMAGE"])
	proxy, err := consoleplugin.BuildProxyDeployment(hc, facts, image["KV_CONSOLE_PROXY_IMAGE"])
	require.NoError(t, err)
	allowed := map[string]client.Object{
		"the wasp agent":      wasp(func(*corev1.PodSpec, *corev1.Container) {}),
		"the injector":        injector(func(*corev1.PodSpec, *corev1.Container) {}),
		"the AIE webhook":     aie.BuildDeployment(hc, facts, image["AIE_WEBHOOK_IMAGE"]),
		"the CLI download":    clidownload.BuildDeployment(hc, facts.Environment, image["CLI_DOWNLOAD_IMAGE"]),
		"the console plugin":  plugin,
		"the console's proxy": proxy,
	}
	// The policy reads its parameter once the API server has it.
	installtest.WaitFor(t, "the operator's Deployment read", func() error {
		return operator.Create(ctx, allowed["the injector"].DeepCopyObject().(client.Object), dryRun)
	})
	for what, obj := range allowed {
		assert.NoError(t, operator.Create(ctx, obj, dryRun), what)
	}

	refused := map[string]client.Object{
		"the wasp agent, another image": wasp(func(_ *corev1.PodSpec, c *corev1.Container) { c.Image = "example.com/root-shell" }),
		"the wasp agent, the injector's image": wasp(func(_ *corev1.PodSpec, c *corev1.Container) {
			c.Image = image["NETWORK_RESOURCES_INJECTOR_IMAGE"]
		}),
		"the wasp agent, a command": wasp(func(_ *corev1.PodSpec, c *corev1.Container) {
			c.Command = []string{"/bin/sh", "-c", "chroot /host"}
		}),
		"the wasp agent, arguments": wasp(func(_ *corev1.PodSpec, c *corev1.Container) { c.Args = []string{"--x"} }),
		"the wasp agent, an exec probe": wasp(func(_ *corev1.PodSpec, c *corev1.Container) {
			c.LivenessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"/bin/sh"}}}}
		}),
		"the wasp agent, a start hook": wasp(func(_ *corev1.PodSpec, c *corev1.Container) {
			c.Lifecycle = &corev1.Lifecycle{PostStart: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"/bin/sh"}}}}
		}),
		"the wasp agent, LD_PRELOAD": wasp(func(_ *corev1.PodSpec, c *corev1.Container) {
			c.Env = append(c.Env, corev1.EnvVar{Name: "LD_PRELOAD", Value: "/host/tmp/x.so"})
		}),
		"the wasp agent, a second container of its image": wasp(func(p *corev1.PodSpec, c *corev1.Container) {
			second := *c.DeepCopy()
			second.Name = "second"
			p.Containers = append(p.Containers, second)
		}),
		"the wasp agent, an init container": wasp(func(p *corev1.PodSpec, c *corev1.Container) {
			first := *c.DeepCopy()
			first.Name = "first"
			p.InitContainers = []corev1.Container{first}
		}),
		"the injector, the wasp agent's image": injector(func(_ *corev1.PodSpec, c *corev1.Container) { c.Image = image["WASP_AGENT_IMAGE"] }),
		"the injector, the host's root": injector(func(p *corev1.PodSpec, c *corev1.Container) {
			p.Volumes = append(p.Volumes, corev1.Volume{Name: "host", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/"}}})
		}),
		"the injector, privileged": injector(func(_ *corev1.PodSpec, c *corev1.Container) {
			c.SecurityContext.Privileged, c.SecurityContext.AllowPrivilegeEscalation = new(true), nil
		}),
		"the injector, a capability": injector(func(_ *corev1.PodSpec, c *corev1.Container) {
			c.SecurityContext.Capabilities.Add = []corev1.Capability{"SYS_ADMIN"}
		}),
		"the injector, the host's network": injector(func(p *corev1.PodSpec, _ *corev1.Container) { p.HostNetwork = true }),
		"the injector, the host's PIDs":    injector(func(p *corev1.PodSpec, _ *corev1.Container) { p.HostPID = true }),
		"the injector, a host port": injector(func(_ *corev1.PodSpec, c *corev1.Container) {
			c.Ports = append(c.Ports, corev1.ContainerPort{ContainerPort: 22, HostPort: 22})
		}),
		"the injector, the webhook's Secret": injector(func(p *corev1.PodSpec, _ *corev1.Container) {
			p.Volumes = append(p.Volumes, secretVolume("hco-webhook-cert"))
		}),
		"the injector, the webhook's Secret projected": injector(func(p *corev1.PodSpec, _ *corev1.Container) {
			p.Volumes = append(p.Volumes, corev1.Volume{Name: "x", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
				Sources: []corev1.VolumeProjection{{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "hco-webhook-cert"}}}}}}})
		}),
		"the injector, the webhook's key in its environment": injector(func(_ *corev1.PodSpec, c *corev1.Container) {
			c.Env = append(c.Env, corev1.EnvVar{Name: "K", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
				LocalObjectReference: corev1.LocalObjectReference{Name: "hco-webhook-cert"}, Key: "tls.key"}}})
		}),
		"the injector, the webhook's Secret as environment": injector(func(_ *corev1.PodSpec, c *corev1.Container) {
			c.EnvFrom = []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "hco-webhook-cert"}}}}
		}),
		"the injector, as the webhook's account":                           injector(func(p *corev1.PodSpec, _ *corev1.Container) { p.ServiceAccountName = "hco-webhook" }),
		"the injector, as the default account":                             injector(func(p *corev1.PodSpec, _ *corev1.Container) { p.ServiceAccountName = "" }),
		"the observability controller, whose image the install leaves out": observability.BuildDeployment(hc, facts, "example.com/anything"),
		"a Deployment as the wasp agent's account":                         runningAs(&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "hyperconverged-cluster-cli-download", Namespace: ns}}, waspagent.ServiceAccountName),
		"another DaemonSet as the wasp agent's account":                    runningAs(&appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "not-wasp", Namespace: ns}}, waspagent.ServiceAccountName),
		"the CLI download as the operator's account":                       runningAs(&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "hyperconverged-cluster-cli-download", Namespace: ns}}, "hco-operator"),
		"a Deployment of another name":                                     runningAs(&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "miner", Namespace: ns}}, ""),
		"a DaemonSet of another name":                                      runningAs(&appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "root-on-every-node", Namespace: ns}}, ""),
		"the operator's own Deployment":                                    op.DeepCopy(),
	}
	for what, obj := range refused {
		obj.SetResourceVersion("")
		err := operator.Create(ctx, obj, dryRun)
		refusedBy(t, err, "hco-operator-workloads", what)
	}

	// Updates too: the injector's image swapped for another.
	real := injector(func(*corev1.PodSpec, *corev1.Container) {})
	require.NoError(t, env.Client.Create(ctx, real))
	t.Cleanup(func() { _ = env.Client.Delete(ctx, real) })
	swapped := real.DeepCopy()
	swapped.Spec.Template.Spec.Containers[0].Image = "example.com/injector-of-mine"
	err = operator.Update(ctx, swapped, dryRun)
	refusedBy(t, err, "hco-operator-workloads", "update the injector's image")
	assert.NoError(t, operator.Update(ctx, real.DeepCopy(), dryRun), "update the injector as built")
	assert.NoError(t, operator.Delete(ctx, real.DeepCopy(), dryRun), "delete the injector")

	// Nor can it delete its own Deployment, which holds the images the
	// policy reads (RBAC grants the operator Deployments in its namespace
	// only, where its Deployment is).
	err = operator.Delete(ctx, op.DeepCopy(), dryRun)
	refusedBy(t, err, "hco-operator-writes", "delete the operator's Deployment")
}
