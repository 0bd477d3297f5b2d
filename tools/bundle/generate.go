package bundle

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/blang/semver/v4"
	"github.com/operator-framework/api/pkg/lib/version"
	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/hcokit/hcokit/extensions/olm"
	"github.com/hcokit/hcokit/hco"
	"github.com/hcokit/hcokit/operands/stock"
)

// Metadata is what the CSV says that the manifests cannot.
type Metadata struct {
	// Package is the OLM package; the CSV is named <Package>.v<Version>.
	Package string
	// Version is the operator's version (semver, no leading v).
	Version string
	// Channel is the one channel the bundle is in, and the default one.
	Channel string
	// Image is the operator image's repository (no tag): every container
	// image of that repository, or of ImageFrom when set, becomes Image
	// tagged with Version, or, when Digest is set, Image@Digest.
	Image, ImageFrom string
	// Digest, when set, is the operator image's digest ("sha256:..."): the
	// Deployments and relatedImages name the image by it, as a bundle that
	// must run what was tested does (nothing is pulled to learn it).
	Digest string
	// VersionEnv names the container environment variable that carries the
	// operator's version; where a container sets it, it is set to Version.
	VersionEnv string
	// MinKubeVersion is the oldest Kubernetes the operator runs on.
	MinKubeVersion string

	DisplayName string
	// Summary is one line (the CSV's description annotation); Description is
	// the long form, in Markdown.
	Summary, Description string
	Repository           string
	Provider             string
	Maturity             string
	Capabilities         string
	Keywords             []string
	Maintainers          []v1alpha1.Maintainer
	// Examples are the alm-examples: objects an admin creates, shown by
	// consoles as templates. The first is the initialization resource.
	Examples []map[string]any
}

// Bundle is a registry+v1 bundle: the CSV, the other manifests and the
// bundle annotations.
type Bundle struct {
	CSV *v1alpha1.ClusterServiceVersion
	// Manifests are the objects written next to the CSV, in the order of the
	// kustomize output.
	Manifests []Object
	// Annotations are the bundle's metadata/annotations.yaml, also the labels
	// of its image.
	Annotations map[string]string
	// Warnings name what the manifests say that OLM cannot express, so the
	// bundle leaves it out (for example a webhook's matchConditions).
	Warnings []string
}

// manifestKind says whether OLM accepts kind gk as a bundle manifest
// besides the CSV and CRDs (operator-registry's supported resources), and
// whether it is cluster-scoped.
func manifestKind(gk schema.GroupKind) (ok, clusterScoped bool) {
	switch gk {
	case schema.GroupKind{Kind: "Secret"},
		schema.GroupKind{Kind: "ConfigMap"},
		schema.GroupKind{Kind: "Service"},
		schema.GroupKind{Kind: "ServiceAccount"},
		schema.GroupKind{Group: rbacv1.GroupName, Kind: "Role"},
		schema.GroupKind{Group: rbacv1.GroupName, Kind: "RoleBinding"},
		schema.GroupKind{Group: "monitoring.coreos.com", Kind: "PrometheusRule"},
		schema.GroupKind{Group: "monitoring.coreos.com", Kind: "ServiceMonitor"},
		schema.GroupKind{Group: "policy", Kind: "PodDisruptionBudget"},
		schema.GroupKind{Group: "autoscaling.k8s.io", Kind: "VerticalPodAutoscaler"},
		schema.GroupKind{Group: "networking.k8s.io", Kind: "NetworkPolicy"}:
		return true, false
	case schema.GroupKind{Group: rbacv1.GroupName, Kind: "ClusterRole"},
		schema.GroupKind{Group: rbacv1.GroupName, Kind: "ClusterRoleBinding"},
		schema.GroupKind{Group: "scheduling.k8s.io", Kind: "PriorityClass"},
		schema.GroupKind{Group: "console.openshift.io", Kind: "ConsoleYAMLSample"},
		schema.GroupKind{Group: "console.openshift.io", Kind: "ConsoleQuickStart"},
		schema.GroupKind{Group: "console.openshift.io", Kind: "ConsoleCLIDownload"},
		schema.GroupKind{Group: "console.openshift.io", Kind: "ConsoleLink"}:
		return true, true
	}
	return false, false
}

