package bundle_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/hcokit/hcokit/tools/bundle"
)

const ns = "kubevirt-hyperconverged"

// build generates the bundle from the OLM overlay's objects plus extra, as
// if config/ rendered them too.
func build(t *testing.T, extra []bundle.Object) *bundle.Bundle {
	t.Helper()
	b, err := generate(t, extra)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func generate(t *testing.T, extra []bundle.Object) (*bundle.Bundle, error) {
	t.Helper()
	objs, md := overlay(t)
	return bundle.Generate(append(objs, extra...), md)
}

// overlay returns the OLM overlay's objects and hcokit's metadata at 1.2.3.
func overlay(t *testing.T) ([]bundle.Object, bundle.Metadata) {
	t.Helper()
	objs, err := bundle.Kustomize(root, filepath.Join(root, bundle.OverlayDir))
	if err != nil {
		t.Fatal(err)
	}
	md, err := bundle.HcokitMetadata(root, "1.2.3")
	if err != nil {
		t.Fatal(err)
	}
	return objs, md
}

// objects parses YAML documents as objects of file.
func objects(t *testing.T, file, docs string) []bundle.Object {
	t.Helper()
	var out []bundle.Object
	for _, doc := range strings.Split(docs, "\n---\n") {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
			t.Fatal(err)
		}
		out = append(out, bundle.Object{Unstructured: u, Origin: file})
	}
	return out
}

func manifestNames(b *bundle.Bundle) []string {
	var names []string
	for _, m := range b.Manifests {
		names = append(names, m.GetKind()+"/"+m.GetName())
	}
	return names
}

func rulesOf(perms []v1alpha1.StrategyDeploymentPermissions, sa string) []rbacv1.PolicyRule {
	for _, p := range perms {
		if p.ServiceAccountName == sa {
			return p.Rules
		}
	}
	return nil
}

func hasResource(rules []rbacv1.PolicyRule, resource string) bool {
	return slices.ContainsFunc(rules, func(r rbacv1.PolicyRule) bool { return slices.Contains(r.Resources, resource) })
}

// ownDeployment says whether a Deployment of the bundle is hcokit's own
// (the others are the component operators').
func ownDeployment(name string) bool { return name == "hco-operator" || name == "hco-webhook" }

