package bundle

import (
	"fmt"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
)

const admissionSideEffectNone = admissionregistrationv1.SideEffectClassNone

// webhookTarget is where OLM routes a webhook: its own Service in front of
// deployment, on port, to the container's targetPort.
type webhookTarget struct {
	deployment string
	port       int32
	targetPort *intstr.IntOrString
}

// target resolves the Service a webhook points at to the Deployment behind
// it (the one whose pod labels the Service selects) and the container port
// (a named target port resolved to its number), and marks the Service as
// replaced by OLM's.
func (g *generator) target(what, namespace, name string, port *int32) (webhookTarget, error) {
	svc, ok := g.services[namespace+"/"+name]
	if !ok {
		return webhookTarget{}, fmt.Errorf("%s points at Service %s/%s, which config/overlays/olm does not render", what, namespace, name)
	}
	g.webhookServices[namespace+"/"+name] = true
	t := webhookTarget{port: 443}
	if port != nil {
		t.port = *port
	}
	var found []string
	var target intstr.IntOrString
	for _, p := range svc.Spec.Ports {
		if p.Port == t.port {
			target = p.TargetPort
		}
	}
	selector := labels.SelectorFromSet(svc.Spec.Selector)
	for _, d := range g.deployments {
		if len(svc.Spec.Selector) == 0 || !selector.Matches(labels.Set(d.Spec.Template.Labels)) {
			continue
		}
		found = append(found, d.Name)
		t.deployment = d.Name
		if target.Type == intstr.String {
			for _, c := range d.Spec.Template.Spec.Containers {
				for _, p := range c.Ports {
					if p.Name == target.StrVal {
						target = intstr.FromInt32(p.ContainerPort)
					}
				}
			}
		}
	}
	if len(found) != 1 {
		return webhookTarget{}, fmt.Errorf("%s: Service %s/%s selects %d Deployments %v; OLM needs exactly one Deployment to serve a webhook", what, namespace, name, len(found), found)
	}
	switch {
	case target.Type == intstr.String:
		return webhookTarget{}, fmt.Errorf("%s: Service %s/%s targets port %q, which no container of Deployment %s names", what, namespace, name, target.StrVal, t.deployment)
	case target.IntVal == 0:
		target = intstr.FromInt32(t.port)
	}
	t.targetPort = &target
	return t, nil
}

// webhooks turns the validating and mutating webhook configurations into
// the CSV's webhook definitions. OLM creates the configurations, their
// Service and certificate from them, and scopes them itself, so the
// namespaceSelector is dropped; matchConditions have no place in a webhook
// definition and are dropped with a warning.
func (g *generator) webhooks(byKind map[schema.GroupKind][]Object) ([]v1alpha1.WebhookDescription, error) {
	var out []v1alpha1.WebhookDescription
	for _, o := range byKind[vwcKind] {
		c := &admissionregistrationv1.ValidatingWebhookConfiguration{}
		if err := fromUnstructured(o, c); err != nil {
			return nil, err
		}
		for _, w := range c.Webhooks {
			d, err := g.webhook(o, w.Name, w.ClientConfig, len(w.MatchConditions) > 0)
			if err != nil {
				return nil, err
			}
			d.Type = v1alpha1.ValidatingAdmissionWebhook
			d.Rules, d.FailurePolicy, d.MatchPolicy, d.ObjectSelector = w.Rules, w.FailurePolicy, w.MatchPolicy, w.ObjectSelector
			d.SideEffects, d.TimeoutSeconds, d.AdmissionReviewVersions = w.SideEffects, w.TimeoutSeconds, w.AdmissionReviewVersions
			out = append(out, d)
		}
	}
	for _, o := range byKind[mwcKind] {
		c := &admissionregistrationv1.MutatingWebhookConfiguration{}
		if err := fromUnstructured(o, c); err != nil {
			return nil, err
		}
		for _, w := range c.Webhooks {
			d, err := g.webhook(o, w.Name, w.ClientConfig, len(w.MatchConditions) > 0)
			if err != nil {
				return nil, err
			}
			d.Type = v1alpha1.MutatingAdmissionWebhook
			d.Rules, d.FailurePolicy, d.MatchPolicy, d.ObjectSelector = w.Rules, w.FailurePolicy, w.MatchPolicy, w.ObjectSelector
			d.SideEffects, d.TimeoutSeconds, d.AdmissionReviewVersions = w.SideEffects, w.TimeoutSeconds, w.AdmissionReviewVersions
			d.ReinvocationPolicy = w.ReinvocationPolicy
			out = append(out, d)
		}
	}
	return out, nil
}

// webhook fills what validating and mutating webhooks share.
func (g *generator) webhook(o Object, name string, cc admissionregistrationv1.WebhookClientConfig, matchConditions bool) (v1alpha1.WebhookDescription, error) {
	what := fmt.Sprintf("%s webhook %s", describe(o), name)
	if cc.Service == nil {
		return v1alpha1.WebhookDescription{}, fmt.Errorf("%s: must point at a Service (OLM serves it from the Deployment behind it), not a URL", what)
	}
	t, err := g.target(what, cc.Service.Namespace, cc.Service.Name, cc.Service.Port)
	if err != nil {
		return v1alpha1.WebhookDescription{}, err
	}
	if matchConditions {
		g.bundle.Warnings = append(g.bundle.Warnings, fmt.Sprintf("%s: matchConditions dropped: OLM's webhook definitions cannot express them (see docs/olm.md)", what))
	}
	return v1alpha1.WebhookDescription{
		GenerateName:   name,
		DeploymentName: t.deployment,
		ContainerPort:  t.port,
		TargetPort:     t.targetPort,
		WebhookPath:    cc.Service.Path,
	}, nil
}