var (
	deploymentKind = schema.GroupKind{Group: appsv1.GroupName, Kind: "Deployment"}
	crdKind        = schema.GroupKind{Group: apiextensionsv1.GroupName, Kind: "CustomResourceDefinition"}
	namespaceKind  = schema.GroupKind{Kind: "Namespace"}
	serviceKind    = schema.GroupKind{Kind: "Service"}
	secretKind     = schema.GroupKind{Kind: "Secret"}
	saKind         = schema.GroupKind{Kind: "ServiceAccount"}
	vwcKind        = schema.GroupKind{Group: "admissionregistration.k8s.io", Kind: "ValidatingWebhookConfiguration"}
	mwcKind        = schema.GroupKind{Group: "admissionregistration.k8s.io", Kind: "MutatingWebhookConfiguration"}
	roleKind       = schema.GroupKind{Group: rbacv1.GroupName, Kind: "Role"}
	clusterRole    = schema.GroupKind{Group: rbacv1.GroupName, Kind: "ClusterRole"}
	roleBinding    = schema.GroupKind{Group: rbacv1.GroupName, Kind: "RoleBinding"}
	clusterBinding = schema.GroupKind{Group: rbacv1.GroupName, Kind: "ClusterRoleBinding"}
)

// describe names an object and its file for error messages.
func describe(o Object) string {
	s := o.GetKind() + " " + o.GetName()
	if o.GetNamespace() != "" {
		s = o.GetKind() + " " + o.GetNamespace() + "/" + o.GetName()
	}
	if o.Origin != "" {
		s += " (" + o.Origin + ")"
	}
	return s
}

// generator holds the objects of one Generate call, indexed.
type generator struct {
	md        Metadata
	namespace string
	bundle    *Bundle

	deployments []*appsv1.Deployment
	// deploymentObjects are the Deployments as rendered, for errors.
	deploymentObjects map[string]Object
	accounts          map[string]bool // the Deployments' service accounts
	services          map[string]*corev1.Service
	// webhookServices are the Services webhooks point at: OLM creates its
	// own Service for each webhook Deployment, so these are left out.
	webhookServices map[string]bool
}