// TestGenerateFromOverlay checks the CSV against what config/ says.
func TestGenerateFromOverlay(t *testing.T) {
	b := build(t, nil)
	csv := b.CSV
	if csv.Name != "hcokit-operator.v1.2.3" || csv.Spec.Version.String() != "1.2.3" {
		t.Errorf("CSV %s version %s: want hcokit-operator.v1.2.3, 1.2.3", csv.Name, csv.Spec.Version)
	}
	strategy := csv.Spec.InstallStrategy.StrategySpec
	var deployments []string
	for _, d := range strategy.DeploymentSpecs {
		deployments = append(deployments, d.Name)
		if !ownDeployment(d.Name) {
			continue // the component operators: TestComponentOperatorsAreUpstreams
		}
		for _, c := range d.Spec.Template.Spec.Containers {
			if c.Image != "quay.io/hcokit/hco-operator:1.2.3" {
				t.Errorf("Deployment %s container %s image %s: want the operator image tagged with the version", d.Name, c.Name, c.Image)
			}
			for _, e := range c.Env {
				if e.Name == "HCO_KV_IO_VERSION" && e.Value != "1.2.3" {
					t.Errorf("Deployment %s HCO_KV_IO_VERSION %q: want 1.2.3", d.Name, e.Value)
				}
			}
			for _, a := range c.Args {
				if strings.HasPrefix(a, "--cert-dir") && a != "--cert-dir="+bundle.OLMCertDir {
					t.Errorf("Deployment %s args %q: want --cert-dir absent (the default) or %s, where OLM mounts the certificate", d.Name, c.Args, bundle.OLMCertDir)
				}
			}
		}
		if d.Name == "hco-webhook" && len(d.Spec.Template.Spec.Volumes) != 0 {
			t.Errorf("webhook volumes %v: want none (OLM adds its certificate volume)", d.Spec.Template.Spec.Volumes)
		}
	}
	if len(deployments) < 2 || !slices.Equal(deployments[:2], []string{"hco-operator", "hco-webhook"}) {
		t.Errorf("deployments %q: want hco-operator, hco-webhook first", deployments)
	}
	if !hasResource(rulesOf(strategy.ClusterPermissions, "hco-operator"), "hyperconvergeds") {
		t.Errorf("clusterPermissions of hco-operator lack hyperconvergeds: %v", strategy.ClusterPermissions)
	}
	if !hasResource(rulesOf(strategy.ClusterPermissions, "hco-webhook"), "virtualmachines") {
		t.Errorf("clusterPermissions of hco-webhook lack virtualmachines: %v", strategy.ClusterPermissions)
	}
	if !hasResource(rulesOf(strategy.Permissions, "hco-operator"), "leases") {
		t.Errorf("permissions of hco-operator lack leases: %v", strategy.Permissions)
	}
	types := map[v1alpha1.WebhookAdmissionType]v1alpha1.WebhookDescription{}
	for _, w := range csv.Spec.WebhookDefinitions {
		if !ownDeployment(w.DeploymentName) {
			continue
		}
		types[w.Type] = w
		if w.DeploymentName != "hco-webhook" || w.TargetPort == nil || w.TargetPort.IntValue() != 9443 {
			t.Errorf("webhook %s: deployment %s target port %v: want hco-webhook, 9443", w.GenerateName, w.DeploymentName, w.TargetPort)
		}
	}
	if len(types) != 3 {
		t.Errorf("webhook types %v: want validating, mutating and conversion", types)
	}
	if c := types[v1alpha1.ConversionWebhook]; !slices.Equal(c.ConversionCRDs, []string{"hyperconvergeds.hco.kubevirt.io"}) || c.WebhookPath == nil || *c.WebhookPath != "/convert" {
		t.Errorf("conversion webhook %+v: want hyperconvergeds.hco.kubevirt.io on /convert", c)
	}
	var versions []string
	for _, o := range csv.Spec.CustomResourceDefinitions.Owned {
		if o.Name != "hyperconvergeds.hco.kubevirt.io" {
			continue
		}
		versions = append(versions, o.Version)
		if o.DisplayName == "" || o.Description == "" {
			t.Errorf("owned CRD %s %s: no displayName or description", o.Name, o.Version)
		}
	}
	if !slices.Equal(versions, []string{"v1", "v1beta1"}) {
		t.Errorf("owned CRD versions %q: want v1, v1beta1", versions)
	}
	names := manifestNames(b)
	if !slices.Contains(names, "CustomResourceDefinition/hyperconvergeds.hco.kubevirt.io") {
		t.Errorf("manifests %q: want the HyperConverged CRD", names)
	}
	for _, m := range b.Manifests {
		switch kind := m.GetKind(); {
		case kind == "ServiceAccount" || kind == "Namespace" || kind == "Deployment" || strings.HasSuffix(kind, "WebhookConfiguration"):
			t.Errorf("manifest %s %s: OLM creates it from the CSV", kind, m.GetName())
		case kind == "Service" && m.GetName() == "hco-webhook":
			t.Errorf("manifest Service hco-webhook: OLM creates the webhook's Service")
		case kind == "RoleBinding" || kind == "ClusterRoleBinding":
			subjects, _, _ := unstructured.NestedSlice(m.Object, "subjects")
			for _, s := range subjects {
				if name := s.(map[string]any)["name"]; name == "hco-operator" || name == "hco-webhook" {
					t.Errorf("manifest %s %s binds %s: the CSV's permissions grant it", kind, m.GetName(), name)
				}
			}
		}
	}
	if !slices.ContainsFunc(b.Warnings, func(w string) bool { return strings.Contains(w, "matchConditions") }) {
		t.Errorf("warnings %q: want the one on the validating webhook's matchConditions", b.Warnings)
	}
}