// Generate builds the bundle from the objects of the OLM overlay. It fails,
// naming the object and its file, on what OLM cannot install: a Namespace,
// a certificate mechanism, RBAC bound to a Deployment's service account in
// another namespace, a webhook on a URL or a Service no Deployment backs,
// and kinds OLM does not accept in a bundle.
func Generate(objs []Object, md Metadata) (*Bundle, error) {
	v, err := semver.Parse(md.Version)
	if err != nil {
		return nil, fmt.Errorf("bundle version %q: %w (give a semantic version such as 0.1.0, without a leading v)", md.Version, err)
	}
	g := &generator{
		md:                md,
		bundle:            &Bundle{},
		accounts:          map[string]bool{},
		deploymentObjects: map[string]Object{},
		services:          map[string]*corev1.Service{},
		webhookServices:   map[string]bool{},
	}
	byKind := map[schema.GroupKind][]Object{}
	for _, o := range objs {
		gk := o.GroupVersionKind().GroupKind()
		switch {
		case gk == namespaceKind:
			return nil, fmt.Errorf("%s: a bundle has no Namespace (OLM installs into the OperatorGroup's namespace); delete it in config/overlays/olm", describe(o))
		case gk.Group == "cert-manager.io":
			return nil, fmt.Errorf("%s: OLM issues and rotates the webhook certificate itself; leave the cert-manager component out of config/overlays/olm", describe(o))
		case gk == deploymentKind || gk == crdKind || gk == vwcKind || gk == mwcKind:
		default:
			if ok, _ := manifestKind(gk); !ok {
				return nil, fmt.Errorf("%s: OLM does not accept kind %s in a bundle; leave it out of config/overlays/olm or teach tools/bundle where it goes in the CSV", describe(o), gk)
			}
		}
		byKind[gk] = append(byKind[gk], o)
	}

	if err := g.readDeployments(byKind[deploymentKind]); err != nil {
		return nil, err
	}
	for _, o := range byKind[serviceKind] {
		svc := &corev1.Service{}
		if err := fromUnstructured(o, svc); err != nil {
			return nil, err
		}
		g.services[svc.Namespace+"/"+svc.Name] = svc
	}
	strategy, consumed, err := g.permissions(byKind)
	if err != nil {
		return nil, err
	}
	webhooks, err := g.webhooks(byKind)
	if err != nil {
		return nil, err
	}
	owned, crdWebhooks, err := g.crds(byKind[crdKind])
	if err != nil {
		return nil, err
	}
	webhooks = append(webhooks, crdWebhooks...)
	if err := g.useOLMCertificates(byKind[secretKind], webhooks); err != nil {
		return nil, err
	}
	for _, d := range g.deployments {
		strategy.DeploymentSpecs = append(strategy.DeploymentSpecs, v1alpha1.StrategyDeploymentSpec{
			Name: d.Name, Spec: d.Spec, Label: d.Labels,
		})
	}

	// The manifests, in the order of the kustomize output.
	for _, o := range objs {
		gk := o.GroupVersionKind().GroupKind()
		switch {
		case gk == deploymentKind || gk == vwcKind || gk == mwcKind:
			continue
		case gk == saKind && g.accounts[o.GetName()] && o.GetNamespace() == g.namespace:
			continue
		case gk == serviceKind && g.webhookServices[o.GetNamespace()+"/"+o.GetName()]:
			continue
		case consumed[key(o)]:
			continue
		}
		m, err := g.manifest(o)
		if err != nil {
			return nil, err
		}
		g.bundle.Manifests = append(g.bundle.Manifests, m)
	}

	examples, err := json.Marshal(md.Examples)
	if err != nil {
		return nil, fmt.Errorf("alm-examples: %w", err)
	}
	annotations := map[string]string{
		"alm-examples":   string(examples),
		"capabilities":   md.Capabilities,
		"containerImage": g.operatorImage(),
		"description":    md.Summary,
		"repository":     md.Repository,
		"operatorframework.io/suggested-namespace": g.namespace,
		// As upstream's CSV ships it: the console offers no deletion of the
		// operands while the default uninstallStrategy
		// (BlockUninstallIfWorkloadsExist) holds; the operator keeps it
		// following the HyperConverged's (olm.DisableOperandDeleteAnnotation).
		olm.DisableOperandDeleteAnnotation: "true",
	}
	if len(md.Examples) > 0 {
		first, err := json.Marshal(md.Examples[0])
		if err != nil {
			return nil, fmt.Errorf("initialization resource: %w", err)
		}
		annotations["operatorframework.io/initialization-resource"] = string(first)
	}

	g.bundle.CSV = &v1alpha1.ClusterServiceVersion{
		TypeMeta: metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: v1alpha1.ClusterServiceVersionKind},
		ObjectMeta: metav1.ObjectMeta{
			Name:        md.Package + ".v" + v.String(),
			Annotations: annotations,
		},
		Spec: v1alpha1.ClusterServiceVersionSpec{
			DisplayName:    md.DisplayName,
			Description:    md.Description,
			Version:        version.OperatorVersion{Version: v},
			MinKubeVersion: md.MinKubeVersion,
			Maturity:       md.Maturity,
			Provider:       v1alpha1.AppLink{Name: md.Provider, URL: md.Repository},
			Links:          []v1alpha1.AppLink{{Name: "Source Code", URL: md.Repository}},
			Keywords:       md.Keywords,
			Maintainers:    md.Maintainers,
			InstallStrategy: v1alpha1.NamedInstallStrategy{
				StrategyName: v1alpha1.InstallStrategyNameDeployment,
				StrategySpec: strategy,
			},
			// The HyperConverged CRD converts between v1 and v1beta1 through
			// the webhook Deployment, and OLM serves CRD conversion only for
			// operators installed in AllNamespaces mode (a conversion webhook
			// is cluster-wide). The operator still watches only its own
			// namespace (OPERATOR_NAMESPACE), as upstream HCO does in the
			// same install mode.
			InstallModes: []v1alpha1.InstallMode{
				{Type: v1alpha1.InstallModeTypeOwnNamespace, Supported: false},
				{Type: v1alpha1.InstallModeTypeSingleNamespace, Supported: false},
				{Type: v1alpha1.InstallModeTypeMultiNamespace, Supported: false},
				{Type: v1alpha1.InstallModeTypeAllNamespaces, Supported: true},
			},
			CustomResourceDefinitions: v1alpha1.CustomResourceDefinitions{Owned: owned},
			WebhookDefinitions:        webhooks,
			RelatedImages:             g.relatedImages(),
		},
	}
	g.bundle.Annotations = map[string]string{
		"operators.operatorframework.io.bundle.mediatype.v1":       "registry+v1",
		"operators.operatorframework.io.bundle.manifests.v1":       "manifests/",
		"operators.operatorframework.io.bundle.metadata.v1":        "metadata/",
		"operators.operatorframework.io.bundle.package.v1":         md.Package,
		"operators.operatorframework.io.bundle.channels.v1":        md.Channel,
		"operators.operatorframework.io.bundle.channel.default.v1": md.Channel,
	}
	return g.bundle, nil
}