// TestGenerateAddedObjects feeds what other parts of config/ may add
// (metrics RBAC, Services, monitoring) and checks where each lands.
func TestGenerateAddedObjects(t *testing.T) {
	extra := objects(t, "config/rbac/metrics.yaml", `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: test-metrics-auth
rules:
- apiGroups: [authentication.k8s.io]
  resources: [testreviews]
  verbs: [create]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: test-metrics-auth
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: test-metrics-auth}
subjects:
- {kind: ServiceAccount, name: hco-operator, namespace: kubevirt-hyperconverged}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: test-metrics-reader
rules:
- nonResourceURLs: [/metrics]
  verbs: [get]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: test-operator-own
  namespace: kubevirt-hyperconverged
rules:
- apiGroups: [apps]
  resources: [testsets]
  verbs: [get]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: test-operator-own
  namespace: kubevirt-hyperconverged
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: test-operator-own}
subjects:
- {kind: ServiceAccount, name: hco-operator}
---
apiVersion: v1
kind: Service
metadata:
  name: test-operator-metrics
  namespace: kubevirt-hyperconverged
spec:
  selector: {app.kubernetes.io/name: hco-operator}
  ports: [{name: https, port: 8443, targetPort: 8443}]
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  name: test-operator
  namespace: kubevirt-hyperconverged
spec:
  endpoints: [{port: https, scheme: https}]
  selector:
    matchLabels: {app.kubernetes.io/name: hco-operator}`)
	b := build(t, extra)
	strategy := b.CSV.Spec.InstallStrategy.StrategySpec
	if !hasResource(rulesOf(strategy.ClusterPermissions, "hco-operator"), "testreviews") {
		t.Errorf("clusterPermissions of hco-operator lack testreviews from the bound ClusterRole: %v", strategy.ClusterPermissions)
	}
	if !hasResource(rulesOf(strategy.Permissions, "hco-operator"), "testsets") {
		t.Errorf("permissions of hco-operator lack testsets from the bound Role: %v", strategy.Permissions)
	}
	names := manifestNames(b)
	for _, want := range []string{"ClusterRole/test-metrics-reader", "Service/test-operator-metrics", "ServiceMonitor/test-operator"} {
		if !slices.Contains(names, want) {
			t.Errorf("manifests %q: want %s", names, want)
		}
	}
	for _, unwanted := range []string{"ClusterRole/test-metrics-auth", "ClusterRoleBinding/test-metrics-auth", "Role/test-operator-own", "RoleBinding/test-operator-own"} {
		if slices.Contains(names, unwanted) {
			t.Errorf("manifests %q: %s went into the CSV's permissions and must not be a manifest too", names, unwanted)
		}
	}
	for _, m := range b.Manifests {
		if m.GetNamespace() != "" {
			t.Errorf("manifest %s/%s keeps namespace %s: OLM chooses it", m.GetKind(), m.GetName(), m.GetNamespace())
		}
	}
	files, err := b.Files()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := files["bundle/manifests/test-operator-metrics_v1_service.yaml"]; !ok {
		t.Errorf("files %v: want the metrics Service in its own file", keys(files))
	}
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestGenerateRefuses checks that what OLM cannot install is an error that
// names the object and its file.
func TestGenerateRefuses(t *testing.T) {
	objs, md := overlay(t)
	for _, tc := range []struct {
		name, docs string
		want       []string
	}{{
		name: "namespace",
		docs: "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: kubevirt-hyperconverged",
		want: []string{"Namespace kubevirt-hyperconverged", "config/extra.yaml", "config/overlays/olm"},
	}, {
		name: "cert-manager",
		docs: "apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata:\n  name: hco-webhook\n  namespace: kubevirt-hyperconverged",
		want: []string{"Certificate kubevirt-hyperconverged/hco-webhook", "config/extra.yaml", "cert-manager"},
	}, {
		name: "unknown kind",
		docs: "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: x\n  namespace: kubevirt-hyperconverged",
		want: []string{"Ingress kubevirt-hyperconverged/x", "config/extra.yaml", "Ingress.networking.k8s.io"},
	}, {
		name: "manifest in another namespace",
		docs: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: elsewhere",
		want: []string{"ConfigMap elsewhere/x", "config/extra.yaml", `"kubevirt-hyperconverged"`},
	}, {
		name: "webhook on a URL",
		docs: `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: other
webhooks:
- name: other.hco.kubevirt.io
  admissionReviewVersions: [v1]
  sideEffects: None
  clientConfig:
    url: https://example.com/validate`,
		want: []string{"ValidatingWebhookConfiguration other", "config/extra.yaml", "other.hco.kubevirt.io", "URL"},
	}, {
		name: "binding mixing the operator with others",
		docs: `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: mixed
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: hco-operator}
subjects:
- {kind: ServiceAccount, name: hco-operator, namespace: kubevirt-hyperconverged}
- {kind: Group, name: admins, apiGroup: rbac.authorization.k8s.io}`,
		want: []string{"ClusterRoleBinding mixed", "config/extra.yaml", "split"},
	}, {
		name: "binding the operator's account in another namespace",
		docs: `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: elsewhere
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: hco-operator}
subjects:
- {kind: ServiceAccount, name: hco-operator, namespace: elsewhere}`,
		want: []string{"ClusterRoleBinding elsewhere", "config/extra.yaml", "elsewhere/hco-operator", `"kubevirt-hyperconverged"`},
	}, {
		name: "deployment mounting a secret nothing creates",
		docs: `apiVersion: apps/v1
kind: Deployment
metadata:
  name: extra
  namespace: kubevirt-hyperconverged
spec:
  selector:
    matchLabels: {app: extra}
  template:
    metadata:
      labels: {app: extra}
    spec:
      serviceAccountName: hco-operator
      containers:
      - name: c
        image: quay.io/hcokit/hco-operator:latest
      volumes:
      - name: certs
        secret: {secretName: extra-cert}`,
		want: []string{"Deployment kubevirt-hyperconverged/extra", "config/extra.yaml", "Secret extra-cert", "config/overlays/olm"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := bundle.Generate(append(slices.Clone(objs), objects(t, "config/extra.yaml", tc.docs)...), md)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q: want it to name %q", err, w)
				}
			}
		})
	}
}

// TestGenerateUsesOLMCertificates: whatever certificate setup the webhook
// Deployment has for kubectl apply -k (a --cert-dir, a Secret volume), the
// bundle's reads the certificate OLM mounts.
func TestGenerateUsesOLMCertificates(t *testing.T) {
	objs, md := overlay(t)
	for i, o := range objs {
		if o.GetKind() != "Deployment" || o.GetName() != "hco-webhook" {
			continue
		}
		u := o.DeepCopy()
		containers, _, _ := unstructured.NestedSlice(u.Object, "spec", "template", "spec", "containers")
		c := containers[0].(map[string]any)
		c["args"] = append(c["args"].([]any), "--cert-dir=/etc/certs")
		c["volumeMounts"] = []any{
			map[string]any{"name": "certs", "mountPath": "/etc/certs"},
			map[string]any{"name": "config", "mountPath": "/etc/config"},
		}
		_ = unstructured.SetNestedSlice(u.Object, containers, "spec", "template", "spec", "containers")
		_ = unstructured.SetNestedSlice(u.Object, []any{
			map[string]any{"name": "certs", "secret": map[string]any{"secretName": "hco-webhook-cert"}},
			map[string]any{"name": "config", "configMap": map[string]any{"name": "x"}},
		}, "spec", "template", "spec", "volumes")
		objs[i] = bundle.Object{Unstructured: u, Origin: o.Origin}
	}
	b, err := bundle.Generate(objs, md)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range b.CSV.Spec.InstallStrategy.StrategySpec.DeploymentSpecs {
		if d.Name != "hco-webhook" {
			continue
		}
		spec := d.Spec.Template.Spec
		c := spec.Containers[0]
		if slices.Contains(c.Args, "--cert-dir=/etc/certs") || !slices.Contains(c.Args, "--cert-dir="+bundle.OLMCertDir) {
			t.Errorf("args %q: want --cert-dir=%s only", c.Args, bundle.OLMCertDir)
		}
		if len(spec.Volumes) != 1 || spec.Volumes[0].Name != "config" || len(c.VolumeMounts) != 1 || c.VolumeMounts[0].Name != "config" {
			t.Errorf("volumes %v, mounts %v: want the certificate volume dropped and the config volume kept", spec.Volumes, c.VolumeMounts)
		}
	}
}