func key(o Object) string {
	return o.GroupVersionKind().GroupKind().String() + "/" + o.GetNamespace() + "/" + o.GetName()
}

func fromUnstructured(o Object, into any) error {
	if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(o.Object, into, true); err != nil {
		return fmt.Errorf("%s: %w", describe(o), err)
	}
	return nil
}

// readDeployments fills the install strategy's Deployments: images tagged
// with the version, the version environment variable set, and all in one
// namespace, the operator's.
func (g *generator) readDeployments(objs []Object) error {
	if len(objs) == 0 {
		return fmt.Errorf("config/overlays/olm renders no Deployment; the CSV installs the operator from its Deployments")
	}
	for _, o := range objs {
		d := &appsv1.Deployment{}
		if err := fromUnstructured(o, d); err != nil {
			return err
		}
		if g.namespace == "" {
			g.namespace = d.Namespace
		}
		if d.Namespace != g.namespace {
			return fmt.Errorf("%s: in namespace %q, but Deployment %s is in %q; OLM installs every Deployment into one namespace", describe(o), d.Namespace, g.deployments[0].Name, g.namespace)
		}
		spec := &d.Spec.Template.Spec
		for _, cs := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
			for i := range cs {
				c := &cs[i]
				if r := repository(c.Image); r == g.md.Image || (g.md.ImageFrom != "" && r == g.md.ImageFrom) {
					c.Image = g.operatorImage()
				}
				for j := range c.Env {
					if c.Env[j].Name == g.md.VersionEnv && c.Env[j].ValueFrom == nil {
						c.Env[j].Value = g.md.Version
					}
				}
			}
		}
		// As upstream's CSV labels its Deployments and their pods: OLM
		// manages them.
		if d.Labels == nil {
			d.Labels = map[string]string{}
		}
		if d.Spec.Template.Labels == nil {
			d.Spec.Template.Labels = map[string]string{}
		}
		d.Labels[managedByLabel], d.Spec.Template.Labels[managedByLabel] = "olm", "olm"
		sa := spec.ServiceAccountName
		if sa == "" {
			return fmt.Errorf("%s: no serviceAccountName; OLM grants the CSV's permissions to named service accounts", describe(o))
		}
		g.accounts[sa] = true
		g.deployments = append(g.deployments, d)
		g.deploymentObjects[d.Name] = o
	}
	return nil
}

// managedByLabel is the label upstream's CSV sets to "olm" on every
// Deployment and pod template of the bundle.
const managedByLabel = "app.kubernetes.io/managed-by"

// OLMCertDir is where OLM mounts the serving certificate (tls.crt,
// tls.key) in a Deployment that serves a webhook of the CSV.
const OLMCertDir = "/tmp/k8s-webhook-server/serving-certs"

// OLMAPIServiceCertDir is where OLM also mounts it, as apiserver.crt and
// apiserver.key (ssp-operator reads it there).
const OLMAPIServiceCertDir = "/apiserver.local.config/certificates"