// TestGenerateDeterministic: the same input gives the same files, so a
// committed bundle can be checked byte for byte.
func TestGenerateDeterministic(t *testing.T) {
	objs, md := overlay(t)
	files := func() map[string][]byte {
		b, err := bundle.Generate(objs, md)
		if err != nil {
			t.Fatal(err)
		}
		f, err := b.Files()
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	first := files()
	for range 3 {
		again := files()
		if !slices.Equal(keys(first), keys(again)) {
			t.Fatalf("files %q, then %q", keys(first), keys(again))
		}
		for name, data := range first {
			if string(again[name]) != string(data) {
				t.Errorf("%s differs between two runs", name)
			}
		}
	}
}

// With a digest, the Deployments and relatedImages name the operator image
// by it; a malformed digest is refused, naming the form wanted.
func TestBuildDigest(t *testing.T) {
	const digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	b, err := bundle.BuildDigest(root, "1.2.3", bundle.DefaultImage, digest)
	if err != nil {
		t.Fatal(err)
	}
	want := bundle.DefaultImage + "@" + digest
	for _, d := range b.CSV.Spec.InstallStrategy.StrategySpec.DeploymentSpecs {
		if !ownDeployment(d.Name) {
			continue
		}
		for _, c := range d.Spec.Template.Spec.Containers {
			if c.Image != want {
				t.Errorf("Deployment %s container %s image %s: want %s", d.Name, c.Name, c.Image, want)
			}
		}
	}
	if !slices.ContainsFunc(b.CSV.Spec.RelatedImages, func(r v1alpha1.RelatedImage) bool { return r.Image == want }) {
		t.Errorf("relatedImages %v lack %s", b.CSV.Spec.RelatedImages, want)
	}
	if b.CSV.Annotations["containerImage"] != want {
		t.Errorf("containerImage %q: want %s", b.CSV.Annotations["containerImage"], want)
	}
	if _, err := bundle.BuildDigest(root, "1.2.3", bundle.DefaultImage, "sha256:nothex"); err == nil || !strings.Contains(err.Error(), "64 lower-case hex digits") {
		t.Errorf("a malformed digest: %v, want it refused", err)
	}
}

// Every image the stock operands read from the operator's environment (its
// hco.Imager variables, VIRTIOWIN_CONTAINER too) and the install sets is a
// related image, for mirroring in disconnected clusters.
func TestRelatedImagesHoldTheOperandImages(t *testing.T) {
	b, err := bundle.BuildDigest(root, "1.2.3", bundle.DefaultImage, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range b.CSV.Spec.InstallStrategy.StrategySpec.DeploymentSpecs {
		for _, c := range d.Spec.Template.Spec.Containers {
			for _, e := range c.Env {
				if e.Name != "VIRTIOWIN_CONTAINER" && e.Name != "WASP_AGENT_IMAGE" {
					continue
				}
				if e.Value == "" || !slices.ContainsFunc(b.CSV.Spec.RelatedImages, func(r v1alpha1.RelatedImage) bool { return r.Image == e.Value }) {
					t.Errorf("%s %q is not among relatedImages %v", e.Name, e.Value, b.CSV.Spec.RelatedImages)
				}
			}
		}
	}
}