// useOLMCertificates makes the Deployments serve with OLM's certificate:
// in a Deployment that serves a webhook of the CSV, every container's
// --cert-dir points at OLMCertDir, and a Secret volume mounted at its former
// or new cert dir whose Secret the bundle does not create (the certificate
// Secret of kubectl apply -k) is dropped, since OLM mounts its own there.
// Any other Secret volume whose Secret nothing creates is an error: the pod
// would never start.
func (g *generator) useOLMCertificates(secrets []Object, webhooks []v1alpha1.WebhookDescription) error {
	inBundle := map[string]bool{}
	for _, s := range secrets {
		inBundle[s.GetName()] = true
	}
	missing := func(v corev1.Volume) bool {
		s := v.Secret
		return s != nil && !inBundle[s.SecretName] && (s.Optional == nil || !*s.Optional)
	}
	serving := map[string]bool{}
	for _, w := range webhooks {
		serving[w.DeploymentName] = true
	}
	for _, d := range g.deployments {
		spec := &d.Spec.Template.Spec
		if serving[d.Name] {
			volumes := map[string]corev1.Volume{}
			for _, v := range spec.Volumes {
				volumes[v.Name] = v
			}
			dropped := map[string]bool{}
			for i := range spec.Containers {
				c := &spec.Containers[i]
				certDir := OLMCertDir
				for j, a := range c.Args {
					if dir, ok := strings.CutPrefix(a, "--cert-dir="); ok {
						certDir, c.Args[j] = dir, "--cert-dir="+OLMCertDir
					}
					if a == "--cert-dir" && j+1 < len(c.Args) {
						certDir, c.Args[j+1] = c.Args[j+1], OLMCertDir
					}
				}
				c.VolumeMounts = slices.DeleteFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool {
					drop := (m.MountPath == certDir || m.MountPath == OLMCertDir || m.MountPath == OLMAPIServiceCertDir) && missing(volumes[m.Name])
					if drop {
						dropped[m.Name] = true
					}
					return drop
				})
			}
			spec.Volumes = slices.DeleteFunc(spec.Volumes, func(v corev1.Volume) bool { return dropped[v.Name] })
		}
		for _, v := range spec.Volumes {
			if missing(v) {
				return fmt.Errorf("%s: mounts Secret %s (volume %s), which nothing in the bundle creates; remove the volume in config/overlays/olm or add the Secret", describe(g.deploymentObjects[d.Name]), v.Secret.SecretName, v.Name)
			}
		}
	}
	return nil
}

// repository is image without its tag or digest.
func repository(image string) string {
	if i := strings.Index(image, "@"); i >= 0 {
		image = image[:i]
	}
	if i := strings.LastIndex(image, ":"); i > strings.LastIndex(image, "/") {
		image = image[:i]
	}
	return image
}

func (g *generator) operatorImage() string {
	if g.md.Digest != "" {
		return g.md.Image + "@" + g.md.Digest
	}
	return g.md.Image + ":" + g.md.Version
}

// imageVariables are the environment variables the stock operands read
// their images from (hco.Imager): VIRTIOWIN_CONTAINER, say, besides the
// *_IMAGE ones.
func imageVariables() map[string]bool {
	out := map[string]bool{}
	for _, op := range stock.Operands() {
		if im, ok := op.(hco.Imager); ok {
			for _, img := range im.Images() {
				out[img.Variable] = true
			}
		}
	}
	return out
}

// relatedImages lists every image the Deployments run or pass on in an
// environment variable named *_IMAGE or RELATED_IMAGE_* (OLM's convention) or read by a stock operand for its
// image, once each, for mirroring in disconnected clusters.
func (g *generator) relatedImages() []v1alpha1.RelatedImage {
	images := imageVariables()
	var out []v1alpha1.RelatedImage
	seen := map[string]bool{}
	add := func(name, image string) {
		if image == "" || seen[image] {
			return
		}
		seen[image] = true
		out = append(out, v1alpha1.RelatedImage{Name: name, Image: image})
	}
	for _, d := range g.deployments {
		spec := d.Spec.Template.Spec
		for _, c := range slices.Concat(spec.InitContainers, spec.Containers) {
			name := repository(c.Image)
			add(name[strings.LastIndex(name, "/")+1:], c.Image)
			for _, e := range c.Env {
				if (strings.HasSuffix(e.Name, "_IMAGE") || strings.HasPrefix(e.Name, "RELATED_IMAGE_") || images[e.Name]) && e.ValueFrom == nil {
					add(strings.ToLower(strings.ReplaceAll(strings.TrimSuffix(e.Name, "_IMAGE"), "_", "-")), e.Value)
				}
			}
		}
	}
	return out
}

// permissions builds the install strategy: the Deployments, and the rules of
// every Role and ClusterRole bound to their service accounts (OLM creates
// the accounts and bindings from them). consumed holds the roles and
// bindings that went into the CSV and so are not written as manifests.
func (g *generator) permissions(byKind map[schema.GroupKind][]Object) (v1alpha1.StrategyDetailsDeployment, map[string]bool, error) {
	var strategy v1alpha1.StrategyDetailsDeployment
	roles := map[string]Object{}
	for _, gk := range []schema.GroupKind{roleKind, clusterRole} {
		for _, o := range byKind[gk] {
			roles[key(o)] = o
		}
	}
	consumed := map[string]bool{}
	// Roles that a binding kept as a manifest also refers to stay manifests.
	keep := map[string]bool{}
	namespaced := map[string][]rbacv1.PolicyRule{}
	cluster := map[string][]rbacv1.PolicyRule{}
	for _, gk := range []schema.GroupKind{clusterBinding, roleBinding} {
		for _, o := range byKind[gk] {
			var ref rbacv1.RoleRef
			var subjects []rbacv1.Subject
			if gk == clusterBinding {
				b := &rbacv1.ClusterRoleBinding{}
				if err := fromUnstructured(o, b); err != nil {
					return strategy, nil, err
				}
				ref, subjects = b.RoleRef, b.Subjects
			} else {
				b := &rbacv1.RoleBinding{}
				if err := fromUnstructured(o, b); err != nil {
					return strategy, nil, err
				}
				ref, subjects = b.RoleRef, b.Subjects
			}
			roleKey := schema.GroupKind{Group: rbacv1.GroupName, Kind: ref.Kind}.String() + "/"
			if ref.Kind == "Role" {
				roleKey += o.GetNamespace()
			}
			roleKey += "/" + ref.Name
			var ours []string
			for _, s := range subjects {
				if s.Kind != rbacv1.ServiceAccountKind || !g.accounts[s.Name] {
					continue
				}
				if s.Namespace != "" && s.Namespace != g.namespace {
					return strategy, nil, fmt.Errorf("%s: binds service account %s/%s, but the Deployments run in namespace %q; set the subject's namespace (or the overlay's namespace) to match", describe(o), s.Namespace, s.Name, g.namespace)
				}
				ours = append(ours, s.Name)
			}
			if len(ours) == 0 {
				keep[roleKey] = true
				continue
			}
			if len(ours) != len(subjects) {
				return strategy, nil, fmt.Errorf("%s: binds a Deployment's service account together with other subjects; OLM creates the Deployments' bindings itself, so split it into a binding for the service account and one for the others", describe(o))
			}
			if gk == roleBinding && o.GetNamespace() != g.namespace {
				return strategy, nil, fmt.Errorf("%s: OLM grants namespaced permissions only in the operator's namespace %q", describe(o), g.namespace)
			}
			role, ok := roles[roleKey]
			if !ok {
				return strategy, nil, fmt.Errorf("%s: refers to %s %s, which config/overlays/olm does not render", describe(o), ref.Kind, ref.Name)
			}
			// Role and ClusterRole share their rules' shape.
			r := &rbacv1.ClusterRole{}
			if err := fromUnstructured(role, r); err != nil {
				return strategy, nil, err
			}
			if r.AggregationRule != nil {
				return strategy, nil, fmt.Errorf("%s: aggregated, and OLM grants only listed rules; list the rules in it", describe(role))
			}
			typed := r.Rules
			for _, sa := range ours {
				if gk == clusterBinding {
					cluster[sa] = append(cluster[sa], typed...)
				} else {
					namespaced[sa] = append(namespaced[sa], typed...)
				}
			}
			consumed[key(o)] = true
			consumed[roleKey] = true
		}
	}
	for k := range keep {
		delete(consumed, k)
	}
	// OLM creates only the service accounts the permissions name.
	for sa := range g.accounts {
		if _, ok := cluster[sa]; !ok {
			if _, ok := namespaced[sa]; !ok {
				namespaced[sa] = []rbacv1.PolicyRule{}
			}
		}
	}
	strategy.Permissions = sortedPermissions(namespaced)
	strategy.ClusterPermissions = sortedPermissions(cluster)
	return strategy, consumed, nil
}

func sortedPermissions(m map[string][]rbacv1.PolicyRule) []v1alpha1.StrategyDeploymentPermissions {
	var out []v1alpha1.StrategyDeploymentPermissions
	for sa, rules := range m {
		out = append(out, v1alpha1.StrategyDeploymentPermissions{ServiceAccountName: sa, Rules: rules})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ServiceAccountName < out[j].ServiceAccountName })
	return out
}

// manifest returns o as a bundle manifest: namespaced objects lose their
// namespace (OLM creates them in the install namespace).
func (g *generator) manifest(o Object) (Object, error) {
	u := o.DeepCopy()
	gk := u.GroupVersionKind().GroupKind()
	if _, clusterScoped := manifestKind(gk); !clusterScoped && gk != crdKind {
		if u.GetNamespace() != g.namespace {
			return Object{}, fmt.Errorf("%s: OLM creates a bundle's namespaced objects in the operator's namespace %q only", describe(o), g.namespace)
		}
		u.SetNamespace("")
	}
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	unstructured.RemoveNestedField(u.Object, "status")
	return Object{Unstructured: u, Origin: o.Origin}, nil
}

// crds describes the CRDs the operator owns, one entry per served version,
// and turns a conversion webhook into a webhook definition.
func (g *generator) crds(objs []Object) ([]v1alpha1.CRDDescription, []v1alpha1.WebhookDescription, error) {
	var owned []v1alpha1.CRDDescription
	var webhooks []v1alpha1.WebhookDescription
	for _, o := range objs {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := fromUnstructured(o, crd); err != nil {
			return nil, nil, err
		}
		for _, v := range crd.Spec.Versions {
			if !v.Served {
				continue
			}
			d := v1alpha1.CRDDescription{
				Name: crd.Name, Version: v.Name, Kind: crd.Spec.Names.Kind,
				DisplayName: crd.Spec.Names.Kind,
			}
			if v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
				d.Description = v.Schema.OpenAPIV3Schema.Description
			}
			if d.Description == "" {
				d.Description = crd.Spec.Names.Kind + " " + v.Name
			}
			owned = append(owned, d)
		}
		conv := crd.Spec.Conversion
		if conv == nil || conv.Strategy != apiextensionsv1.WebhookConverter {
			continue
		}
		if conv.Webhook == nil || conv.Webhook.ClientConfig == nil || conv.Webhook.ClientConfig.Service == nil {
			return nil, nil, fmt.Errorf("%s: the conversion webhook must point at a Service (OLM serves it from the Deployment behind it), not a URL", describe(o))
		}
		ref := conv.Webhook.ClientConfig.Service
		t, err := g.target(describe(o)+" conversion", ref.Namespace, ref.Name, ref.Port)
		if err != nil {
			return nil, nil, err
		}
		none := admissionSideEffectNone
		webhooks = append(webhooks, v1alpha1.WebhookDescription{
			GenerateName:            "convert-" + crd.Name,
			Type:                    v1alpha1.ConversionWebhook,
			DeploymentName:          t.deployment,
			ContainerPort:           t.port,
			TargetPort:              t.targetPort,
			SideEffects:             &none,
			AdmissionReviewVersions: conv.Webhook.ConversionReviewVersions,
			WebhookPath:             ref.Path,
			ConversionCRDs:          []string{crd.Name},
		})
	}
	return owned, webhooks, nil
}
